// `wvlock sync` and `wvlock targets`: the live host picks a locked target and its wheels
// (DESIGN.md §1, target selection), then the environment is made to match (src/install).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <filesystem>

#include "src/base/hash.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/platform.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/environment_choice.h"
#include "src/cli/index_overrides.h"
#include "src/cli/lock_input.h"
#include "src/cli/lock_mode.h"
#include "src/cli/network.h"
#include "src/cli/project.h"
#include "src/cli/python_default.h"
#include "src/cli/sync_project.h"
#include "src/cli/workspace.h"
#include "lock/workspace_selection.h"
#include "src/install/environment.h"
#include "src/install/new_environment.h"
#include "src/install/python_request.h"
#include "src/install/select.h"
#include "src/install/standard_select.h"
#include "src/install/sync.h"
#include "src/install/sync_state.h"
#include "src/install/wheel_store.h"
#include "src/install/wheelhouse.h"
#include "src/net/caching_fetcher.h"
#include "src/pkg/source_tree.h"
#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"
#include "targets/project_file.h"

extern char** environ;

namespace wv::cli {
namespace {

// The project file for credentials (index names, keyring-provider), when the freshness
// check did not load the project already: a sync with `--frozen` does not need it otherwise, so
// one that cannot be read means no named indexes.
std::optional<targets::ProjectConfig> credentials_config(
    const std::optional<LoadedProject>& loaded, const GlobalOptions& options,
    FileSystem& file_system) {
  if (loaded) return loaded->config;
  Result<targets::ProjectConfig> config =
      targets::read_project_file(file_system, path_join(options.project_dir, "pyproject.toml"),
                                 project_default_pythons(file_system));
  if (!config) return std::nullopt;
  // The indexes as load_project() gives them: the stack made from this config serves builds too.
  auto environment = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  targets::ProjectConfig overridden = *config;
  if (!apply_index_overrides(overridden, options.index_overrides, environment)) {
    return std::move(*config);
  }
  return overridden;
}

// `cpu-fallback = true` of [tool.wvlock], from the loaded project, else from the file.
bool project_allows_cpu_fallback(const std::optional<LoadedProject>& loaded,
                                 const GlobalOptions& options, FileSystem& file_system) {
  if (loaded) return loaded->config.cpu_fallback;
  std::optional<targets::ProjectConfig> config =
      credentials_config(std::nullopt, options, file_system);
  return config && config->cpu_fallback;
}

struct SelectionInputs {
  std::string lock_dir;
  lock::Lockfile lockfile;
  targets::HostProfile live;
  std::optional<LoadedProject> project;  ///< the project, when the freshness check loaded it
};

// The lockfile and the live host. A lock `--lockfile` names, or one without targets (another
// tool's, or an export), is installed as it is (cli/lock_input.h); the project's own lock is
// read as `mode` wants it (cli/lock_mode.h): re-locked when stale, refused, or as it is.
Result<SelectionInputs> prepare(const GlobalOptions& options, FileSystem& file_system,
                                LockMode mode, const LockInput& lock) {
  SelectionInputs inputs;
  inputs.lock_dir = lock.dir;
  std::optional<lock::Lockfile> as_it_is;
  std::optional<lock::Lockfile> to_check;  // read once: the freshness check takes it as it is
  auto text = file_system.read_file(lock.path);
  if (!text && (lock.named || text.error().code != ErrorCode::kNotFound)) {
    if (text.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound, str_cat(in_backticks(lock.path), " does not exist"));
    }
    return text.error();
  }
  if (text) {
    auto parsed = lock::read_lockfile(*text, lock.path);
    if (!parsed && lock.named) return parsed.error();
    if (parsed && !checks_freshness(lock, *parsed)) as_it_is = std::move(*parsed);
    else if (parsed) to_check = std::move(*parsed);
  }
  if (as_it_is) {
    inputs.lockfile = std::move(*as_it_is);
  } else {
    WV_ASSIGN_OR_RETURN(CurrentLock current,
                        current_lockfile(options, file_system, mode, std::move(to_check)));
    inputs.lockfile = std::move(current.lockfile);
    inputs.project = std::move(current.project);
  }
  detect::ProcessEnvironment environment;
  WV_ASSIGN_OR_RETURN(inputs.live,
                      detect::detect_host(detect::options_from_environment(environment)));
  return inputs;
}

// The project's builder, wired on the first build: over the project sync loaded (else loaded
// now) and the network stack the wheel store uses, so a sync that builds has one of each.
class LazyBuilder final : public install::SourceBuilder {
 public:
  LazyBuilder(const GlobalOptions& options, FileSystem& file_system, NetworkStack& network,
              const std::optional<LoadedProject>& loaded)
      : options_(options), file_system_(file_system), network_(network), loaded_(loaded) {}
  /// A lock without targets builds over the indexes its packages name, not the project's.
  void use_lock_indexes(const lock::Lockfile& lockfile, std::string lock_dir) {
    standard_ = &lockfile;
    lock_dir_ = std::move(lock_dir);
  }
  Result<std::string> build_wheel(const install::BuildRequest& request) override {
    if (!source_ && standard_ != nullptr) {
      WV_ASSIGN_OR_RETURN(source_, lock_build_source(options_, *standard_, lock_dir_, file_system_));
    } else if (!source_) {
      if (!loaded_) {
        WV_ASSIGN_OR_RETURN(project_, load_project(options_, file_system_, ProjectUse::kCheck));
      }
      const LoadedProject& project = loaded_ ? *loaded_ : project_;
      WV_ASSIGN_OR_RETURN(source_, ProjectSource::open(options_, project, file_system_, &network_));
    }
    return source_->builder().build_wheel(request);
  }

