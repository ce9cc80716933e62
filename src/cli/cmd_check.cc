// `wvlock check`: the lockfile is fresh and every target's closure complete and installable.
#include <cstdio>

#include "base/str.h"
#include "cli/commands.h"
#include "cli/lock_view.h"
#include "pkg/wheel_filename.h"

namespace wv::cli {

int run_check(const GlobalOptions& options, Arguments& arguments) {
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  std::string expected = lock::input_hash(inputs->project.requirements, inputs->project.targets,
                                          inputs->project.inputs);
  if (lockfile.input_hash != expected) {
    return fail_reading_lock(make_error(ErrorCode::kInvalidLockfile,
                           str_cat(in_backticks(inputs->project.lockfile_path),
                                   " is stale: pyproject.toml changed since it was written; run "
                                   "`wvlock lock`")));
  }
  int problems = 0;
  for (const lock::TargetContext& context : inputs->project.targets) {
    if (!lockfile.find_target(context.name)) {
      std::fprintf(stderr, "error: target `%s` is not in the lockfile\n", context.name.c_str());
      ++problems;
      continue;
    }
    std::size_t count = 0;
    for (const lock::LockedPackage* package : lockfile.closure(context.name)) {
      ++count;
      const lock::TargetUse& use = package->targets.at(context.name);
      // A package the lock says to build is installable wherever its source is.
      bool installable = use.wheels.empty() && package->has_source();
      for (const std::string& wheel : use.wheels) {
        auto filename = pkg::parse_wheel_filename(wheel);
        if (filename && context.tags.is_compatible(filename->tags)) installable = true;
      }
      if (!installable) {
        std::fprintf(stderr, "error: target `%s`: %s %s keeps no wheel this target can install\n",
                     context.name.c_str(), package->name.c_str(), package->version.c_str());
        ++problems;
      }
    }
    std::printf("%s: %zu packages, every one hashed and installable\n", context.name.c_str(), count);
  }
  return problems == 0 ? kExitOk : kExitFailure;
}

}  // namespace wv::cli
