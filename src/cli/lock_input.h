// Which lockfile sync and targets read: the project's `pylock.toml`, or any PEP 751 lock named
// by `--lockfile PATH` (`pylock.toml` or `pylock.NAME.toml`), which needs no pyproject.toml.
// A lock that declares no wvlock targets (another tool's, or one of our exports) is installed by
// PEP 751's rules (install/standard_select.h): nothing is re-locked and no freshness is checked;
// its sdists, directories, git and archive entries are built with build requirements from the
// indexes its packages name.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/project.h"
#include "lock/lockfile.h"

namespace wv::cli {

struct GlobalOptions;

struct LockInput {
  std::string path;    ///< the lockfile
  std::string dir;     ///< its folder: relative `path`s in it are relative to this
  bool named = false;  ///< given by `--lockfile`
};

/// `--lockfile PATH` (its file name checked against PEP 751's `pylock.toml` /
/// `pylock.NAME.toml`), else `<project>/pylock.toml`.
Result<LockInput> lock_input(const GlobalOptions& options, const std::optional<std::string>& flag);

/// Whether sync checks the lock against pyproject.toml: only the project's own lock with targets.
bool checks_freshness(const LockInput& input, const lock::Lockfile& lockfile);

/// The package source builds of a standard lock use: the lock's folder as the project folder and
/// the indexes its packages name (in the order first named, the first one asked last as the
/// default), so that build requirements come from where the lock's packages came from.
Result<std::unique_ptr<ProjectSource>> lock_build_source(const GlobalOptions& options,
                                                        const lock::Lockfile& lockfile,
                                                        const std::string& lock_dir,
                                                        FileSystem& file_system);

}  // namespace wv::cli