 private:
  const GlobalOptions& options_;
  FileSystem& file_system_;
  NetworkStack& network_;
  const std::optional<LoadedProject>& loaded_;
  const lock::Lockfile* standard_ = nullptr;
  std::string lock_dir_;
  LoadedProject project_;
  std::unique_ptr<ProjectSource> source_;
};

// Whether the lock holds anything sync may have to build here.
bool needs_builds(const lock::Lockfile& lockfile, const install::SyncOptions& options) {
  for (const lock::LockedPackage& package : lockfile.packages) {
    if (package.is_project && !options.install_project) continue;
    if (package.has_source()) return true;
  }
  return false;
}

int fail(const Error& error) {
  print_error(error);
  if (error.code == ErrorCode::kInvalidLockfile || error.code == ErrorCode::kUnavailable) {
    return kExitFailure;
  }
  return exit_code_for(error);
}

// What selection is asked for: `--target`, `--no-verify-target` and uv's extras and groups
// flags, applied against the lock once it is read.
struct SelectionFlags {
  install::SelectOptions select;
  install::InstallRequest request;
  std::optional<std::string> lockfile;  ///< `--lockfile PATH`
  lock::MemberSelection members;        ///< `--package`, `--all-packages`
};

// An environment variable that is set to 1 or true.
bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && (std::string_view(value) == "1" || iequals(value, "true"));
}

Result<SelectionFlags> selection_flags(Arguments& arguments) {
  SelectionFlags flags;
  WV_ASSIGN_OR_RETURN(auto forced, arguments.extract_value("--target"));
  if (forced) flags.select.forced_target = *forced;
  flags.select.verify = !arguments.extract_flag("--no-verify-target");
  WV_ASSIGN_OR_RETURN(flags.lockfile, arguments.extract_value("--lockfile"));
  // The flag, else the environment; `cpu-fallback` of [tool.wvlock] is read with the project.
  flags.select.allow_cpu_fallback =
      arguments.extract_flag("--allow-cpu-fallback") || env_flag("WVLOCK_ALLOW_CPU_FALLBACK");
  install::InstallRequest& request = flags.request;
  WV_ASSIGN_OR_RETURN(request.extras, extract_extra_names(arguments, "--extra"));
  WV_ASSIGN_OR_RETURN(request.groups, extract_extra_names(arguments, "--group"));
  WV_ASSIGN_OR_RETURN(request.only_groups, extract_extra_names(arguments, "--only-group"));
  WV_ASSIGN_OR_RETURN(request.no_groups, extract_extra_names(arguments, "--no-group"));
  request.all_extras = arguments.extract_flag("--all-extras");
  request.all_groups = arguments.extract_flag("--all-groups");
  request.no_default_groups = arguments.extract_flag("--no-default-groups");
  request.no_dev = arguments.extract_flag("--no-dev");
  WV_ASSIGN_OR_RETURN(flags.members.packages, extract_names(arguments, "--package"));
  flags.members.all = arguments.extract_flag("--all-packages");
  return flags;
}

