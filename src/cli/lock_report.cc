#include "src/cli/lock_report.h"

#include <algorithm>

#include "src/base/json_writer.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/pkg/wheel_filename.h"

namespace wv::cli {

std::vector<TargetSummary> summarize_targets(const lock::Lockfile& lockfile,
                                             const std::vector<lock::TargetContext>& contexts) {
  std::vector<TargetSummary> summaries;
  for (const lock::LockedTarget& target : lockfile.targets) {
    const lock::TargetContext* context = nullptr;
    for (const lock::TargetContext& candidate : contexts) {
      if (candidate.name == target.name) context = &candidate;
    }
    TargetSummary summary;
    summary.name = target.name;
    const auto closure = lockfile.closure(target.name);
    summary.packages = closure.size();
    for (const lock::LockedPackage* package : closure) {
      const auto& wheels = package->targets.at(target.name).wheels;
      if (wheels.empty()) continue;
      TargetBuild build{package->name.str(), package->version, std::nullopt, std::nullopt};
      if (context && context->pinned_indexes.count(package->name)) {
        build.index = context->pinned_indexes.at(package->name);
      } else {
        auto filename = pkg::parse_wheel_filename(wheels.front());
        if (!filename || !filename->variant_label || *filename->variant_label == "null") continue;
        build.variant = *filename->variant_label;
      }
      summary.builds.push_back(std::move(build));
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

void print_summaries(const std::vector<TargetSummary>& summaries) {
  for (const TargetSummary& summary : summaries) {
    std::vector<std::string> builds;
    for (const TargetBuild& build : summary.builds) {
      builds.push_back(build.index ? str_cat(build.name, " ", build.version, " (", *build.index, ")")
                                   : str_cat(build.name, " ", build.version, " [",
                                             build.variant.value_or(""), "]"));
    }
    log_info(str_cat("  ", summary.name, ": ", counted(summary.packages, "package", "packages"),
                     builds.empty() ? "" : ", " + join(builds, ", ")));
  }
}

namespace {

// "v2.2.6", "v2.2.6, v2.3.3".
std::string versions_text(const std::vector<std::string>& versions) {
  std::vector<std::string> parts;
  for (const std::string& version : versions) parts.push_back("v" + version);
  return join(parts, ", ");
}

// The JSON value of a change's versions: null, or the versions joined by ", ".
std::optional<std::string> versions_value(const std::vector<std::string>& versions) {
  if (versions.empty()) return std::nullopt;
  return join(versions, ", ");
}

}  // namespace

void print_changes(const std::vector<lock::PackageChange>& changes) {
  for (const lock::PackageChange& change : changes) {
    const std::string from = versions_text(change.from), to = versions_text(change.to);
    switch (change.action) {
      case lock::ChangeAction::kAdded: log_info(str_cat("Added ", change.name, " ", to)); break;
      case lock::ChangeAction::kRemoved:
        log_info(str_cat("Removed ", change.name, " ", from));
        break;
      case lock::ChangeAction::kUpgraded:
        log_info(str_cat("Updated ", change.name, " ", from, " -> ", to));
        break;
      case lock::ChangeAction::kDowngraded:
        log_info(str_cat("Downgraded ", change.name, " ", from, " -> ", to));
        break;
    }
  }
}

namespace {

// `"a", "b"` for a TOML array.
std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& item : items) quoted.push_back(str_cat("\"", item, "\""));
  return join(quoted, ", ");
}

// One `[tool.wvlock.sources]` entry per package for every target that needs it pinned: a
// hint followed literally must not write the same key twice.
void print_index_pins(const std::vector<lock::TargetFailure>& failures) {
  // package -> index -> targets, in the order first met.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>>> pins;
  for (const lock::TargetFailure& failure : failures) {
    for (const lock::IndexPin& pin : failure.index_pins) {
      auto package = std::find_if(pins.begin(), pins.end(),
                                  [&](const auto& entry) { return entry.first == pin.package; });
      if (package == pins.end()) package = pins.insert(pins.end(), {pin.package, {}});
      auto index = std::find_if(package->second.begin(), package->second.end(),
                                [&](const auto& entry) { return entry.first == pin.index; });
      if (index == package->second.end()) index = package->second.insert(package->second.end(), {pin.index, {}});
      index->second.push_back(failure.target);
    }
  }
  for (const auto& [package, indexes] : pins) {
    std::vector<std::string> said, entries;
    for (const auto& [index, targets] : indexes) {
      std::vector<std::string> named;
      for (const std::string& target : targets) named.push_back(in_backticks(target));
      said.push_back(str_cat("index ", in_backticks(index), ", which target", targets.size() == 1 ? " " : "s ",
                             join(named, ", "), targets.size() == 1 ? " does" : " do",
                             " not ask for it"));
      entries.push_back(str_cat("{ index = \"", index, "\", targets = [", quoted_list(targets), "] }"));
    }
    const std::string value = entries.size() == 1 ? entries.front() : str_cat("[", join(entries, ", "), "]");
    print_diagnostic(str_cat("note: ", package, " is on ", join(said, "; "), "; pin it with `", package,
                             " = ", value, "` in [tool.wvlock.sources]"));
  }
}

}  // namespace

void print_failures(const std::vector<lock::TargetFailure>& failures) {
  std::vector<std::string> without_file;  // "no wheel of flash-attn fits target `cpu`"
  // Targets that fail for the same reason share one explanation.
  std::vector<std::pair<std::string, std::vector<std::string>>> explained;
  for (const lock::TargetFailure& failure : failures) {
    auto same = std::find_if(explained.begin(), explained.end(),
                             [&](const auto& entry) { return entry.first == failure.explanation; });
    if (same == explained.end()) {
      explained.push_back({failure.explanation, {}});
      same = explained.end() - 1;
    }
    same->second.push_back(in_backticks(failure.target));
    for (const std::string& name : failure.without_installable_file) {
      without_file.push_back(str_cat("no wheel of ", name, " fits target `", failure.target, "`"));
    }
  }
  for (const auto& [explanation, targets] : explained) {
    print_diagnostic(str_cat("error: no resolution for target", targets.size() == 1 ? " " : "s ",
                             join(targets, ", "), ":\n\n", explanation, "\n"));
  }
  print_index_pins(failures);
  // Only a package that exists but offers a target nothing it can install can be moved out
  // of that target's way; a misspelt name or an impossible specifier cannot.
  if (without_file.empty()) return;
  print_diagnostic(str_cat("hint: ", join(without_file, "; "),
                           ": a package that only some targets can have (a CUDA-only build on "
                           "a CPU target) can move to an extra that only those targets ask for "
                           "(`extras = [...]` in the target)"));
}

void warn_unknown_upgrades(const std::set<pkg::PackageName>& upgrade_packages,
                           const lock::Lockfile* previous,
                           const std::vector<std::string>& reached) {
  for (const pkg::PackageName& name : upgrade_packages) {
    if (std::binary_search(reached.begin(), reached.end(), name.str())) continue;
    if (previous && std::any_of(previous->packages.begin(), previous->packages.end(),
                                [&](const lock::LockedPackage& p) { return p.name == name; })) {
      continue;
    }
    log_warning(str_cat("`--upgrade-package ", name, "`: ", name,
                        " is neither in the previous lock nor needed by any target; nothing to "
                        "upgrade"));
  }
}

std::string lock_json(const LockReport& report) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("lockfile", report.lockfile);
  json.field("status", report.status).key("targets").begin_array();
  for (const TargetSummary& target : report.targets) {
    json.begin_object().field("name", target.name);
    json.field("packages", std::uint64_t(target.packages)).key("builds").begin_array();
    for (const TargetBuild& build : target.builds) {
      json.begin_object().field("name", build.name).field("version", build.version);
      json.field("variant", build.variant).field("index", build.index).end();
    }
    json.end().end();
  }
  json.end().key("changes").begin_array();
  for (const lock::PackageChange& change : report.changes) {
    json.begin_object().field("name", change.name.str()).field("action", to_string(change.action));
    json.field("from", versions_value(change.from)).field("to", versions_value(change.to)).end();
  }
  json.end().key("failures").begin_array();
  for (const lock::TargetFailure& failure : report.failures) {
    json.begin_object().field("target", failure.target);
    json.field("explanation", failure.explanation);
    json.key("without_installable_file").strings(failure.without_installable_file);
    json.key("index_pins").begin_array();
    for (const lock::IndexPin& pin : failure.index_pins) {
      json.begin_object().field("package", pin.package).field("index", pin.index).end();
    }
    json.end().end();
  }
  json.end().field("elapsed_ms", report.elapsed_ms).end();
  return json.text();
}

}  // namespace wv::cli
