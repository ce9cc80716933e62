// Keep, create or recreate the environment; undo a new one when its sync fails.
#include "src/install/new_environment.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/platform.h"
#include "src/base/str.h"
#include "src/install/environment.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

// True when `folder` holds nothing but a sync lock (what a refused first sync may leave).
bool holds_nothing(const std::string& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != kLockName) return false;
  }
  return true;
}

// Swaps two folders' names in one step; two renames where the file system lacks the atomic
// exchange (then the path lacks an environment for a moment).
Result<void> swap_folders(const std::string& a, const std::string& b) {
  if (platform::exchange_paths(a.c_str(), b.c_str()) == 0) return {};
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
    return make_error(ErrorCode::kIo, str_cat("cannot swap ", in_backticks(a), " and ",
                                              in_backticks(b), ": ", std::strerror(errno)));
  }
  const std::string between = str_cat(a, ".wvlock-between-", ::getpid());
  std::error_code ec;
  fs::rename(a, between, ec);
  if (!ec) {
    fs::rename(b, a, ec);
    if (ec) {
      std::error_code ignored;
      fs::rename(between, a, ignored);
    } else {
      fs::rename(between, b, ec);
    }
  }
  if (ec) {
    return make_error(ErrorCode::kIo, str_cat("cannot swap ", in_backticks(a), " and ",
                                              in_backticks(b), ": ", ec.message()));
  }
  return {};
}

}  // namespace

Result<EnvironmentPlan> plan_environment(const std::string& venv, const std::string& python,
                                         const PythonRequest* request) {
  EnvironmentPlan plan;
  WV_ASSIGN_OR_RETURN(plan.root, absolute_venv_path(venv));
  std::error_code ec;
  const bool exists = fs::exists(path_join(plan.root, "pyvenv.cfg"), ec);
  if (!exists) {
    if (fs::exists(plan.root, ec) && !holds_nothing(plan.root)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(plan.root), " exists and is not a virtual "
                                "environment (it has no `pyvenv.cfg`); remove it, or name another "
                                "folder with `--venv`"));
    }
    plan.mode = EnvironmentMode::kCreate;
    WV_ASSIGN_OR_RETURN(plan.base, read_interpreter(plan.root, python));
    return plan;
  }
  Result<InterpreterFacts> current = read_interpreter(plan.root);
  if (request == nullptr) {
    if (!current) return std::move(current).error();
    plan.current = std::move(*current);
    return plan;
  }
  WV_ASSIGN_OR_RETURN(InterpreterFacts wanted, read_interpreter(plan.root, python));
  const bool kept = current && (request->executable.empty() ? satisfies(*current, *request)
                                                            : same_interpreter(*current, wanted));
  if (kept) {
    plan.current = std::move(*current);
    return plan;
  }
  plan.mode = EnvironmentMode::kRecreate;
  const std::string asked =
      request->executable.empty()
          ? str_cat("`--python ", request->text, "` asks for ", describe(*request))
          : str_cat("`--python ", request->text, "` is another interpreter");
  if (current) {
    plan.reason = str_cat("replacing Python ", current->full_version, " (",
                          current->base_executable, "): ", asked);
    plan.current = std::move(*current);
  } else {
    plan.reason = str_cat("replacing an environment whose interpreter does not answer (",
                          current.error().message, "): ", asked);
  }
  plan.base = std::move(wanted);
  return plan;
}