// The workspace packages sync works on: `--package`, `--all-packages`, else the member whose
// folder the command started in (uv's "current package"), else the root. With members named,
// `--extra` and `--all-extras` apply to them (uv's rule), not to the root.
Result<void> select_workspace_packages(const GlobalOptions& options, SelectionFlags& flags,
                                       lock::Lockfile& lockfile) {
  lock::MemberSelection& members = flags.members;
  if (members.packages.empty() && !members.all && !options.workspace_member_dir.empty()) {
    RealFileSystem file_system;
    WV_ASSIGN_OR_RETURN(pkg::PackageName name, member_name_at(file_system, options.workspace_member_dir));
    members.packages.push_back(std::move(name));
  }
  if (members.packages.empty() && !members.all) return {};
  const lock::LockedPackage* root = lockfile.project();
  const bool root_named = root && std::find(members.packages.begin(), members.packages.end(),
                                            root->name) != members.packages.end();
  if (!members.all && !root_named) {
    members.extras = std::exchange(flags.request.extras, {});
    flags.request.all_extras = false;  // a member's locked extras are always installed
  }
  return lock::select_members(lockfile, members);
}

// `--python`: the request and the interpreter that meets it.
struct PythonChoice {
  std::string executable = "python3";
  std::optional<install::PythonRequest> request;
};

// `--python`, else the project's `.python-version` (its first version), as uv does; not for an
// activated environment (`--active`), which is used as it is.
Result<std::optional<std::string>> python_text(const GlobalOptions& options,
                                               std::optional<std::string> flag, bool active) {
  if (flag || active) return flag;
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(auto versions, read_python_version_file(file_system, options.project_dir));
  if (!versions) return std::optional<std::string>();
  return std::optional<std::string>(versions->front().to_string());
}

Result<PythonChoice> python_choice(const GlobalOptions& options,
                                   const std::optional<std::string>& flag, bool active) {
  PythonChoice choice;
  WV_ASSIGN_OR_RETURN(std::optional<std::string> text, python_text(options, flag, active));
  if (!text) return choice;
  WV_ASSIGN_OR_RETURN(install::PythonRequest request, install::parse_python_request(*text));
  install::PythonSearch search;
  if (const char* path = std::getenv("PATH")) search.path_variable = path;
  if (const char* home = std::getenv("HOME")) search.home = home;
  WV_ASSIGN_OR_RETURN(choice.executable, install::find_python(request, search));
  choice.request = std::move(request);
  return choice;
}

}  // namespace

int run_targets(const GlobalOptions& options, Arguments& arguments) {
  auto flags = selection_flags(arguments);
  if (!flags) return fail(flags.error());
  // `targets` never writes the lock: a stale one is an error unless `--frozen`.
  bool frozen = arguments.extract_flag("--frozen");
  bool json = arguments.extract_flag("--json");
  // The environment sync changes and targets judges (cli/environment_choice.h).
  auto venv = extract_environment_flags(arguments);
  if (!venv) return fail(venv.error());
  auto python_text = arguments.extract_value("--python");
  if (!python_text) return fail(python_text.error());
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  auto python = python_choice(options, *python_text, uses_active_environment(*venv));
  if (!python) return fail(python.error());
  RealFileSystem file_system;
  auto lock = lock_input(options, flags->lockfile);
  if (!lock) return fail(lock.error());
  auto inputs = prepare(options, file_system, frozen ? LockMode::kFrozen : LockMode::kLocked, *lock);
  if (!inputs) return fail(inputs.error());
  if (auto applied = install::apply_install_request(inputs->lockfile, flags->request, flags->select);
      !applied) {
    return fail(applied.error());
  }
  // The Python sync would run the project with: the environment's, unless `--python` replaces
  // it, else the one a new environment would get.
  auto environment = install::plan_environment(environment_path(options, *venv), python->executable,
                                               python->request ? &*python->request : nullptr);
  if (!environment) return fail(environment.error());
  const install::InterpreterFacts& facts = environment->mode == install::EnvironmentMode::kKeep
                                               ? *environment->current
                                               : *environment->base;
  inputs->live = install::with_interpreter(inputs->live, facts);
  if (install::is_standard_lock(inputs->lockfile)) {
    auto selection = install::select_standard(inputs->lockfile, inputs->live, flags->select);
    if (!selection) return fail(selection.error());
    write_out(install::render_standard_selection(*selection, json));
    return kExitOk;
  }
  std::optional<install::CpuFallback> fallback;
  auto verdicts =
      install::evaluate_targets(inputs->lockfile, inputs->live, flags->select, &fallback);
  // The project's `cpu-fallback` matters only when the evaluation found a fallback: the project
  // file is read then, not on every run (evaluate_targets() is a function of its inputs).
  if (fallback && !flags->select.allow_cpu_fallback &&
      project_allows_cpu_fallback(inputs->project, options, file_system)) {
    flags->select.allow_cpu_fallback = true;
    verdicts = install::evaluate_targets(inputs->lockfile, inputs->live, flags->select, &fallback);
  }
  std::string out = json ? install::render_targets_json(inputs->lockfile, verdicts, inputs->live, fallback)
                         : install::render_targets_table(inputs->lockfile, verdicts, inputs->live);
  write_out(out);
  // A GPU host is never shown a CPU target as its choice without a word (docs/targets.md §6).
  if (fallback && !flags->select.allow_cpu_fallback) {
    print_error(install::cpu_fallback_error(*fallback, inputs->live));
    return kExitFailure;
  }
  if (fallback) log_warning(install::cpu_fallback_warning(*fallback));
  for (const install::TargetVerdict& verdict : verdicts) {
    if (verdict.status == install::TargetStatus::kSelected) return kExitOk;
  }
  return kExitFailure;
}

