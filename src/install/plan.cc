// The install plan: actions per distribution, their text and JSON.
#include "src/install/plan.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "src/base/str.h"
#include "src/base/url.h"
#include "src/pkg/version.h"

namespace wv::install {
namespace {

// kUpgrade or kDowngrade from `installed` to `wanted`; kReinstall when they are equal.
PlanAction version_change(const std::string& installed, const std::string& wanted) {
  Result<pkg::Version> from = pkg::parse_version(installed);
  Result<pkg::Version> to = pkg::parse_version(wanted);
  if (!from || !to) return installed == wanted ? PlanAction::kReinstall : PlanAction::kUpgrade;
  if (*from == *to) return PlanAction::kReinstall;
  return *from < *to ? PlanAction::kUpgrade : PlanAction::kDowngrade;
}

std::string wheel_note(const PlanItem& item) {
  return str_cat(item.wheel, item.download ? ", download" : "",
                 item.outside_path.empty()
                     ? std::string()
                     : str_cat(", from ", item.outside_path, ", outside the lockfile's folder"));
}

}  // namespace

std::string_view to_string(PlanAction action) {
  switch (action) {
    case PlanAction::kInstall: return "install";
    case PlanAction::kUpgrade: return "upgrade";
    case PlanAction::kDowngrade: return "downgrade";
    case PlanAction::kReinstall: return "reinstall";
    case PlanAction::kRemove: return "remove";
    case PlanAction::kKeep: return "keep";
  }
  return "keep";
}

bool installs_files(PlanAction action) {
  return action == PlanAction::kInstall || action == PlanAction::kUpgrade ||
         action == PlanAction::kDowngrade || action == PlanAction::kReinstall;
}

bool removes_files(PlanAction action) {
  return action == PlanAction::kRemove || action == PlanAction::kUpgrade ||
         action == PlanAction::kDowngrade || action == PlanAction::kReinstall;
}

int Plan::count(PlanAction action) const {
  return static_cast<int>(std::count_if(items.begin(), items.end(),
                                        [&](const PlanItem& item) { return item.action == action; }));
}

int Plan::count_unlisted() const {
  return static_cast<int>(
      std::count_if(items.begin(), items.end(), [](const PlanItem& item) { return item.unlisted; }));
}

Plan make_plan(const TargetChoice& selection, const std::vector<InstalledDistribution>& installed,
               const PlanOptions& options, const SourceIdentities& identities) {
  Plan plan;
  plan.target = selection.target;
  if (const TargetVerdict* verdict = selection.selected_verdict()) {
    plan.target_reason = verdict->reason;
    plan.wheel_changes = verdict->changes;
  }
  std::map<pkg::PackageName, const InstalledDistribution*> by_name;
  for (const InstalledDistribution& distribution : installed) {
    if (distribution.name) by_name[*distribution.name] = &distribution;
  }
  std::set<pkg::PackageName> wanted;
  for (const ChosenWheel& chosen : selection.wheels) {
    const lock::LockedPackage& package = *chosen.package;
    wanted.insert(package.name);
    PlanItem item;
    item.name = package.name;
    item.version = package.version;
    // What the installed copy must record to be kept: the wheel, or the built source.
    std::string record_name;
    std::string record_digest;
    if (chosen.file != nullptr) {
      item.wheel = chosen.file->name;
      item.file = chosen.file;
      item.download = chosen.file->path.empty() && !is_file_url(chosen.file->url);
      record_name = chosen.file->name;
      record_digest = chosen.file->sha256;
    } else {
      item.build = &package;
      auto identity = identities.find(package.name);
      if (identity != identities.end()) {
        item.wheel = identity->second.name;
        record_name = identity->second.name;
        record_digest = identity->second.digest;
      }
    }
    auto it = by_name.find(package.name);
    if (it == by_name.end()) {
      item.action = PlanAction::kInstall;
    } else {
      const InstalledDistribution& current = *it->second;
      item.old_version = current.version;
      // Another installer's copy of the same version is kept (its build cannot be told);
      // wvlock's own records name the wheel (or the source it built), so a changed build is
      // replaced. A project whose version is dynamic is matched by its source alone.
      const bool version_matches = package.version.empty() || current.version == package.version;
      const bool same = version_matches &&
                        (current.wheel.empty() ||
                         (current.wheel == record_name && current.wheel_sha256 == record_digest));
      if (same && !options.reinstall) {
        item.action = PlanAction::kKeep;
      } else {
        item.action = version_matches ? PlanAction::kReinstall
                                      : version_change(current.version, package.version);
      }
    }
    if (item.action == PlanAction::kKeep) {
      item.wheel.clear();
      item.download = false;
    }
    plan.items.push_back(std::move(item));
  }
  for (const InstalledDistribution& distribution : installed) {
    if (distribution.name && wanted.count(*distribution.name)) continue;
    PlanItem item;
    if (distribution.name) item.name = *distribution.name;
    item.folder_name = distribution.folder_name;
    item.old_version = distribution.version;
    if (options.inexact) {
      item.action = PlanAction::kKeep;
      item.version = distribution.version;
      item.unlisted = true;
    } else {
      item.action = PlanAction::kRemove;
    }
    plan.items.push_back(std::move(item));
  }
  std::sort(plan.items.begin(), plan.items.end(),
            [](const PlanItem& a, const PlanItem& b) { return a.shown_name() < b.shown_name(); });
  return plan;
}

std::string render_plan(const Plan& plan, bool dry_run, bool verbose) {
  // A lock without targets is installed by PEP 751's rules alone.
  std::string out = str_cat(dry_run ? "would sync " : "synced ", in_backticks(plan.environment),
                            plan.target.empty() ? " by PEP 751's rules (the lock declares no "
                                                  "targets)"
                                                : " to target ",
                            plan.target,
                            plan.target_reason.empty() ? "" : str_cat(" (", plan.target_reason, ")"),
                            "\n");
  if (!plan.environment_change.empty()) {
    out += str_cat("  environment: ", dry_run ? "would be " : "", plan.environment_change,
                   " with Python ", plan.python_version, " (", plan.python_executable, ")",
                   plan.environment_reason.empty() ? "" : ", " + plan.environment_reason, "\n");
  }
  for (const WheelChange& change : plan.wheel_changes) {
    out += str_cat("  another kept wheel: ", describe(change), "\n");
  }
  for (const PlanItem& item : plan.items) {
    switch (item.action) {
      case PlanAction::kInstall:
        out += str_cat("  + ", item.shown_name(), " ", item.version, " (", wheel_note(item), ")\n");
        break;
      case PlanAction::kUpgrade:
      case PlanAction::kDowngrade:
        out += str_cat("  ~ ", item.shown_name(), " ", item.old_version, " -> ", item.version, " (",
                       to_string(item.action), ", ", wheel_note(item), ")\n");
        break;
      case PlanAction::kReinstall:
        out += str_cat("  ~ ", item.shown_name(), " ", item.version, " (reinstall, ", wheel_note(item),
                       ")\n");
        break;
      case PlanAction::kRemove:
        out += str_cat("  - ", item.shown_name(), " ", item.old_version, "\n");
        break;
      case PlanAction::kKeep:
        if (item.unlisted) {
          out += str_cat("  = ", item.shown_name(), " ", item.version,
                         " (not in the lock; kept: --inexact)\n");
        } else if (verbose) {
          out += str_cat("  = ", item.shown_name(), " ", item.version, "\n");
        }
        break;
    }
  }
  const int kept = plan.count(PlanAction::kKeep);
  const int unlisted = plan.count_unlisted();
  const char* const verbs[][2] = {{"to install", "installed"},     {"to upgrade", "upgraded"},
                                  {"to downgrade", "downgraded"}, {"to reinstall", "reinstalled"},
                                  {"to remove", "removed"}};
  const PlanAction actions[] = {PlanAction::kInstall, PlanAction::kUpgrade, PlanAction::kDowngrade,
                                PlanAction::kReinstall, PlanAction::kRemove};
  std::vector<std::string> counts;
  for (std::size_t i = 0; i < std::size(actions); ++i) {
    counts.push_back(str_cat(plan.count(actions[i]), " ", verbs[i][dry_run ? 0 : 1]));
  }
  counts.push_back(str_cat(kept, " kept as they are",
                           unlisted > 0 ? str_cat(" (", unlisted, " not in the lock: --inexact)")
                                        : std::string()));
  out += str_cat("packages: ", join(counts, ", "), "\n");
  return out;
}

void name_outside_paths(Plan& plan, const std::string& lock_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path folder = fs::absolute(lock_dir.empty() ? "." : lock_dir, error).lexically_normal();
  for (PlanItem& item : plan.items) {
    // A relative path is the lock's own layout (it may climb to a sibling index); an absolute
    // one names this machine's file system.
    if (item.file == nullptr || item.file->path.empty() || item.file->path.front() != '/') continue;
    const fs::path path = fs::path(item.file->path).lexically_normal();
    const fs::path inside = path.lexically_relative(folder);
    if (inside.empty() || *inside.begin() == "..") item.outside_path = path.generic_string();
  }
}

void write_plan_json(JsonWriter& json, const Plan& plan) {
  json.key("target");
  if (plan.target.empty()) {
    json.null();
  } else {
    json.begin_object().field("name", plan.target).field("reason", plan.target_reason);
    json.key("wheel_changes");
    write_wheel_changes_json(json, plan.wheel_changes);
    json.end();
  }
  json.key("venv").begin_object().key("path");
  json.text_or_null(plan.environment).key("change");
  json.text_or_null(plan.environment_change).key("reason");
  json.text_or_null(plan.environment_reason).end();
  json.key("python");
  if (plan.python_version.empty()) {
    json.null();
  } else {
    json.begin_object().field("version", plan.python_version);
    json.field("executable", plan.python_executable).end();
  }
  json.key("packages").begin_array();
  for (const PlanItem& item : plan.items) {
    json.begin_object().field("name", item.shown_name()).field("action", to_string(item.action));
    json.key("from");
    json.text_or_null(item.old_version);
    json.key("to");
    json.text_or_null(item.action == PlanAction::kRemove ? std::string() : item.version);
    json.key("wheel");
    json.text_or_null(item.wheel);
    json.field("download", item.download).field("locked", !item.unlisted);
    json.key("outside_path");
    json.text_or_null(item.outside_path);
    json.end();
  }
  json.end();
}

}  // namespace wv::install
