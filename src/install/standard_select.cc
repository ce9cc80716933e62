#include "src/install/standard_select.h"

#include <algorithm>
#include <map>
#include <optional>

#include "src/base/json_writer.h"
#include "src/base/str.h"
#include "src/pkg/marker.h"
#include "src/pkg/specifier.h"
#include "src/pkg/tags.h"
#include "src/pkg/wheel_filename.h"
#include "targets/match.h"
#include "targets/providers.h"
#include "targets/target.h"

namespace wv::install {
namespace {

// `packages[2] (line 14)`: how the PEP and packaging name an entry, with where it was read.
std::string entry_label(std::size_t index, const lock::LockedPackage& package) {
  return package.line > 0 ? str_cat("packages[", index, "] (line ", package.line, ")")
                          : str_cat("packages[", index, "]");
}

std::string subject(const lock::LockedPackage& package) {
  return package.version.empty() ? package.name.str() : str_cat(package.name, " ", package.version);
}

// PEP 751 steps 3 and 5.2: an unmet requires-python is an error the installer MUST raise.
Result<void> check_requires_python(std::string_view requires_python, const std::string& python,
                                   std::string_view what) {
  if (requires_python.empty()) return {};
  Result<pkg::SpecifierSet> specifiers = pkg::parse_specifier_set(requires_python);
  if (!specifiers) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(what, ": `requires-python = \"", requires_python,
                              "\"` does not parse: ", specifiers.error().message));
  }
  // Prereleases of Python count as that Python (packaging passes prereleases=True).
  if (specifiers->contains(python, true)) return {};
  return make_error(ErrorCode::kUnavailable,
                    str_cat("this environment's Python ", python, " does not satisfy ", what,
                            "'s `requires-python = \"", requires_python,
                            "\"` (PEP 751: an error MUST be raised if it is not met)"));
}

// PEP 751 step 4: at least one of `environments` must hold.
Result<void> check_environments(const lock::Lockfile& lockfile,
                                const pkg::PreparedEnvironment& environment) {
  if (lockfile.environments.empty()) return {};
  for (const std::string& text : lockfile.environments) {
    Result<pkg::Marker> marker = pkg::parse_marker(text);
    if (!marker) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("`environments`: ", in_backticks(text), " does not parse: ",
                                marker.error().message));
    }
    pkg::MarkerContext context;
    context.environment = &environment;
    WV_ASSIGN_OR_RETURN(bool holds, marker->evaluate(context));
    if (holds) return {};
  }
  const pkg::MarkerEnvironment& values = environment.values();
  return make_error(ErrorCode::kUnavailable,
                    str_cat("this environment (sys_platform ", values.sys_platform,
                            ", platform_machine ", values.platform_machine, ", Python ",
                            values.python_full_version,
                            ") satisfies none of the lock's `environments` (PEP 751: an error "
                            "MUST be raised if no expression is satisfied)"))
      .with_note(str_cat("the lock is for: ", join(lockfile.environments, " | ")));
}

// The entry's marker with the requested extras and groups as the PEP 751 sets.
Result<bool> marker_holds(const lock::LockedPackage& package, std::size_t index,
                          const pkg::PreparedEnvironment& environment,
                          const SelectOptions& options) {
  if (package.marker.empty()) return true;
  Result<pkg::Marker> marker = pkg::parse_marker(package.marker);
  if (!marker) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(entry_label(index, package), " ", in_backticks(package.name.str()),
                              ": `marker` does not parse: ", marker.error().message));
  }
  pkg::MarkerContext context;
  context.environment = &environment;
  context.extras = options.extras;
  context.dependency_groups = options.groups;
  Result<bool> holds = marker->evaluate(context);
  if (!holds) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(entry_label(index, package), " ", in_backticks(package.name.str()),
                              ": `marker` cannot be evaluated: ", holds.error().message));
  }
  return *holds;
}

// The installable wheel of `package` that fits best, by the judge target selection uses;
// nullptr when none fits.
struct BestWheel {
  const lock::LockedFile* file = nullptr;
  std::string label;
  std::optional<targets::WheelRank> rank;
};

BestWheel best_wheel(const lock::LockedPackage& package, const pkg::TagPriority& tags,
                     const targets::HostProviders& providers) {
  BestWheel best;
  std::optional<targets::SupportedVariants> supported;
  for (const lock::LockedFile& file : package.wheels) {
    Result<pkg::WheelFilename> parsed = pkg::parse_wheel_filename(file.name);
    if (!parsed) continue;  // packaging refuses the whole file; the reader checked the names
    const bool variant = parsed->variant_label.has_value() && package.variants.has_value();
    if (variant && !supported) supported = providers.supported(*package.variants);
    targets::WheelVerdict verdict =
        targets::judge_wheel(*parsed, tags, variant ? &*package.variants : nullptr,
                             variant ? &*supported : nullptr,
                             "the lock has no variant metadata for it");
    if (!verdict.rank) continue;
    if (!best.rank || targets::compare_wheel_ranks(*verdict.rank, *best.rank) < 0) {
      best.rank = std::move(verdict.rank);
      best.file = &file;
      best.label = parsed->variant_label.value_or("");
    }
  }
  return best;
}

}  // namespace