namespace {

// `--link-mode`, else WVLOCK_LINK_MODE, else kAuto (uv's names).
Result<LinkMode> sync_link_mode(Arguments& arguments) {
  WV_ASSIGN_OR_RETURN(auto flag, arguments.extract_value("--link-mode"));
  std::string text = flag ? *flag : std::string();
  std::string_view source = "--link-mode";
  if (!flag) {
    const char* value = std::getenv("WVLOCK_LINK_MODE");
    if (value == nullptr || *value == '\0') return LinkMode::kAuto;
    text = value;
    source = "WVLOCK_LINK_MODE";
  }
  for (LinkMode mode : {LinkMode::kClone, LinkMode::kHardlink, LinkMode::kCopy}) {
    if (text == to_string(mode)) return mode;
  }
  return make_error(ErrorCode::kInvalidInput,
                    str_cat(in_backticks(str_cat(source, " ", text)),
                            ": expected clone, hardlink or copy"));
}

// ---- the no-op fast path (install/sync_state.h) ----

// Variables a shell changes between two identical commands without changing what sync does.
bool volatile_variable(std::string_view name) {
  return name == "PWD" || name == "OLDPWD" || name == "SHLVL" || name == "_" ||
         name == "COLUMNS" || name == "LINES";
}

// What this command's outcome depends on besides the files the record watches: the program,
// its command line, working folder and project, every environment variable (detection
// overrides, VIRTUAL_ENV, PATH, ...), whether output goes to a terminal, the machine's
// hardware epoch (detection's answer lasts as long as it) and the lockfile's bytes. "" when
// it cannot be taken.
std::string state_fingerprint(const GlobalOptions& options, const std::string& lock_path) {
  const std::string program = platform::executable_path();
  struct ::stat info {};
  if (program.empty() || ::stat(program.c_str(), &info) != 0) return "";
  Fingerprint print;
  print.add("sync 1").add(program).add(str_cat(info.st_ino, ":", info.st_size, ":",
                                              platform::modified_ns(info)));
  for (const std::string& argument : platform::command_line()) print.add(argument);
  std::error_code error;
  print.add(std::filesystem::current_path(error).string());
  print.add(options.project_dir).add(options.workspace_member_dir);
  std::vector<std::string_view> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view variable(*entry);
    if (!volatile_variable(variable.substr(0, variable.find('=')))) variables.push_back(variable);
  }
  std::sort(variables.begin(), variables.end());
  for (std::string_view variable : variables) print.add(variable);
  print.add(::isatty(1) ? "tty" : "-").add(::isatty(2) ? "tty" : "-");
  print.add(platform::hardware_epoch());
  RealFileSystem file_system;
  Result<std::string> lock = file_system.read_file(lock_path);
  print.add(lock ? "lock" : "no lock").add(lock ? *lock : "");
  return print.finish().to_hex();
}