Result<EnvironmentTransaction> EnvironmentTransaction::begin(const EnvironmentPlan& plan) {
  EnvironmentTransaction transaction;
  transaction.mode_ = plan.mode;
  transaction.root_ = plan.root;
  std::error_code ec;
  switch (plan.mode) {
    case EnvironmentMode::kKeep: {
      WV_ASSIGN_OR_RETURN(SyncLock lock, SyncLock::acquire(plan.root));
      transaction.lock_.emplace(std::move(lock));
      break;
    }
    case EnvironmentMode::kCreate: {
      fs::create_directories(fs::path(plan.root).parent_path(), ec);
      transaction.created_folder_ = fs::create_directory(plan.root, ec);
      if (ec) {
        return make_error(ErrorCode::kIo, str_cat("cannot create ", in_backticks(plan.root), ": ",
                                                  ec.message()));
      }
      // Another sync that holds the lock owns the folder now, even one this sync made.
      WV_ASSIGN_OR_RETURN(SyncLock lock, SyncLock::acquire(plan.root));
      transaction.lock_.emplace(std::move(lock));
      if (fs::exists(path_join(plan.root, "pyvenv.cfg"), ec)) {
        transaction.mode_ = EnvironmentMode::kKeep;  // made by another sync meanwhile
      }
      break;
    }
    case EnvironmentMode::kRecreate: {
      WV_ASSIGN_OR_RETURN(SyncLock previous, SyncLock::acquire(plan.root));
      transaction.previous_lock_.emplace(std::move(previous));
      transaction.aside_ = str_cat(plan.root, ".wvlock-swap-", ::getpid());
      fs::remove_all(transaction.aside_, ec);
      if (!fs::create_directory(transaction.aside_, ec) || ec) {
        return make_error(ErrorCode::kIo, str_cat("cannot create ", in_backticks(transaction.aside_),
                                                  ": ", ec ? ec.message() : "it exists"));
      }
      Result<SyncLock> lock = SyncLock::acquire(transaction.aside_);
      if (!lock) {
        fs::remove_all(transaction.aside_, ec);
        return std::move(lock).error();
      }
      transaction.lock_.emplace(std::move(*lock));
      if (Result<void> swapped = swap_folders(plan.root, transaction.aside_); !swapped) {
        fs::remove_all(transaction.aside_, ec);
        return std::move(swapped).error();
      }
      break;
    }
  }
  transaction.done_ = false;
  return transaction;
}

EnvironmentTransaction::EnvironmentTransaction(EnvironmentTransaction&& other) noexcept {
  *this = std::move(other);
}

EnvironmentTransaction& EnvironmentTransaction::operator=(EnvironmentTransaction&& other) noexcept {
  if (this != &other) {
    if (!done_) abort();
    mode_ = other.mode_;
    root_ = std::move(other.root_);
    aside_ = std::move(other.aside_);
    created_folder_ = other.created_folder_;
    done_ = other.done_;
    lock_ = std::move(other.lock_);
    previous_lock_ = std::move(other.previous_lock_);
    other.done_ = true;
  }
  return *this;
}

EnvironmentTransaction::~EnvironmentTransaction() {
  if (!done_) abort();
}

void EnvironmentTransaction::commit() {
  if (done_) return;
  done_ = true;
  if (mode_ == EnvironmentMode::kRecreate) {
    std::error_code ec;
    fs::remove_all(aside_, ec);
  }
  previous_lock_.reset();
}

std::string EnvironmentTransaction::abort() {
  if (done_) return "";
  done_ = true;
  std::error_code ec;
  std::string note;
  if (mode_ == EnvironmentMode::kCreate) {
    if (created_folder_) {
      fs::remove_all(root_, ec);
    } else {
      for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code ignored;
        fs::remove_all(it->path(), ignored);
      }
    }
    note = str_cat("the new environment ", in_backticks(root_), " was removed");
  } else if (mode_ == EnvironmentMode::kRecreate) {
    if (Result<void> back = swap_folders(root_, aside_); !back) {
      note = str_cat("the previous environment is kept at ", in_backticks(aside_), " (",
                     back.error().message, "); move it back to ", in_backticks(root_));
    } else {
      fs::remove_all(aside_, ec);
      note = str_cat("the environment ", in_backticks(root_), " is as it was before the sync");
    }
  }
  lock_.reset();
  previous_lock_.reset();
  return note;
}

}  // namespace wv::install
