#include "src/cli/lock_mode.h"

#include "src/base/str.h"
#include "src/cli/lock_project.h"
#include "src/cli/project.h"

namespace wv::cli {
namespace {

// A lock that `wvlock lock` failed to write: its own output said why (exit code kept).
Error relock_failed(const GlobalOptions& options, const std::string& path, int code) {
  const ErrorCode error_code = code == kExitIo ? ErrorCode::kNetwork
                               : code == kExitUsage ? ErrorCode::kInvalidInput
                                                    : ErrorCode::kUnavailable;
  Error error = make_error(error_code, str_cat("could not lock ", in_backticks(path),
                                               options.offline ? " offline, from the cache alone" : "",
                                               " (see above)"));
  if (options.offline) {
    return std::move(error).with_note(
        "hint: run without `--offline` to fill the cache, or pass `--frozen` to install the "
        "lock as it is");
  }
  return std::move(error).with_note("hint: `--frozen` installs the existing lock as it is");
}

}  // namespace

Result<LockMode> extract_lock_mode(Arguments& arguments) {
  const bool locked = arguments.extract_flag("--locked");
  const bool frozen = arguments.extract_flag("--frozen");
  if (locked && frozen) {
    return make_error(ErrorCode::kInvalidInput,
                      "`--locked` and `--frozen` contradict each other: `--locked` checks the "
                      "lock is fresh, `--frozen` does not look");
  }
  return frozen ? LockMode::kFrozen : locked ? LockMode::kLocked : LockMode::kRelock;
}

Result<CurrentLock> current_lockfile(const GlobalOptions& options, FileSystem& file_system,
                                     LockMode mode, std::optional<lock::Lockfile> read) {
  CurrentLock current;
  const std::string path = path_join(options.project_dir, "pylock.toml");
  if (mode == LockMode::kFrozen && read) {
    current.lockfile = std::move(*read);
    return current;
  }
  if (mode == LockMode::kFrozen) {
    auto text = file_system.read_file(path);
    if (!text && text.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound,
                        str_cat(in_backticks(path), " does not exist and `--frozen` installs an "
                                                    "existing lock: run `wvlock lock` first"));
    }
    if (!text) return text.error();
    WV_ASSIGN_OR_RETURN(current.lockfile, lock::read_lockfile(*text, path));
    return current;
  }
  // For the freshness check alone: a fresh lock (the common case) needs no target's tag list.
  WV_ASSIGN_OR_RETURN(LoadedProject project,
                      load_project(options, file_system, ProjectUse::kCheck));
  std::optional<lock::Lockfile> lockfile = std::move(read);
  if (!lockfile) {
    auto text = file_system.read_file(path);
    if (!text && text.error().code != ErrorCode::kNotFound) return text.error();
    if (text) {
      WV_ASSIGN_OR_RETURN(lockfile, lock::read_lockfile(*text, path));
    }
  }
  const bool fresh = lockfile && lock_is_fresh(project, *lockfile);
  if (!fresh && mode == LockMode::kLocked) {
    if (!lockfile) {
      return make_error(ErrorCode::kInvalidLockfile,
                        str_cat(in_backticks(path), " does not exist: run `wvlock lock` first"));
    }
    return stale_lockfile(path, stale_reason(project, *lockfile),
                          ", or pass `--frozen` to install it as it is");
  }
  if (!fresh) {
    WV_ASSIGN_OR_RETURN(project, load_project(options, file_system, ProjectUse::kLock));
    const int code = lock_project(options, project, LockRequest{}, file_system);
    if (code != kExitOk) return relock_failed(options, path, code);
    WV_ASSIGN_OR_RETURN(std::string written, file_system.read_file(path));
    WV_ASSIGN_OR_RETURN(lockfile, lock::read_lockfile(written, path));
  }
  current.lockfile = std::move(*lockfile);
  current.project = std::move(project);
  return current;
}

}  // namespace wv::cli
