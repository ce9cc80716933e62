// `wvlock sync` and `wvlock targets`: the live host picks a locked target and its wheels
// (DESIGN.md §1, target selection), then the environment is made to match (src/install).
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/log.h"
#include "base/str.h"
#include "cli/commands.h"
#include "cli/network.h"
#include "cli/project.h"
#include "install/environment.h"
#include "install/select.h"
#include "install/sync.h"
#include "install/wheel_store.h"
#include "net/caching_fetcher.h"
#include "pkg/name.h"
#include "targets/detect/detect.h"
#include "targets/detect/environment.h"
#include "targets/project_file.h"

namespace wv::cli {
namespace {

// The project file for credentials only (index names, keyring-provider), when the freshness
// check did not read it already: a sync with `--frozen` does not need it otherwise, so one that
// cannot be read means no named indexes.
std::optional<targets::ProjectConfig> credentials_config(
    std::optional<targets::ProjectConfig> read, const GlobalOptions& options,
    FileSystem& file_system) {
  if (read) return read;
  Result<targets::ProjectConfig> config =
      targets::read_project_file(file_system, path_join(options.project_dir, "pyproject.toml"));
  if (!config) return std::nullopt;
  return std::move(*config);
}

// Wheels with a remote url: downloaded through the cache, verified against the lock.
class NetworkWheelStore final : public install::WheelStore {
 public:
  NetworkWheelStore(const GlobalOptions& options, std::optional<targets::ProjectConfig> config,
                    FileSystem& file_system)
      : config_(credentials_config(std::move(config), options, file_system)),
        network_(options, config_ ? &*config_ : nullptr, file_system) {}
  Result<std::string> get(const lock::LockedFile& file) override {
    return network_.fetcher().fetch_verified(file.url, file.sha256, file.size);
  }
  std::vector<Result<std::string>> get_all(
      const std::vector<const lock::LockedFile*>& files) override {
    std::vector<net::VerifiedDownload> downloads;
    for (const lock::LockedFile* file : files) downloads.push_back({file->url, file->sha256, file->size});
    return network_.fetcher().fetch_verified_all(downloads);
  }

 private:
  std::optional<targets::ProjectConfig> config_;
  NetworkStack network_;
};

struct SelectionInputs {
  std::string lock_dir;
  lock::Lockfile lockfile;
  targets::HostProfile live;
  std::optional<targets::ProjectConfig> config;  ///< the project file, when it was read
};

// Reads the lockfile (checking it is fresh unless --frozen) and detects the live host.
Result<SelectionInputs> prepare(const GlobalOptions& options, FileSystem& file_system,
                                bool frozen) {
  SelectionInputs inputs;
  inputs.lock_dir = options.project_dir;
  std::string path = path_join(options.project_dir, "pylock.toml");
  auto text = file_system.read_file(path);
  if (!text) {
    if (text.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound,
                        str_cat(in_backticks(path), " does not exist: run `wvlock lock` first"));
    }
    return text.error();
  }
  WV_ASSIGN_OR_RETURN(inputs.lockfile, lock::read_lockfile(*text, path));
  if (!frozen) {
    auto project = load_project(options, file_system);
    if (!project) return project.error();
    std::string expected = lock::input_hash(project->requirements, project->targets,
                                            project->inputs);
    if (expected != inputs.lockfile.input_hash) {
      return make_error(ErrorCode::kInvalidLockfile,
                        str_cat(in_backticks(path),
                                " is stale: pyproject.toml changed since it was written; run "
                                "`wvlock lock`, or pass `--frozen` to install it as it is"));
    }
    inputs.config = std::move(project->config);
  }
  detect::ProcessEnvironment environment;
  WV_ASSIGN_OR_RETURN(inputs.live,
                      detect::detect_host(detect::options_from_environment(environment)));
  return inputs;
}

// The project's builder, wired on the first build.
class LazyBuilder final : public install::SourceBuilder {
 public:
  LazyBuilder(const GlobalOptions& options, FileSystem& file_system)
      : options_(options), file_system_(file_system) {}
  Result<std::string> build_wheel(const install::BuildRequest& request) override {
    if (!source_) {
      WV_ASSIGN_OR_RETURN(project_, load_project(options_, file_system_));
      WV_ASSIGN_OR_RETURN(source_, ProjectSource::open(options_, project_, file_system_));
    }
    return source_->builder().build_wheel(request);
  }

