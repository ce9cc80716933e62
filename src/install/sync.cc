// The sync's orchestration: the environment's fate, the selection and the plan, then the
// steps that change it (prepare.h, stage.h, commit.h), each failing with nothing changed until
// the journaled commit.
#include "src/install/sync.h"

#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/install/built_sources.h"
#include "src/install/commit.h"
#include "src/install/journal.h"
#include "src/install/prepare.h"
#include "src/install/selection_check.h"
#include "src/install/stage.h"
#include "src/install/standard_select.h"
#include "src/install/sync_state.h"

namespace wv::install {
namespace {

// Selects with `facts`' Python and records it in the report: the host facts and every
// target's verdict, also when no target fits.
Result<void> select_into(SyncReport& report, const lock::Lockfile& lockfile,
                         const targets::HostProfile& live, const InterpreterFacts& facts,
                         const SelectOptions& select) {
  targets::HostProfile host = with_interpreter(live, facts);
  report.plan.python_version = facts.full_version;
  report.plan.python_executable = facts.base_executable;
  const bool standard = is_standard_lock(lockfile);
  Result<TargetChoice> selection = standard ? select_standard(lockfile, host, select)
                                         : select_target(lockfile, host, select);
  report.host = host;
  report.refused = false;
  report.verdicts.clear();
  if (!selection && standard) return std::move(selection).error();
  if (!selection) {
    Error error = std::move(selection).error();
    if (error.code == ErrorCode::kUnavailable) {
      // The verdicts as the `wvlock targets` table, in place of one note per target.
      report.refused = true;
      std::optional<CpuFallback> fallback;
      report.verdicts = evaluate_targets(lockfile, host, select, &fallback);
      std::string table = render_targets_table(lockfile, report.verdicts, host);
      if (!table.empty() && table.back() == '\n') table.pop_back();
      error.notes = {std::move(table)};
      // A refused CPU fallback also says how to fix it (a target to paste, the flag).
      if (fallback) error.notes.insert(error.notes.end(), fallback->fixes.begin(), fallback->fixes.end());
      report.selection.fallback = std::move(fallback);
    }
    return error;
  }
  WV_TRY(check_selection(lockfile, *selection));
  report.verdicts = selection->verdicts;
  report.selection = std::move(*selection);
  return {};
}

// The environment made (unless a dry run) and its interpreter's facts; a dry run on an
// environment to be made reads those the new one would have.
Result<InterpreterFacts> environment_facts(SyncReport& report, const SyncOptions& options,
                                           const EnvironmentPlan& environment,
                                           EnvironmentMode mode) {
  if (mode == EnvironmentMode::kKeep && environment.current) return *environment.current;
  if (options.dry_run) return *environment.base;
  if (mode != EnvironmentMode::kKeep) {
    WV_ASSIGN_OR_RETURN(report.created_environment, ensure_venv(environment.root, options.python));
    report.recreated_environment = mode == EnvironmentMode::kRecreate;
  }
  return read_interpreter(environment.root);
}

// The plan into the report: what the selection installs against what is there, and what
// happens to the environment itself.
void plan_into(SyncReport& report, const SyncOptions& options, const EnvironmentPlan& environment,
               EnvironmentMode mode, const InterpreterFacts& facts,
               const std::vector<InstalledDistribution>& installed,
               const SourceIdentities& identities, bool standard) {
  report.plan = make_plan(report.selection, installed,
                          PlanOptions{options.reinstall, options.inexact}, identities);
  // Another tool's lock may name any file of this machine: the plan says where (PEP 751 allows
  // absolute paths). Our own locks write absolute paths only for what the project named so.
  if (standard) name_outside_paths(report.plan, options.lock_dir);
  report.plan.environment = environment.root;
  report.plan.python_version = facts.full_version;
  report.plan.python_executable = facts.base_executable;
  if (environment.mode == EnvironmentMode::kCreate && mode != EnvironmentMode::kKeep) {
    report.plan.environment_change = "created";
  } else if (environment.mode == EnvironmentMode::kRecreate) {
    report.plan.environment_change = "recreated";
    report.plan.environment_reason = environment.reason;
  }
}

// A note for each distribution the plan keeps that another installer put there.
void note_other_installers(SyncReport& report,
                           const std::vector<InstalledDistribution>& installed) {
  for (const InstalledDistribution& distribution : installed) {
    if (distribution.installer.empty() || distribution.installer == "wvlock" ||
        !distribution.wheel.empty()) {
      continue;
    }
    for (const PlanItem& item : report.plan.items) {
      if (distribution.name && item.name == *distribution.name && item.action == PlanAction::kKeep && !item.unlisted) {
        report.notes.push_back(str_cat(*distribution.name, " ", distribution.version,
                                       " was installed by ", distribution.installer,
                                       "; kept as is (its build is not recorded)"));
      }
    }
  }
}

// A link mode asked for by name that could not be used is worth saying (uv warns the same):
// copies cost the time and space the mode was chosen to save.
void note_link_fallback(SyncReport& report, const SyncOptions& options) {
  const LinkCounts& links = report.links;
  const bool asked = options.link_mode == LinkMode::kClone || options.link_mode == LinkMode::kHardlink;
  if (!asked || links.copied == 0) return;
  report.notes.push_back(str_cat(
      "`--link-mode ", to_string(options.link_mode), "` was not possible for ",
      counted(links.copied, "file", "files"), " (another file system than the cache's, or one "
      "without ", options.link_mode == LinkMode::kClone ? "reflinks" : "hard links",
      "); they were copied. `--link-mode copy` says so up front"));
}

// The steps that change the environment: every wheel prepared, staged, then committed.
Result<void> change_environment(SyncReport& report, const SyncOptions& options,
                                const lock::Lockfile& lockfile, WheelStore& store,
                                FileSystem& file_system, const InterpreterFacts& facts,
                                const std::vector<InstalledDistribution>& installed,
                                const SourceIdentities& identities) {
  const std::string& root = report.plan.environment;
  WV_ASSIGN_OR_RETURN(PreparedWheels prepared,
                      prepare(report.plan, options, store, root, file_system));
  report.cache_hits = prepared.cache_hits;
  report.extracted = prepared.extracted;
  if (prepared.wheels.empty() && report.plan.count(PlanAction::kRemove) == 0) return {};
  StagingFolder staging(file_system, root);
  WV_TRY(staging.create());
  const StageRequest stage_request{root,         lockfile,   report.selection, options,
                                   facts.scheme, identities, file_system};
  WV_ASSIGN_OR_RETURN(StagedFiles staged, stage(prepared, stage_request, staging));
  report.links = staged.links;
  note_link_fallback(report, options);
  const CommitRequest commit_request{root, facts.scheme, report.plan, installed};
  WV_ASSIGN_OR_RETURN(Journal journal, plan_commit(file_system, commit_request, staged));
  forget_state(root);  // the record describes the environment the commit is about to change
  return commit(file_system, commit_request, journal);
}

// Everything after the environment's fate is decided: the environment made (unless a dry run),
// its interpreter read, an interrupted sync repaired, the selection, the plan, and the install.
Result<void> install_into(SyncReport& report, const SyncOptions& options,
                          const lock::Lockfile& lockfile, const targets::HostProfile& live,
                          WheelStore& store, FileSystem& file_system,
                          const EnvironmentPlan& environment,
                          const EnvironmentTransaction* transaction) {
  const EnvironmentMode mode = transaction != nullptr ? transaction->mode() : environment.mode;
  WV_ASSIGN_OR_RETURN(InterpreterFacts facts,
                      environment_facts(report, options, environment, mode));
  report.scheme = facts.scheme;
  if (!options.dry_run) {
    WV_ASSIGN_OR_RETURN(std::string note, repair_environment(file_system, environment.root));
    if (!note.empty()) report.notes.push_back(std::move(note));
  }
  // A new environment was selected for with the Python it would get: the one made has the
  // same facts, so that selection stands (selecting again would judge every target twice).
  if (!report.host || *report.host != with_interpreter(live, facts)) {
    WV_TRY(select_into(report, lockfile, live, facts, options.select));
  }
  if (const lock::LockedPackage* project = lockfile.project();
      project != nullptr && options.install_project) {
    report.selection.wheels.push_back(ChosenWheel{project, nullptr, "", true});
  }
  WV_ASSIGN_OR_RETURN(auto identities, source_identities(report.selection, options));
  std::vector<InstalledDistribution> installed;
  if (mode == EnvironmentMode::kKeep) {
    WV_ASSIGN_OR_RETURN(installed, list_installed(facts.scheme));
  }
  plan_into(report, options, environment, mode, facts, installed, identities,
            is_standard_lock(lockfile));
  note_other_installers(report, installed);
  if (options.dry_run) return {};
  return change_environment(report, options, lockfile, store, file_system, facts, installed,
                            identities);
}

// `"standard"` of docs/json.md: for a lock without targets, what PEP 751's rules were
// evaluated against (the marker environment and the ordered tags), so that another installer
// can be asked the same question; null for a lock with targets.
void write_standard_json(JsonWriter& json, const lock::Lockfile& lockfile,
                         const std::optional<targets::HostProfile>& host) {
  json.key("standard");
  if (!is_standard_lock(lockfile) || !host) {
    json.null();
    return;
  }
  Result<StandardEnvironment> facts = standard_environment(*host);
  if (!facts) {
    json.null();
    return;
  }
  json.begin_object().key("environment").begin_object();
  for (const char* variable :
       {"implementation_name", "implementation_version", "os_name", "platform_machine",
        "platform_python_implementation", "platform_release", "platform_system",
        "platform_version", "python_full_version", "python_version", "sys_platform"}) {
    json.field(variable, std::string(*facts->markers.get(variable)));
  }
  json.end().key("tags").begin_array();
  for (const pkg::Tag& tag : facts->tags) {
    json.begin_array().value(tag.interpreter).value(tag.abi).value(tag.platform).end();
  }
  json.end().end();
}

}  // namespace

Result<void> sync_into(SyncReport& report, const SyncOptions& options,
                       const lock::Lockfile& lockfile, const targets::HostProfile& live,
                       WheelStore& store) {
  report = SyncReport{};
  report.dry_run = options.dry_run;
  WV_ASSIGN_OR_RETURN(
      EnvironmentPlan environment,
      plan_environment(options.venv, options.python,
                       options.python_request ? &*options.python_request : nullptr));
  report.plan.environment = environment.root;
  RealFileSystem real_file_system;
  FileSystem& file_system = options.file_system ? *options.file_system : real_file_system;
  if (environment.mode != EnvironmentMode::kKeep) {
    // Select with the Python the environment would get before making it: a host that no
    // target fits is refused before anything is created or replaced.
    WV_TRY(select_into(report, lockfile, live, *environment.base, options.select));
  }
  if (options.dry_run) {
    return install_into(report, options, lockfile, live, store, file_system, environment, nullptr);
  }
  WV_ASSIGN_OR_RETURN(EnvironmentTransaction transaction, EnvironmentTransaction::begin(environment));
  Result<void> done = install_into(report, options, lockfile, live, store, file_system, environment,
                                   &transaction);
  if (!done) {
    Error error = std::move(done).error();
    if (std::string note = transaction.abort(); !note.empty()) error.notes.push_back(std::move(note));
    return error;
  }
  transaction.commit();
  return {};
}

bool SyncReport::changed_nothing() const {
  if (dry_run || created_environment || recreated_environment || !plan.environment_change.empty()) {
    return false;
  }
  for (const PlanItem& item : plan.items) {
    if (item.action != PlanAction::kKeep) return false;
  }
  return true;
}

Result<SyncReport> sync(const SyncOptions& options, const lock::Lockfile& lockfile,
                        const targets::HostProfile& live, WheelStore& store) {
  SyncReport report;
  WV_TRY(sync_into(report, options, lockfile, live, store));
  return report;
}

std::string render_sync_json(const SyncReport& report, const lock::Lockfile& lockfile,
                             const std::string& error) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("dry_run", report.dry_run);
  write_plan_json(json, report.plan);
  json.key("extras").strings(report.selection.extras);
  json.key("groups").strings(report.selection.groups);
  json.key("host");
  if (report.host) write_host_json(json, *report.host); else json.null();
  json.key("targets");
  write_verdicts_json(json, lockfile, report.verdicts);
  write_fallback_json(json, report.selection.fallback, selected_verdict(report.verdicts));
  write_standard_json(json, lockfile, report.host);
  json.key("install").begin_object();
  json.field("cache_hits", static_cast<std::uint64_t>(report.cache_hits));
  json.field("extracted", static_cast<std::uint64_t>(report.extracted));
  json.key("files").begin_object();
  json.field("cloned", static_cast<std::uint64_t>(report.links.cloned));
  json.field("hardlinked", static_cast<std::uint64_t>(report.links.hardlinked));
  json.field("copied", static_cast<std::uint64_t>(report.links.copied));
  json.field("written", static_cast<std::uint64_t>(report.links.written));
  json.end().end();
  json.key("notes").strings(report.notes);
  json.key("error");
  json.text_or_null(error);
  json.end();
  return json.text();
}

}  // namespace wv::install