bool is_standard_lock(const lock::Lockfile& lockfile) { return lockfile.targets.empty(); }

Result<StandardEnvironment> standard_environment(const targets::HostProfile& live) {
  StandardEnvironment environment;
  WV_ASSIGN_OR_RETURN(environment.markers, targets::marker_environment(live));
  WV_ASSIGN_OR_RETURN(environment.tags, targets::compatible_tags(live));
  return environment;
}

Result<TargetChoice> select_standard(const lock::Lockfile& lockfile,
                                     const targets::HostProfile& live,
                                     const SelectOptions& options) {
  Result<StandardEnvironment> facts = standard_environment(live);
  if (!facts) {
    return make_error(ErrorCode::kUnavailable,
                      str_cat("this host's marker environment or tags are unknown: ",
                              facts.error().message));
  }
  const pkg::PreparedEnvironment environment(facts->markers);
  const std::string& python = facts->markers.python_full_version;
  WV_TRY(check_requires_python(lockfile.requires_python, python, "the lock"));
  WV_TRY(check_environments(lockfile, environment));

  // Step 5: a flat filter by marker, one entry per name.
  std::map<pkg::PackageName, std::size_t> chosen_index;
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < lockfile.packages.size(); ++i) {
    const lock::LockedPackage& package = lockfile.packages[i];
    if (package.is_project) continue;  // sync adds the project itself, as for a target
    WV_ASSIGN_OR_RETURN(bool holds, marker_holds(package, i, environment, options));
    if (!holds) continue;
    WV_TRY(check_requires_python(package.requires_python, python,
                                 str_cat("package ", in_backticks(package.name.str()), " at ",
                                         entry_label(i, package))));
    auto [it, fresh] = chosen_index.emplace(package.name, i);
    if (!fresh) {
      const lock::LockedPackage& first = lockfile.packages[it->second];
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("two entries of ", in_backticks(package.name.str()),
                                " are selected for this environment: ", subject(first), " at ",
                                entry_label(it->second, first), " and ", subject(package), " at ",
                                entry_label(i, package),
                                " (PEP 751: all packages to be installed MUST narrow down to a "
                                "single entry at install time)"))
          .with_note("their markers overlap here; the lock's author must make them exclusive");
    }
    chosen.push_back(i);
  }

  // Step 6: per package its source: vcs, directory, archive, else the best wheel, else sdist.
  const pkg::TagPriority tags(facts->tags);
  const targets::HostProviders providers(live, facts->markers, options.providers);
  TargetChoice selection;
  selection.extras = options.extras;
  selection.groups = options.groups;
  selection.host_summary = targets::describe(live);
  for (std::size_t i : chosen) {
    const lock::LockedPackage& package = lockfile.packages[i];
    if (package.vcs || package.directory || package.archive) {
      selection.wheels.push_back(ChosenWheel{&package, nullptr, "", true});
      continue;
    }
    BestWheel best = best_wheel(package, tags, providers);
    if (best.file != nullptr) {
      selection.wheels.push_back(ChosenWheel{&package, best.file, best.label, true});
    } else if (package.sdist) {
      selection.wheels.push_back(ChosenWheel{&package, nullptr, "", true});
    } else {
      return make_error(ErrorCode::kUnavailable,
                        str_cat("no wheel of ", subject(package), " at ", entry_label(i, package),
                                " matches this environment's tags, and it has no sdist (PEP 751: "
                                "an error MUST be raised about a lack of source for the project)"))
          .with_note(str_cat("host: ", selection.host_summary));
    }
  }
  std::sort(selection.wheels.begin(), selection.wheels.end(),
            [](const ChosenWheel& a, const ChosenWheel& b) { return a.package->name < b.package->name; });
  return selection;
}

std::string render_standard_selection(const TargetChoice& selection, bool json) {
  if (json) {
    JsonWriter writer;
    writer.begin_object().field("version", 1).field("standard", true);
    writer.key("host").value(selection.host_summary);
    writer.key("packages").begin_array();
    for (const ChosenWheel& chosen : selection.wheels) {
      writer.begin_object().field("name", chosen.package->name.str());
      writer.key("version");
      writer.text_or_null(chosen.package->version);
      writer.key("wheel");
      writer.text_or_null(chosen.file ? chosen.file->name : std::string());
      writer.end();
    }
    writer.end().end();
    return writer.text();
  }
  std::string out = str_cat("host: ", selection.host_summary,
                            "\nthe lock declares no targets: by PEP 751's rules this environment "
                            "installs\n");
  for (const ChosenWheel& chosen : selection.wheels) {
    out += str_cat("  ", subject(*chosen.package), "  ",
                   chosen.file ? chosen.file->name : std::string("(built from source)"), "\n");
  }
  return out;
}

}  // namespace wv::install
