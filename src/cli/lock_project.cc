// Resolving a loaded project's targets and writing pylock.toml (DESIGN.md §1, §3).
#include <algorithm>
#include <chrono>
#include <set>

#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/lock_project.h"
#include "src/cli/lock_report.h"
#include "src/cli/project.h"
#include "lock/catalog.h"
#include "lock/lock_changes.h"
#include "lock/resolve.h"
#include "src/pkg/name.h"
#include "src/pkg/version.h"

namespace wv::cli {

int lock_project(const GlobalOptions& options, const LoadedProject& loaded,
                 const LockRequest& request, FileSystem& file_system) {
  WV_CHECK(loaded.use == ProjectUse::kLock, "a project loaded for checking cannot lock");
  const LoadedProject* project = &loaded;
  const bool check = request.check;
  const bool json = request.json;
  const bool upgrade = request.upgrade;
  const std::set<pkg::PackageName>& upgrade_packages = request.upgrade_packages;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
        .count();
  };
  note_default_targets(project->config);
  std::optional<lock::Lockfile> previous;
  std::string previous_text;
  auto existing = file_system.read_file(project->lockfile_path, Limit::kTomlBytes);
  if (!existing && existing.error().code != ErrorCode::kNotFound) {
    // A lockfile that cannot be read (a FIFO, a device, over the limit) is not replaced.
    print_error(existing.error());
    return exit_code_for(existing.error());
  }
  if (existing) {
    previous_text = *existing;
    auto parsed = lock::read_lockfile(previous_text, project->lockfile_path);
    if (parsed) {
      previous = std::move(*parsed);
    } else if (check) {
      print_error(parsed.error());
      return kExitFailure;
    } else {
      log_warning(str_cat("ignoring the existing lockfile: ", parsed.error().message));
    }
  } else if (check) {
    print_error(make_error(ErrorCode::kNotFound,
                           str_cat(in_backticks(project->lockfile_path),
                                   " does not exist: run `wvlock lock`")));
    return kExitFailure;
  }

  auto source = ProjectSource::open(options, *project, file_system);
  if (!source) {
    print_error(source.error());
    return exit_code_for(source.error());
  }
  if (previous) (*source)->keep_locked_commits(*previous, upgrade, upgrade_packages);
  std::unique_ptr<lock::Catalog> catalog_owner = (*source)->make_catalog();
  lock::Catalog& catalog = *catalog_owner;
  lock::ResolveOptions resolve_options;
  resolve_options.previous = previous ? &*previous : nullptr;
  resolve_options.upgrade_all = upgrade;
  resolve_options.upgrade_packages = upgrade_packages;
  resolve_options.extra_inputs = project->inputs;
  resolve_options.input_files = project->input_files;
  const ProjectSource& wired = **source;
  resolve_options.locate = [&wired](const pkg::Distribution& file) { return wired.locate(file); };
  resolve_options.describe_index = [&wired](const std::string& location) {
    return wired.describe_index(location);
  };
  auto outcome = lock::resolve_targets(project->requirements, project->targets, catalog,
                                       resolve_options);
  if (!outcome) {
    print_error(outcome.error());
    return exit_code_for(outcome.error());
  }
  warn_unknown_upgrades(upgrade_packages, previous ? &*previous : nullptr, catalog.listed_names());
  LockReport report;
  report.lockfile = project->lockfile_path;
  auto finish = [&](const char* status, int code) {
    report.status = status;
    report.elapsed_ms = elapsed_ms();
    if (json) {
      std::string document = lock_json(report);
      write_out(document);
    }
    return code;
  };
  if (!outcome->lockfile) {
    print_failures(outcome->failures);
    report.failures = outcome->failures;
    return finish("failed", kExitFailure);
  }
  std::string text = lock::write_lockfile(*outcome->lockfile);
  report.targets = summarize_targets(*outcome->lockfile, project->targets);
  report.changes = lock::compare_lockfiles(previous ? &*previous : nullptr, *outcome->lockfile);
  if (check) {
    if (text != previous_text) {
      bool inputs_changed = previous && previous->input_hash != outcome->lockfile->input_hash;
      print_error(make_error(
          ErrorCode::kInvalidLockfile,
          str_cat(in_backticks(project->lockfile_path), " is stale: ",
                  inputs_changed ? stale_reason(*project, *previous) + " since it was written"
                                 : std::string("a fresh lock would change it"),
                  "; run `wvlock lock`")));
      return finish("stale", kExitFailure);
    }
    log_info(str_cat(project->lockfile_path, " is up to date"));
    return finish("up-to-date", kExitOk);
  }
  if (text != previous_text) {
    if (auto written = file_system.write_file_atomic(project->lockfile_path, text); !written) {
      Error error = std::move(written).error().with_note(
          previous_text.empty()
              ? std::string("no lockfile was written")
              : str_cat("the previous ", in_backticks(project->lockfile_path), " is unchanged"));
      print_error(error);
      return exit_code_for(error);
    }
  }
  log_info(str_cat(text == previous_text ? "unchanged " : "wrote ", project->lockfile_path, ": ",
                   counted(outcome->lockfile->packages.size(), "package version",
                           "package versions"),
                   " for ", counted(outcome->lockfile->targets.size(), "target", "targets"),
                   " in ", std::to_string(int(elapsed_ms())), " ms"));
  print_summaries(report.targets);
  // A first lock adds everything: only a re-lock's changes are worth a line each.
  if (previous) print_changes(report.changes);
  return finish(text == previous_text ? "unchanged" : "written", kExitOk);
}

}  // namespace wv::cli
