// Whether sync keeps, creates or recreates the environment, and a new one kept only when its
// sync succeeds (uv's `--python` semantics: a venv of another Python than the one asked for is
// replaced). Deciding touches nothing; a created environment is removed again when the sync
// fails, and a recreated one is built in place of the old, which waits beside it
// (`<venv>.wvlock-swap-<pid>`) until the new one is committed, then goes; a failure puts it
// back. The swap is one atomic rename (platform::exchange_paths) where the file system has it,
// so the path never lacks an environment and another sync always meets a held lock. POSIX only.
#pragma once

#include <optional>
#include <string>

#include "src/base/result.h"
#include "src/install/environment.h"
#include "src/install/python_request.h"

namespace wv::install {

enum class EnvironmentMode { kKeep, kCreate, kRecreate };

struct EnvironmentPlan {
  std::string root;  ///< the venv's absolute path
  EnvironmentMode mode = EnvironmentMode::kKeep;
  /// The interpreter a new environment gets (kCreate, kRecreate): selection runs with it before
  /// anything is created.
  std::optional<InterpreterFacts> base;
  /// The existing environment's interpreter, when it answered.
  std::optional<InterpreterFacts> current;
  /// kRecreate: why (`replacing Python 3.10.0 (/usr/bin/python3.10): `--python 3.11` asks for
  /// Python 3.11`).
  std::string reason;
};

/// Decides what happens to `venv`. `python` is the interpreter that creates a new one;
/// `request` is `--python` when given: an existing environment that does not meet it is
/// recreated (a version request is met by its version, a path by that very interpreter).
/// Without a request an existing environment is used as it is. A folder that is not a venv
/// and holds anything is refused (kInvalidInput), never replaced.
Result<EnvironmentPlan> plan_environment(const std::string& venv, const std::string& python,
                                         const PythonRequest* request);

/// The environment folder from the sync lock to the commit.
class EnvironmentTransaction {
 public:
  /// Takes the sync lock of the environment (kUnavailable when another sync holds it, before
  /// anything changes); kCreate makes the folder, kRecreate swaps the old environment aside for
  /// an empty, locked folder. A kCreate whose folder became an environment meanwhile (another
  /// sync made it) continues as kKeep.
  static Result<EnvironmentTransaction> begin(const EnvironmentPlan& plan);

  EnvironmentTransaction() = default;
  EnvironmentTransaction(EnvironmentTransaction&& other) noexcept;
  EnvironmentTransaction& operator=(EnvironmentTransaction&& other) noexcept;
  ~EnvironmentTransaction();

  EnvironmentMode mode() const { return mode_; }
  /// The sync succeeded: a recreated environment's predecessor is removed.
  void commit();
  /// The sync failed: a created environment is removed, a recreated one's predecessor put
  /// back. Says what it did, for the error ("" when nothing was to undo).
  std::string abort();

 private:
  EnvironmentMode mode_ = EnvironmentMode::kKeep;
  std::string root_;
  std::string aside_;           ///< kRecreate: where the previous environment waits
  bool created_folder_ = false;  ///< kCreate: the folder did not exist
  bool done_ = true;
  std::optional<SyncLock> lock_;           ///< on the environment at `root_`
  std::optional<SyncLock> previous_lock_;  ///< kRecreate: on the previous one
};

}  // namespace wv::install
