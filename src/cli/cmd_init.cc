// `wvlock init [DIR]`: a new project in DIR (made if needed): pyproject.toml with uv's
// `[project]` table, requires-python from the interpreter found (`--python`, else `python3`),
// `[tool.wvlock]` with a target for this machine and commented GPU examples; `.python-version`
// and a `main.py` (or with `--package`/`--lib` a src/NAME package) as uv writes them. An
// existing pyproject.toml is never replaced.
#include <cstdlib>

#include "src/base/file_system.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/init_template.h"
#include "src/install/python_request.h"
#include "src/pkg/name.h"
#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"

namespace wv::cli {
namespace {

int fail(const Error& error) {
  print_error(error);
  return exit_code_for(error);
}

struct InitFlags {
  std::optional<std::string> dir;
  std::optional<std::string> name;
  std::optional<std::string> python;
  bool bare = false;
  bool package = false;
  bool library = false;
};

Result<InitFlags> parse_init_arguments(Arguments& arguments) {
  InitFlags flags;
  WV_ASSIGN_OR_RETURN(flags.name, arguments.extract_value("--name"));
  WV_ASSIGN_OR_RETURN(flags.python, arguments.extract_value("--python"));
  flags.bare = arguments.extract_flag("--bare");
  flags.library = arguments.extract_flag("--lib");
  flags.package = arguments.extract_flag("--package") || flags.library;
  arguments.extract_flag("--app");  // the default, as in uv
  flags.dir = arguments.take_positional();
  WV_TRY(arguments.expect_done());
  return flags;
}

// The `M.m` of the interpreter `--python` names, else of `python3` on PATH.
Result<targets::MajorMinor> interpreter_version(const std::optional<std::string>& flag) {
  WV_ASSIGN_OR_RETURN(install::PythonRequest request,
                      install::parse_python_request(flag.value_or("python3")));
  install::PythonSearch search;
  if (const char* path = std::getenv("PATH")) search.path_variable = path;
  if (const char* home = std::getenv("HOME")) search.home = home;
  WV_ASSIGN_OR_RETURN(std::string executable, install::find_python(request, search));
  WV_ASSIGN_OR_RETURN(install::InterpreterFacts facts, install::read_interpreter(".", executable));
  return facts.version;
}

// The project's name: `--name`, else the folder's, normalised.
Result<std::string> project_name(const InitFlags& flags, FileSystem& file_system,
                                 const std::string& dir) {
  std::string written = flags.name.value_or("");
  if (written.empty()) {
    WV_ASSIGN_OR_RETURN(std::string real, file_system.real_path(dir));
    written = std::string(path_filename(real));
  }
  Result<pkg::PackageName> name = pkg::parse_package_name(written);
  if (!name) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(written),
                              " is not a valid project name (letters, digits, `-`, `_`, `.`)"))
        .with_note("hint: pass `--name NAME`");
  }
  return name->str();
}

// Writes `path` with `text` unless it exists.
Result<void> write_new_file(FileSystem& file_system, const std::string& path,
                            std::string_view text) {
  if (file_system.stat(path)) return {};
  return file_system.write_file_atomic(path, text);
}

// `main.py`, or the package's `src/NAME/__init__.py`, as uv writes them.
Result<void> write_sources(FileSystem& file_system, const std::string& dir,
                           const InitChoices& choices) {
  const std::string module = module_name(choices.name);
  if (!choices.package) {
    return write_new_file(file_system, path_join(dir, "main.py"),
                          str_cat("def main():\n    print(\"Hello from ", choices.name,
                                  "!\")\n\n\nif __name__ == \"__main__\":\n    main()\n"));
  }
  const std::string package_dir = path_join(path_join(dir, "src"), module);
  WV_TRY(file_system.create_directories(package_dir));
  if (choices.library) {
    WV_TRY(write_new_file(file_system, path_join(package_dir, "py.typed"), ""));
    return write_new_file(file_system, path_join(package_dir, "__init__.py"),
                          str_cat("def hello() -> str:\n    return \"Hello from ", choices.name,
                                  "!\"\n"));
  }
  return write_new_file(file_system, path_join(package_dir, "__init__.py"),
                        str_cat("def main() -> None:\n    print(\"Hello from ", choices.name,
                                "!\")\n"));
}

}  // namespace

int run_init(const GlobalOptions& options, Arguments& arguments) {
  auto flags = parse_init_arguments(arguments);
  if (!flags) return fail(flags.error());
  const std::string dir = flags->dir.value_or(options.project_dir);
  const std::string pyproject = path_join(dir, "pyproject.toml");
  RealFileSystem file_system;
  if (file_system.stat(pyproject)) {
    return fail(make_error(ErrorCode::kInvalidInput,
                           str_cat("Project is already initialized in ", in_backticks(dir),
                                   " (", in_backticks(pyproject), " exists)")));
  }
  if (auto made = file_system.create_directories(dir); !made) return fail(made.error());
  InitChoices choices;
  choices.bare = flags->bare;
  choices.package = flags->package;
  choices.library = flags->library;
  auto name = project_name(*flags, file_system, dir);
  if (!name) return fail(name.error());
  choices.name = *name;
  auto python = interpreter_version(flags->python);
  if (!python) {
    return fail(std::move(python).error().with_note(
        "hint: `--python` names the interpreter whose version `requires-python` starts at"));
  }
  choices.python = *python;
  if (!choices.bare) {
    detect::ProcessEnvironment environment;
    auto host = detect::detect_host(detect::options_from_environment(environment));
    if (!host) return fail(host.error());
    choices.host = std::move(*host);
  }
  if (auto written = file_system.write_file_atomic(pyproject, init_pyproject(choices)); !written) {
    return fail(written.error());
  }
  if (!choices.bare) {
    Result<void> extra = write_new_file(file_system, path_join(dir, ".python-version"),
                                        choices.python.to_string() + "\n");
    if (extra) extra = write_sources(file_system, dir, choices);
    if (!extra) return fail(extra.error());
  }
  log_info(str_cat("Initialized project `", choices.name, "` at ", in_backticks(dir)));
  return kExitOk;
}

}  // namespace wv::cli
