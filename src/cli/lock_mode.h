// How sync and run treat the lockfile, as uv does: re-lock when it is missing or stale (the
// default), refuse then (`--locked`, the CI setting), or install it as it is (`--frozen`).
#pragma once

#include <optional>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/options.h"
#include "lock/lockfile.h"
#include "targets/project_file.h"

namespace wv::cli {

enum class LockMode { kRelock, kLocked, kFrozen };

/// Takes `--locked` and `--frozen` (usage error: both).
Result<LockMode> extract_lock_mode(Arguments& arguments);

struct CurrentLock {
  lock::Lockfile lockfile;
  std::optional<targets::ProjectConfig> config;  ///< the project file, when it was read
};

/// `<project>/pylock.toml` as `mode` wants it: with kRelock a missing or stale lock is locked
/// first (printing what `wvlock lock` prints); kLocked refuses both (kInvalidLockfile, exit 1);
/// kFrozen reads it without looking at the project.
Result<CurrentLock> current_lockfile(const GlobalOptions& options, FileSystem& file_system,
                                     LockMode mode);

}  // namespace wv::cli