// The files besides the environment a sync's outcome was read from: the project's
// pyproject.toml (freshness, `cpu-fallback`) and `.python-version`, a path source's metadata
// files (freshness, an editable's identity), and an interpreter `--python` names by path.
std::vector<std::string> watched_files(const GlobalOptions& options, const std::string& lock_dir,
                                       const lock::Lockfile& lockfile,
                                       const std::optional<std::string>& python_flag) {
  std::vector<std::string> files;
  for (const char* name : {"pyproject.toml", ".python-version", ".python-versions"}) {
    files.push_back(path_join(options.project_dir, name));
  }
  for (const auto& [path, digest] : lockfile.input_files) {
    files.push_back(path_join(options.project_dir, path));
  }
  for (const lock::LockedPackage& package : lockfile.packages) {
    if (!package.directory) continue;
    const std::string tree = path_join(path_join(lock_dir, package.directory->path),
                                       package.directory->subdirectory);
    for (std::string_view leaf : pkg::kMetadataFiles) files.push_back(path_join(tree, leaf));
  }
  if (python_flag && python_flag->find('/') != std::string::npos) files.push_back(*python_flag);
  return files;
}

// Whether a record may describe this sync: it changed nothing, said nothing besides its
// output, and is no workspace's (a member glob's new folder is no file a record could watch).
bool may_record(const install::SyncReport& report, const lock::Lockfile& lockfile) {
  if (!report.changed_nothing() || !report.notes.empty() || report.selection.fallback ||
      !report.scheme) {
    return false;
  }
  return std::none_of(lockfile.packages.begin(), lockfile.packages.end(),
                      [](const lock::LockedPackage& package) { return package.workspace_member; });
}

}  // namespace

int run_sync(const GlobalOptions& options, Arguments& arguments) {
  SyncCall call;
  return sync_project(options, arguments, call);
}

namespace {

// What `sync` (and `run`, through SyncCall) read from the command line.
struct SyncCommand {
  GlobalOptions options;
  SelectionFlags flags;
  install::SyncOptions sync;
  LockMode lock_mode{};
  bool json = false;
  std::optional<std::string> wheelhouse;
  EnvironmentFlags venv;
  std::optional<std::string> python_text;
};

Result<SyncCommand> read_sync_command(const GlobalOptions& global, Arguments& arguments) {
  SyncCommand command;
  command.options = global;
  WV_TRY(extract_index_flags(arguments, command.options.index_overrides));
  WV_ASSIGN_OR_RETURN(command.flags, selection_flags(arguments));
  install::SyncOptions& sync_options = command.sync;
  sync_options.select = command.flags.select;
  sync_options.dry_run = arguments.extract_flag("--dry-run");
  sync_options.reinstall = arguments.extract_flag("--reinstall");
  sync_options.inexact = arguments.extract_flag("--inexact");
  WV_ASSIGN_OR_RETURN(command.lock_mode, extract_lock_mode(arguments));
  command.json = arguments.extract_flag("--json");
  // `--only-group` installs the groups alone: not the project's dependencies, not the project.
  sync_options.install_project =
      !arguments.extract_flag("--no-install-project") && !command.flags.request.only();
  sync_options.editable = !arguments.extract_flag("--no-editable");
  sync_options.no_build = arguments.extract_flag("--no-build");
  WV_ASSIGN_OR_RETURN(sync_options.link_mode, sync_link_mode(arguments));
  sync_options.compile_bytecode = arguments.extract_flag("--compile-bytecode") ||
                                  env_flag("WVLOCK_COMPILE_BYTECODE");
  sync_options.cache_dir = cache_directory(command.options);
  WV_ASSIGN_OR_RETURN(std::optional<std::string> wheelhouse_flag,
                      arguments.extract_value("--wheelhouse"));
  WV_ASSIGN_OR_RETURN(command.wheelhouse, wheelhouse_folder(std::move(wheelhouse_flag)));
  auto venv = extract_environment_flags(arguments);
  auto python_text = arguments.extract_value("--python");
  if (!venv) return std::move(venv).error();
  if (!python_text) return std::move(python_text).error();
  command.venv = std::move(*venv);
  command.python_text = std::move(*python_text);
  WV_TRY(arguments.expect_done());
  sync_options.venv = environment_path(command.options, command.venv);
  return command;
}

// The output of an identical earlier sync the environment's state record answers with, when
// nothing it was computed from changed; `fingerprint` is set for the record this sync may write.
std::optional<std::string> recorded_answer(const SyncCommand& command, const SyncCall& call,
                                           std::string& fingerprint) {
  const GlobalOptions& options = command.options;
  if (command.sync.dry_run || call.plan_to_stderr || !options.workspace_member_dir.empty()) {
    return std::nullopt;
  }
  if (auto lock = lock_input(options, command.flags.lockfile)) {
    fingerprint = state_fingerprint(options, lock->path);
  }
  if (fingerprint.empty()) return std::nullopt;
  return install::matching_state(command.sync.venv, fingerprint);
}

// The CPU-fallback warning of a sync that went ahead on one, and the sync's notes.
void log_sync_notes(const install::SyncReport& report, bool synced) {
  if (synced && report.selection.fallback) {
    log_warning(install::cpu_fallback_warning(*report.selection.fallback));
    for (const std::string& reason : report.selection.fallback->reasons) log_info("note: " + reason);
  }
  for (const std::string& note : report.notes) log_info("note: " + note);
}

}  // namespace

