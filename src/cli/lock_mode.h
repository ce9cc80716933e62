// How sync and run treat the lockfile, as uv does: re-lock when it is missing or stale (the
// default), refuse then (`--locked`, the CI setting), or install it as it is (`--frozen`).
#pragma once

#include <optional>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/options.h"
#include "src/cli/project.h"
#include "lock/lockfile.h"

namespace wv::cli {

enum class LockMode { kRelock, kLocked, kFrozen };

/// Takes `--locked` and `--frozen` (usage error: both).
Result<LockMode> extract_lock_mode(Arguments& arguments);

struct CurrentLock {
  lock::Lockfile lockfile;
  std::optional<LoadedProject> project;  ///< the project, when it was loaded (not kFrozen)
};

/// `<project>/pylock.toml` as `mode` wants it: with kRelock a missing or stale lock is locked
/// first (printing what `wvlock lock` prints); kLocked refuses both (kInvalidLockfile, exit 1);
/// kFrozen reads it without looking at the project. `read`: the lock as the caller already
/// read it from `<project>/pylock.toml`, so that it is not parsed twice (nullopt: read it here).
Result<CurrentLock> current_lockfile(const GlobalOptions& options, FileSystem& file_system,
                                     LockMode mode,
                                     std::optional<lock::Lockfile> read = std::nullopt);

}  // namespace wv::cli
