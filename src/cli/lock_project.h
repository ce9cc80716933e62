// Locking a loaded project and writing its lockfile: the body of `wvlock lock`, which sync and
// run also call when the lock is missing or stale.
#pragma once

#include <set>
#include <string>

#include "src/base/file_system.h"
#include "src/cli/options.h"
#include "src/cli/project.h"

namespace wv::cli {

struct LockRequest {
  bool check = false;  ///< `--check`: compare, never write
  bool json = false;   ///< the `--json` document on stdout
  bool upgrade = false;
  std::set<pkg::PackageName> upgrade_packages;
};

/// Resolves every target of `project` and writes (or checks) its lockfile, printing the
/// summary and the changes on stderr as `wvlock lock` does. Returns the exit code; every
/// failure has been printed.
int lock_project(const GlobalOptions& options, const LoadedProject& project,
                 const LockRequest& request, FileSystem& file_system);

}  // namespace wv::cli
