// The packages sync builds from source (DESIGN.md §2.2): where each one's source is, what an
// installed copy records of it (so a re-sync keeps it while the source holds). Its
// direct_url.json is install/direct_url.h's; the building itself is SourceBuilder's (src/build).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/install/select.h"
#include "src/install/sync.h"
#include "lock/lockfile.h"

namespace wv::install {

/// The file sync fetches (and verifies) before building: the sdist or archive; nullptr for a
/// directory or vcs entry.
const lock::LockedFile* source_file(const lock::LockedPackage& package);

/// The source tree of a directory entry: its path against the lock's folder, subdirectory
/// applied, absolute; "" for other entries.
std::string source_directory(const lock::LockedPackage& package, const SyncOptions& options);

/// The identity of every package of `selection` that is built from source. Reads the files
/// that define a directory's metadata.
Result<SourceIdentities> source_identities(const TargetChoice& selection,
                                                                const SyncOptions& options);

/// Refuses, before anything changes, builds that cannot happen: `--no-build` (naming every
/// package that would be built), or no builder.
Result<void> check_buildable(const std::vector<const PlanItem*>& builds, const SyncOptions& options);

/// Whether a directory entry installs editable here: the lock says so and `--no-editable` was
/// not given.
bool installs_editable(const lock::LockedPackage& package, const SyncOptions& options);

}  // namespace wv::install
