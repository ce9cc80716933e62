// `wvlock run [sync options] [--] CMD [ARGS...]`: lock if needed, sync, then replace this
// process with CMD in the environment (uv's `run`). stdout is CMD's: sync's plan goes to
// stderr. A `.py` file with PEP 723 metadata gets an environment of its own
// (cli/script_environment.h).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/environment_choice.h"
#include "src/cli/index_overrides.h"
#include "src/cli/script_environment.h"
#include "src/cli/sync_project.h"

namespace wv::cli {
namespace {

// The options of run (sync's and run's own) that take a value: main.cc needs them to find
// where CMD starts.
constexpr const char* kValueOptions[] = {"--target", "--extra",  "--group",     "--only-group",
                                         "--no-group", "--link-mode", "--wheelhouse", "--venv",
                                         "--python", "--lockfile", "--index", "--default-index",
                                         "--package"};

bool ends_with_py(const std::string& text) {
  return text.size() > 3 && text.compare(text.size() - 3, 3, ".py") == 0;
}

// Replaces this process with `command` in `venv`: its bin first on PATH, VIRTUAL_ENV set,
// PYTHONHOME unset (it would point the venv's Python at another prefix). Returns only on
// failure.
int exec_in_environment(const std::string& venv, std::vector<std::string> command,
                        bool script = false) {
  const std::string root = absolute_path(venv);
  const std::string bin = root + "/bin";
  // A script runs with the environment's Python, whatever its shebang says.
  if (script || ends_with_py(command.front())) command.insert(command.begin(), bin + "/python");
  const char* path = std::getenv("PATH");
  const std::string new_path = path && *path ? bin + ":" + path : bin;
  ::setenv("PATH", new_path.c_str(), 1);
  ::setenv("VIRTUAL_ENV", root.c_str(), 1);
  ::unsetenv("PYTHONHOME");
  std::vector<char*> argv;
  for (std::string& item : command) argv.push_back(item.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execvp(argv[0], argv.data());
  const int error = errno;
  Error failure = make_error(ErrorCode::kInvalidInput,
                             str_cat("failed to spawn ", in_backticks(command.front()), ": ",
                                     std::strerror(error)));
  if (error == ENOENT) {
    failure.notes.push_back(
        "hint: is it installed in the environment? `wvlock tree` lists what the lock installs");
  }
  print_error(failure);
  return kExitUsage;
}

int usage(const Error& error) {
  print_error(error);
  return kExitUsage;
}

}  // namespace

bool run_option_takes_value(std::string_view option) {
  for (const char* name : kValueOptions) {
    if (option == name) return true;
  }
  return false;
}

int run_run(const GlobalOptions& global, Arguments& arguments) {
  // main.cc put `--` before CMD: nothing after it is ours.
  std::vector<std::string> command = arguments.split_off_after("--");
  GlobalOptions options = global;
  if (auto indexes = extract_index_flags(arguments, options.index_overrides); !indexes) {
    return usage(indexes.error());
  }
  const bool no_sync = arguments.extract_flag("--no-sync");
  const bool script_flag = arguments.extract_flag("--script");
  if (command.empty()) {
    return usage(make_error(ErrorCode::kInvalidInput, "`wvlock run` needs a command to run")
                     .with_note("hint: `wvlock run python train.py`, `wvlock run script.py` or "
                                "`wvlock run -- CMD ARGS...`"));
  }
  if (script_flag || ends_with_py(command.front())) {
    auto script = read_script_metadata(command.front(), script_flag);
    if (!script) {
      print_error(script.error());
      return exit_code_for(script.error());
    }
    if (*script) {
      if (auto done = arguments.expect_done(); !done) {
        return usage(std::move(done).error().with_note(
            "note: a script with inline metadata gets its own environment; sync options do "
            "not apply to it"));
      }
      auto venv = script_environment(options, **script);
      if (!venv) {
        print_error(venv.error());
        return venv.error().code == ErrorCode::kUnavailable ? kExitFailure
                                                            : exit_code_for(venv.error());
      }
      return exec_in_environment(*venv, std::move(command), true);
    }
  }
  std::string venv;
  if (no_sync) {
    auto flags = extract_environment_flags(arguments);
    if (!flags) return usage(flags.error());
    if (auto done = arguments.expect_done(); !done) {
      return usage(std::move(done).error().with_note("note: `--no-sync` takes no sync options"));
    }
    venv = environment_path(options, *flags);
  } else {
    SyncCall call;
    call.plan_to_stderr = true;
    if (int code = sync_project(options, arguments, call); code != kExitOk) return code;
    venv = call.venv;
  }
  return exec_in_environment(venv, std::move(command));
}

}  // namespace wv::cli
