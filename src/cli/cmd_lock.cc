// `wvlock lock`: resolve every declared target and write pylock.toml (DESIGN.md §1, §3).
#include <set>

#include "src/cli/commands.h"
#include "src/cli/index_overrides.h"
#include "src/cli/lock_project.h"
#include "src/cli/project.h"

namespace wv::cli {

int run_lock(const GlobalOptions& global, Arguments& arguments) {
  GlobalOptions options = global;
  if (auto indexes = extract_index_flags(arguments, options.index_overrides); !indexes) {
    print_error(indexes.error());
    return kExitUsage;
  }
  LockRequest request;
  request.check = arguments.extract_flag("--check");
  request.json = arguments.extract_flag("--json");
  request.upgrade = arguments.extract_flag("--upgrade") || arguments.extract_flag("-U");
  auto upgrade_names = extract_names(arguments, "--upgrade-package");
  if (!upgrade_names) {
    print_error(upgrade_names.error());
    return kExitUsage;
  }
  request.upgrade_packages =
      std::set<pkg::PackageName>(upgrade_names->begin(), upgrade_names->end());
  if (auto done = arguments.expect_done(); !done) {
    print_error(done.error());
    return kExitUsage;
  }
  RealFileSystem file_system;
  auto project = load_project(options, file_system);
  if (!project) {
    print_error(project.error());
    return exit_code_for(project.error());
  }
  return lock_project(options, *project, request, file_system);
}

}  // namespace wv::cli