int sync_project(const GlobalOptions& global, Arguments& arguments, SyncCall& call) {
  auto command = read_sync_command(global, arguments);
  if (!command) return fail(command.error());
  const GlobalOptions& options = command->options;
  install::SyncOptions& sync_options = command->sync;
  call.venv = sync_options.venv;
  // A sync the environment's state record answers: nothing it was computed from changed.
  const std::int64_t since = install::wall_clock_ns();
  std::string fingerprint;
  if (std::optional<std::string> output = recorded_answer(*command, call, fingerprint)) {
    if (!output->empty()) write_out(*output);
    return kExitOk;
  }
  auto python = python_choice(options, command->python_text, uses_active_environment(command->venv));
  if (!python) return fail(python.error());
  sync_options.python = python->executable;
  sync_options.python_request = python->request;

  RealFileSystem file_system;
  auto lock = lock_input(options, command->flags.lockfile);
  if (!lock) return fail(lock.error());
  auto inputs = prepare(options, file_system, command->lock_mode, *lock);
  if (!inputs) return fail(inputs.error());
  if (auto selected = select_workspace_packages(options, command->flags, inputs->lockfile); !selected) {
    return fail(selected.error());
  }
  if (auto applied = install::apply_install_request(inputs->lockfile, command->flags.request,
                                                    sync_options.select);
      !applied) {
    return fail(applied.error());
  }
  std::optional<targets::ProjectConfig> config =
      credentials_config(inputs->project, options, file_system);
  if (config && config->cpu_fallback) sync_options.select.allow_cpu_fallback = true;
  NetworkWheelStore network(options, std::move(config), file_system);
  // Files the lock names by url: the wheelhouse first, then the cache and the network.
  std::optional<install::WheelhouseStore> house;
  if (command->wheelhouse) house.emplace(*command->wheelhouse, &network);
  install::LocalWheelStore store(inputs->lock_dir,
                                 house ? static_cast<install::WheelStore*>(&*house) : &network);
  sync_options.lock_dir = inputs->lock_dir;
  // Packages built from source need the project's indexes (build requirements) and a builder,
  // opened only when a build happens: a re-sync that keeps every build costs nothing more.
  LazyBuilder builder(options, file_system, network.network(), inputs->project);
  if (install::is_standard_lock(inputs->lockfile)) {
    builder.use_lock_indexes(inputs->lockfile, inputs->lock_dir);
  }
  if (needs_builds(inputs->lockfile, sync_options)) sync_options.builder = &builder;
  install::SyncReport report;
  Result<void> synced = install::sync_into(report, sync_options, inputs->lockfile, inputs->live, store);
  log_sync_notes(report, synced.has_value());
  std::string printed;  // what a state record replays
  if (command->json) {
    printed = install::render_sync_json(report, inputs->lockfile, synced ? "" : synced.error().message);
    write_out(printed);
  }
  // A refused selection's error carries the target table: the host facts it used and one
  // line per target.
  if (!synced) return fail(synced.error());
  // `-q` means quiet, as uv's: the plan is not data, only `--json` is.
  if (!command->json && options.verbosity > 0) {
    std::string plan = install::render_plan(report.plan, report.dry_run, options.verbosity >= 2);
    // For run the plan is a diagnostic, which `-q` silences.
    if (!call.plan_to_stderr) write_out(printed = plan);
    else if (options.verbosity >= 1) write_err(plan);
  }
  // A re-lock during this sync changed the lock's bytes: the next sync records.
  if (!fingerprint.empty() && may_record(report, inputs->lockfile) &&
      state_fingerprint(options, lock->path) == fingerprint) {
    install::record_state(*report.scheme,
                          {fingerprint, watched_files(options, inputs->lock_dir, inputs->lockfile,
                                                      command->python_text),
                           printed},
                          since);
  }
  return kExitOk;
}

}  // namespace wv::cli
