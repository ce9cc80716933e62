// The commit (docs/install.md, "Safety"): what leaves the environment (the files of the
// distributions the plan upgrades or removes, and their byte-code caches), the check at every
// path it touches (destinations.h), the folders to create, then the moves under a journal
// written durably first (journal.h). An error midway rolls the moves back; removing the
// journal is the commit point.
#pragma once

#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/environment.h"
#include "src/install/journal.h"
#include "src/install/plan.h"
#include "src/install/stage.h"

namespace wv::install {

struct CommitRequest {
  const std::string& root;  ///< the environment
  const InstallScheme& scheme;
  const Plan& plan;
  const std::vector<InstalledDistribution>& installed;
};

/// The journal of the commit, every path checked before anything changes: the files that
/// leave, the staged files that move in (a destination that already holds its file is left as
/// it is), the folders to create and those to remove.
Result<Journal> plan_commit(const FileSystem& file_system, const CommitRequest& request,
                            const StagedFiles& staged);

/// Makes the journal's changes, under it: flushes what was staged, writes the journal (and
/// flushes it), moves, then removes the folders the removed distributions leave empty, flushes
/// and removes the journal. An error during the moves rolls them back and says so.
Result<void> commit(FileSystem& file_system, const CommitRequest& request, const Journal& journal);

}  // namespace wv::install