 private:
  const GlobalOptions& options_;
  FileSystem& file_system_;
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

Result<install::SelectOptions> select_options(Arguments& arguments) {
  install::SelectOptions select;
  WV_ASSIGN_OR_RETURN(auto forced, arguments.extract_value("--target"));
  if (forced) select.forced_target = *forced;
  select.verify = !arguments.extract_flag("--no-verify-target");
  while (true) {
    WV_ASSIGN_OR_RETURN(auto group, arguments.extract_value("--group"));
    if (!group) break;
    select.groups.push_back(pkg::normalize_name(*group));
  }
  while (true) {
    WV_ASSIGN_OR_RETURN(auto extra, arguments.extract_value("--extra"));
    if (!extra) break;
    select.extras.push_back(pkg::normalize_name(*extra));
  }
  return select;
}

}  // namespace

int run_targets(const GlobalOptions& options, Arguments& arguments) {
  auto select = select_options(arguments);
  if (!select) return fail(select.error());
  bool frozen = arguments.extract_flag("--frozen");
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  RealFileSystem file_system;
  auto inputs = prepare(options, file_system, frozen);
  if (!inputs) return fail(inputs.error());
  // The Python that would run the project: the environment's, when it exists.
  std::string venv = path_join(options.project_dir, ".venv");
  if (const char* active = std::getenv("VIRTUAL_ENV"); active && *active) venv = active;
  if (auto facts = install::read_interpreter(venv, "python3")) {
    inputs->live = install::with_interpreter(inputs->live, *facts);
  }
  auto verdicts = install::evaluate_targets(inputs->lockfile, inputs->live, *select);
  std::string table = install::render_targets_table(inputs->lockfile, verdicts, inputs->live);
  std::fwrite(table.data(), 1, table.size(), stdout);
  for (const install::TargetVerdict& verdict : verdicts) {
    if (verdict.status == install::TargetStatus::kSelected) return kExitOk;
  }
  return kExitFailure;
}

int run_sync(const GlobalOptions& options, Arguments& arguments) {
  auto select = select_options(arguments);
  if (!select) return fail(select.error());
  install::SyncOptions sync_options;
  sync_options.select = *select;
  sync_options.dry_run = arguments.extract_flag("--dry-run");
  sync_options.reinstall = arguments.extract_flag("--reinstall");
  bool frozen = arguments.extract_flag("--frozen");
  arguments.extract_flag("--locked");  // the default: a stale lock is an error
  sync_options.install_project = !arguments.extract_flag("--no-install-project");
  sync_options.editable = !arguments.extract_flag("--no-editable");
  sync_options.no_build = arguments.extract_flag("--no-build");
  auto venv = arguments.extract_value("--venv");
  auto python = arguments.extract_value("--python");
  if (!venv) return fail(venv.error());
  if (!python) return fail(python.error());
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  sync_options.venv = path_join(options.project_dir, ".venv");
  if (const char* active = std::getenv("VIRTUAL_ENV"); active && *active) sync_options.venv = active;
  if (*venv) sync_options.venv = **venv;
  if (*python) sync_options.python = **python;

  RealFileSystem file_system;
  auto inputs = prepare(options, file_system, frozen);
  if (!inputs) return fail(inputs.error());
  NetworkWheelStore network(options, std::move(inputs->config), file_system);
  install::LocalWheelStore store(inputs->lock_dir, &network);
  sync_options.lock_dir = inputs->lock_dir;
  // Packages built from source need the project's indexes (build requirements) and a builder,
  // opened only when a build happens: a re-sync that keeps every build costs nothing more.
  LazyBuilder builder(options, file_system);
  if (needs_builds(inputs->lockfile, sync_options)) sync_options.builder = &builder;
  auto report = install::sync(sync_options, inputs->lockfile, inputs->live, store);
  if (!report) {
    // A refused selection's notes give the host and one line per target.
    return fail(report.error());
  }
  for (const std::string& note : report->notes) log_info("note: " + note);
  std::string plan = install::render_plan(report->plan, report->dry_run, options.verbosity >= 2);
  std::fwrite(plan.data(), 1, plan.size(), stdout);
  return kExitOk;
}

}  // namespace wv::cli
