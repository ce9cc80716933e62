#include "lock/resolve.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "src/base/credentials.h"
#include "src/base/hash.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "lock/lookahead.h"
#include "lock/preferences.h"
#include "lock/python_provider.h"
#include "lock/solve_target.h"
#include "src/pkg/name.h"

namespace wv::lock {
namespace {

using Package = PythonProvider::Package;

LockedFile default_locate(const pkg::Distribution& file) {
  LockedFile locked;
  locked.name = file.filename;
  (is_url(file.url) ? locked.url : locked.path) = file.url;
  locked.size = file.size;
  return locked;
}

// What one target's resolution contributes to the lockfile.
struct TargetResult {
  struct PackageUse {
    const ProjectListing* listing = nullptr;
    int version = 0;
    std::vector<const RankedWheel*> wheels;  // kept, best first
    const pkg::Distribution* source = nullptr;  // built at install when no wheel fits
    TargetUse use;
  };
  std::map<std::string, PackageUse> packages;  // by name
  std::vector<std::string> roots;
  std::map<std::string, std::vector<std::string>> extra_roots, group_roots;
};

std::string edge_text(const PythonProvider& provider, const PythonSolution& solution,
                      const DependencyEdge& edge) {
  const Node& node = provider.node(edge.node);
  const int* version = solution.find(edge.node);
  const ProjectListing* listing = provider.listing(edge.node);
  if (!version || !listing) return "";
  std::string text = node.name;
  if (node.kind == NodeKind::kPackageExtra) text += "[" + node.extra + "]";
  return text + "==" + listing->versions[std::size_t(*version)].version.to_string();
}

// For each package the failure names that no asked index has but a named index does (an
// explicit index serves only packages pinned to it), the pin that would fix it.
std::vector<IndexPin> explicit_index_pins(const PythonProvider& provider, const TargetContext& target,
                                          Catalog& catalog, const std::set<std::string>& named) {
  std::vector<IndexPin> pins;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < provider.node_count(); ++i) {
    const Node& node = provider.node(static_cast<PythonProvider::Package>(i));
    if (node.kind != NodeKind::kPackage || !seen.insert(node.name).second) continue;
    const ProjectListing* listing = provider.listing(static_cast<PythonProvider::Package>(i));
    if (!listing || !listing->versions.empty() || target.pinned_indexes.count(listing->name)) continue;
    if (!named.count(node.name)) continue;
    std::vector<std::string> indexes = catalog.pinned_indexes_listing(listing->name);
    if (indexes.empty()) continue;
    pins.push_back({node.name, indexes.front()});
  }
  return pins;
}

// The optimal-string-alignment distance (insertions, deletions, substitutions and swaps of
// adjacent characters): how far a misspelt name is from a real one.
std::size_t spelling_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// For each package the failure names that no index has, the closest name among the projects
// already read that do exist (a misspelt requirement), found without asking any index.
void add_spelling_notes(const PythonProvider& provider, Catalog& catalog,
                        const std::set<std::string>& named, std::string& explanation) {
  std::optional<std::vector<std::string>> known;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < provider.node_count(); ++i) {
    const Node& node = provider.node(static_cast<PythonProvider::Package>(i));
    if (node.kind != NodeKind::kPackage || !seen.insert(node.name).second) continue;
    const ProjectListing* listing = provider.listing(static_cast<PythonProvider::Package>(i));
    if (!listing || listing->not_found.empty() || !named.count(node.name)) continue;
    if (!catalog.pinned_indexes_listing(listing->name).empty()) continue;  // a note says where
    if (!known) known = catalog.listed_names();
    // One edit in a short name, two in a longer one: farther than that is another project.
    std::size_t best = (node.name.size() <= 4 ? 1 : 2) + 1;
    std::string suggestion;
    for (const std::string& candidate : *known) {
      const std::size_t distance = spelling_distance(node.name, candidate);
      if (distance > 0 && distance < best) {
        best = distance;
        suggestion = candidate;
      }
    }
    if (suggestion.empty()) continue;
    explanation += str_cat("\nhint: did you mean ", in_backticks(suggestion), "?");
  }
}

bool is_package(const Node& node) {
  return node.kind == NodeKind::kPackage || node.kind == NodeKind::kPackageExtra;
}

// The wheels whose METADATA collect() compares: every kept candidate of each decided version.
std::vector<const pkg::Distribution*> compared_wheels(PythonProvider& provider,
                                                      const PythonSolution& solution) {
  std::vector<const pkg::Distribution*> kept;
  for (const auto& [package, version] : solution.packages) {
    if (provider.node(package).kind != NodeKind::kPackage) continue;
    Result<const WheelChoice*> choice = provider.wheel_choice(package, version);
    if (!choice) continue;  // collect() reports it
    for (const auto* wheels : {&(*choice)->compatible, &(*choice)->other_variants}) {
      for (const RankedWheel& wheel : *wheels) kept.push_back(wheel.file);
    }
  }
  return kept;
}

// The project itself, when it is a package (ProjectRequirements::package_version).
Result<LockedPackage> project_entry(const ProjectRequirements& project) {
  LockedPackage entry;
  Result<pkg::PackageName> name = pkg::parse_package_name(project.name);
  if (!name) {
    return std::move(name).error().with_context("the project's `[project] name` in pyproject.toml");
  }
  entry.name = std::move(*name);
  entry.version = *project.package_version;
  entry.requires_python = project.requires_python;
  entry.directory = LockedDirectory{".", true, ""};
  entry.is_project = true;
  return entry;
}

// Whether a root edge is there only because its package is a workspace member (not a
// dependency of the root project itself).
bool member_only_root(const ProjectRequirements& project, std::string_view edge) {
  Result<pkg::PackageName> name = edge_package(edge);
  auto named = [&](const pkg::Requirement& requirement) {
    Result<pkg::PackageName> named = requirement.package_name();
    return name && named && *named == *name;
  };
  return std::any_of(project.workspace_members.begin(), project.workspace_members.end(), named) &&
         std::none_of(project.dependencies.begin(), project.dependencies.end(), named);
}

// What a target's solution contributes to the lockfile; reads the METADATA of
// compared_wheels() one by one where no batch read them before.
Result<TargetResult> collect(PythonProvider& provider, const PythonSolution& solution,
                             const ProjectRequirements& project) {
  TargetResult result;
  for (const auto& [package, version] : solution.packages) {
    const Node& node = provider.node(package);
    const VersionDecision* decision = provider.decision(package, version);
    std::vector<std::string> edges;
    if (decision) {
      for (const DependencyEdge& edge : decision->edges) {
        if (!is_package(provider.node(edge.node))) continue;
        if (node.kind == NodeKind::kPackageExtra && provider.node(edge.node).name == node.name &&
            provider.node(edge.node).kind == NodeKind::kPackage) {
          continue;  // the extra's own base
        }
        std::string text = edge_text(provider, solution, edge);
        if (!text.empty()) edges.push_back(std::move(text));
      }
    }
    switch (node.kind) {
      case NodeKind::kRoot:
        for (std::string& edge : edges) {
          if (!member_only_root(project, edge)) result.roots.push_back(std::move(edge));
        }
        break;
      case NodeKind::kProjectExtra: result.extra_roots[node.name] = edges; break;
      case NodeKind::kProjectGroup: result.group_roots[node.name] = edges; break;
      case NodeKind::kPackageExtra:
        result.packages[node.name].use.extra_dependencies[node.extra] = edges;
        break;
      case NodeKind::kPackage: {
        TargetResult::PackageUse& use = result.packages[node.name];
        use.listing = provider.listing(package);
        use.version = version;
        use.use.dependencies = edges;
        WV_ASSIGN_OR_RETURN(const WheelChoice* choice, provider.wheel_choice(package, version));
        const RankedWheel* best = choice->best();
        if (best == nullptr) {  // no wheel fits: the target builds the source
          use.source = choice->source;
          break;
        }
        WV_ASSIGN_OR_RETURN(std::vector<std::string> best_requirements,
                            provider.wheel_requirements(package, version, *best));
        use.wheels.push_back(best);
        // Keep every other wheel of the version that fits the target's platform and has the
        // same dependencies: the installing host picks among them with its live providers.
        // Structured bindings are captured through init-captures: clang before 16 cannot
        // capture them directly (the WV_FUZZ build uses clang).
        auto keep_if_same = [&, &package = package,
                             &version = version](const RankedWheel& wheel) -> Result<void> {
          if (&wheel == best) return {};
          auto requirements = provider.wheel_requirements(package, version, wheel);
          if (!requirements) {
            // Metadata that could not be read (network, integrity) fails the lock: the kept
            // list must not depend on the weather. A wheel with malformed metadata is not kept.
            if (requirements.error().code != ErrorCode::kParse) return requirements.error();
            return {};
          }
          if (*requirements == best_requirements) use.wheels.push_back(&wheel);
          return {};
        };
        for (const RankedWheel& wheel : choice->compatible) WV_TRY(keep_if_same(wheel));
        for (const RankedWheel& wheel : choice->other_variants) WV_TRY(keep_if_same(wheel));
        break;
      }
    }
  }
  // A package extra of a package that is itself not decided cannot happen (the extra depends
  // on its base), but guard the map against half entries.
  for (auto it = result.packages.begin(); it != result.packages.end();) {
    it = it->second.listing ? std::next(it) : result.packages.erase(it);
  }
  return result;
}

// A listed file as the lockfile records it: where it is, its sha256, and its size and upload
// time where the source knows them.
Result<LockedFile> locked_file(const pkg::Distribution& file,
                               const std::function<LockedFile(const pkg::Distribution&)>& locate,
                               Catalog& catalog) {
  LockedFile locked = locate(file);
  WV_ASSIGN_OR_RETURN(locked.sha256, catalog.file_sha256(file));
  if (!locked.size) locked.size = catalog.file_size(file);
  locked.upload_time = file.upload_time;
  return locked;
}

// Where a target that builds the package gets its source, as PEP 751 records it: a
// directory, a git commit, an archive (a path or URL sdist) or the index's sdist.
Result<void> record_source(LockedPackage& package, const pkg::Distribution& source,
                           const std::function<LockedFile(const pkg::Distribution&)>& locate,
                           Catalog& catalog) {
  if (source.direct && source.direct->kind == pkg::DirectKind::kGit) {
    LockedVcs vcs;
    if (!is_url(source.direct->location)) {
      // A local repository: a path relative to the lock, so the lock reads the same anywhere.
      pkg::Distribution where = source;
      where.url = source.direct->location;
      LockedFile located = locate(where);
      vcs.path = located.path.empty() ? located.url : located.path;
    } else {
      vcs.url = strip_credentials(source.direct->location);  // the lock holds bare URLs
    }
    vcs.requested_revision = source.direct->requested_revision();
    vcs.commit_id = source.commit_id;
    vcs.subdirectory = source.direct->subdirectory;
    package.vcs = std::move(vcs);
    return {};
  }
  if (source.direct && source.direct->kind == pkg::DirectKind::kDirectory) {
    LockedFile where = locate(source);
    LockedDirectory directory;
    directory.path = where.path.empty() ? where.url : where.path;
    directory.editable = source.direct->editable;
    directory.subdirectory = source.direct->subdirectory;
    package.directory = std::move(directory);
    return {};
  }
  WV_ASSIGN_OR_RETURN(LockedFile file, locked_file(source, locate, catalog));
  if (source.direct) {
    package.archive = LockedArchive{std::move(file), source.direct->subdirectory};
  } else if (!package.sdist) {
    package.sdist = std::move(file);
  }
  return {};
}

}  // namespace

std::string input_hash(const ProjectRequirements& project,
                       const std::vector<TargetContext>& targets,
                       const std::vector<std::string>& extra_inputs) {
  Fingerprint fingerprint;
  fingerprint.add("wvlock-input-1").add(project.name).add(project.requires_python);
  fingerprint.add(to_string(project.prerelease));
  auto add_requirements = [&](std::string_view label, const std::vector<pkg::Requirement>& list) {
    fingerprint.add(label);
    for (const pkg::Requirement& requirement : list) fingerprint.add(requirement.to_string());
  };
  add_requirements("dependencies", project.dependencies);
  for (const auto& [extra, list] : project.optional_dependencies) add_requirements("extra:" + extra.str(), list);
  for (const auto& [group, list] : project.dependency_groups) add_requirements("group:" + group.str(), list);
  // Only when given, so that the locks of projects without them keep their hash.
  if (!project.constraints.empty()) add_requirements("constraints", project.constraints);
  if (!project.overrides.empty()) add_requirements("overrides", project.overrides);
  if (!project.workspace_members.empty()) add_requirements("workspace", project.workspace_members);
  // Only a choice other than uv's default (`dev` when declared) enters the hash, so that locks
  // of projects that do not set `default-groups` keep their hash.
  std::vector<pkg::ExtraName> implied;
  for (const auto& [group, list] : project.dependency_groups) {
    if (group.str() == "dev") implied.push_back(group);
  }
  if (project.default_groups != implied) {
    fingerprint.add("default-groups");
    for (const pkg::ExtraName& group : project.default_groups) fingerprint.add(group.str());
  }
  for (const TargetContext& target : targets) {
    fingerprint.add("target").add(target.name).add(target.platform_marker);
    for (const auto& [key, value] : target.facts) fingerprint.add(key).add(value);
    for (const auto& [ns, features] : target.declared.profile.properties) {
      for (const auto& [feature, values] : features) {
        fingerprint.add("property").add(ns).add(feature);
        for (const std::string& value : values) fingerprint.add(value);
      }
    }
    for (const pkg::ExtraName& extra : target.extras) fingerprint.add("extra").add(extra.str());
    for (const auto& [name, index] : target.pinned_indexes) fingerprint.add("pin").add(name.str()).add(index);
    // Direct sources enter through the caller's extra_inputs, as written: their absolute
    // locations would make the hash differ between two checkouts of one project.
  }
  for (const std::string& input : extra_inputs) fingerprint.add(input);
  return "xxh3-128:" + fingerprint.finish().to_hex();
}

Result<void> check_requires_python(const ProjectRequirements& project,
                                   const std::vector<TargetContext>& targets) {
  if (project.requires_python.empty()) return {};
  auto allowed = pkg::parse_specifier_set(project.requires_python);
  if (!allowed) return std::move(allowed).error().with_context("the project's requires-python");
  std::vector<std::pair<std::string, std::string>> excluded;  // (target, its Python)
  for (const TargetContext& target : targets) {
    if (allowed->contains(target.python_version, true)) continue;
    const auto& python = target.host.python_version.value;
    excluded.emplace_back(target.name,
                          python ? python->to_string() : target.python_version.to_string());
  }
  if (excluded.empty()) return {};
  const std::string requires_python = in_backticks(project.requires_python);
  std::string message;
  if (excluded.size() == 1) {
    message = str_cat("target ", in_backticks(excluded[0].first), " has Python ",
                      excluded[0].second, ", which the project's requires-python ",
                      requires_python, " excludes");
  } else {
    std::vector<std::string> parts;
    for (const auto& [name, python] : excluded) {
      parts.push_back(str_cat(in_backticks(name), " (Python ", python, ")"));
    }
    message = str_cat("the project's requires-python ", requires_python,
                      " excludes the Python of targets ", join(parts, ", "));
  }
  // The oldest CPython 3.x the specifier admits, to name in the hint.
  std::string suggestion = "X.Y";
  for (std::uint64_t minor = 0; minor < 100; ++minor) {
    if (allowed->contains(pkg::Version::from_release({3, minor, 0}), true)) {
      suggestion = str_cat("3.", minor);
      break;
    }
  }
  return make_error(ErrorCode::kInvalidInput, message)
      .with_note(str_cat("hint: give each target a Python that requires-python allows (`python = "
                         "\"", suggestion, "\"` in its [[tool.wvlock.target]] table, or in "
                         "[tool.wvlock] for every target), or widen requires-python in [project]"));
}

Result<ResolveOutcome> resolve_targets(const ProjectRequirements& project,
                                       const std::vector<TargetContext>& targets,
                                       Catalog& catalog, const ResolveOptions& options) {
  WV_TRY(check_requires_python(project, targets));
  ResolveOutcome outcome;
  std::map<std::string, std::string> earlier;  // name -> version chosen by an earlier target
  // Providers outlive the loop: the kept RankedWheel pointers refer into their decisions.
  std::vector<std::unique_ptr<PythonProvider>> providers;
  for (const TargetContext& target : targets) {
    providers.push_back(std::make_unique<PythonProvider>(project, target, catalog));
  }
  // Every target's lookahead in step before the first solve: a level of all targets' graphs
  // costs one round trip, where target after target would cost one per target and level.
  Lookahead lookahead(catalog);
  lookahead.set_every_variant_version(targets.size() > 1);
  for (const auto& provider : providers) lookahead.seed_project(*provider);
  lookahead.run();
  std::vector<TargetResult> results;
  std::vector<std::optional<PythonSolution>> solutions(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const TargetContext& target = targets[t];
    PythonProvider& provider = *providers[t];
    WV_ASSIGN_OR_RETURN(auto preferred, preferences(provider, target, earlier, options));
    WV_ASSIGN_OR_RETURN(auto solved,
                        solve_target(provider, preferred, target.name, options.max_solver_steps));
    if (auto* unsolvable = std::get_if<Unsolvable>(&solved)) {
      std::string& explanation = unsolvable->explanation;
      const std::set<std::string>& named = unsolvable->named_packages;
      // A pinned index is never a fallback: say which packages this target reads from one.
      for (const auto& [name, index] : target.pinned_indexes) {
        if (!named.count(name.str())) continue;
        explanation += str_cat("\nnote: ", name, " comes only from index ", in_backticks(index),
                               " for target ", target.name, " (pinned in [tool.wvlock.sources])");
      }
      std::vector<IndexPin> pins = explicit_index_pins(provider, target, catalog, named);
      add_spelling_notes(provider, catalog, named, explanation);
      outcome.failures.push_back({target.name, std::move(explanation),
                                  std::move(unsolvable->without_installable_file), std::move(pins)});
      results.emplace_back();
      continue;
    }
    const auto& solution = std::get<PythonSolution>(solved);
    for (const auto& [package, version] : solution.packages) {
      const ProjectListing* listing = provider.listing(package);
      if (provider.node(package).kind != NodeKind::kPackage || !listing) continue;
      earlier.emplace(provider.node(package).name,
                      listing->versions[std::size_t(version)].version.to_string());
    }
    solutions[t] = std::move(std::get<PythonSolution>(solved));
    results.emplace_back();
  }
  // The wheels every solved target compares, as one batch (one round trip, not one per target).
  std::vector<const pkg::Distribution*> compared;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (!solutions[t]) continue;
    for (const pkg::Distribution* wheel : compared_wheels(*providers[t], *solutions[t])) {
      compared.push_back(wheel);
    }
  }
  catalog.read_metadata(compared);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (!solutions[t]) continue;
    WV_ASSIGN_OR_RETURN(results[t], collect(*providers[t], *solutions[t], project));
  }
  if (!outcome.failures.empty()) return outcome;

  auto locate = options.locate ? options.locate : default_locate;
  Lockfile lockfile;
  lockfile.requires_python = project.requires_python;
  for (const auto& [extra, list] : project.optional_dependencies) lockfile.extras.push_back(extra.str());
  for (const auto& [group, list] : project.dependency_groups) {
    lockfile.dependency_groups.push_back(group.str());
  }
  for (const pkg::ExtraName& group : project.default_groups) {
    lockfile.default_groups.push_back(group.str());
  }
  lockfile.input_hash = input_hash(project, targets, options.extra_inputs);
  lockfile.input_files = options.input_files;
  // One entry per (name, version, index): the same version from two indexes (a pinned one
  // and the default) is two sets of files, never mixed.
  using PackageKey = std::tuple<std::string, std::string, std::string>;
  std::map<PackageKey, LockedPackage> packages;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const TargetContext& target = targets[t];
    TargetResult& result = results[t];
    LockedTarget locked_target;
    locked_target.name = target.name;
    locked_target.declared = target.declared;
    locked_target.marker = target.platform_marker;
    locked_target.roots = result.roots;
    locked_target.extra_roots = result.extra_roots;
    locked_target.group_roots = result.group_roots;
    for (const auto& [name, features] : target.providers.outputs()) {
      for (const targets::SupportedFeature& feature : features) {
        locked_target.provider_output[name][feature.name] = feature.values;
      }
    }
    lockfile.targets.push_back(std::move(locked_target));
    if (std::find(lockfile.environments.begin(), lockfile.environments.end(),
                  target.platform_marker) == lockfile.environments.end()) {
      lockfile.environments.push_back(target.platform_marker);
    }

    for (auto& [name, use] : result.packages) {
      const VersionFiles& files = use.listing->versions[std::size_t(use.version)];
      std::string version = files.version.to_string();
      // Files of a path, URL or git source have no index: their source tells them apart, so
      // two targets taking one version from two folders get two entries.
      const pkg::Distribution& first = use.wheels.empty() ? *use.source : *use.wheels.front()->file;
      const PackageKey key{name, version,
                           first.direct ? "direct:" + first.direct->key() : files.index};
      LockedPackage& package = packages[key];
      // A solved node's name is a parsed requirement's, normalised.
      WV_ASSIGN_OR_RETURN(package.name, pkg::parse_normalized_name(name));
      package.version = version;
      if (!files.index.empty()) {
        package.index = options.describe_index ? options.describe_index(files.index) : files.index;
      }
      package.index_name = files.index_name;
      const pkg::Distribution& chosen = use.wheels.empty() ? *use.source : *use.wheels.front()->file;
      if (package.requires_python.empty()) package.requires_python = chosen.requires_python;
      if (use.source) WV_TRY(record_source(package, *use.source, locate, catalog));
      for (const RankedWheel* wheel : use.wheels) {
        use.use.wheels.push_back(wheel->file->filename);
        if (package.find_wheel(wheel->file->filename)) continue;
        WV_ASSIGN_OR_RETURN(LockedFile locked, locked_file(*wheel->file, locate, catalog));
        package.wheels.push_back(std::move(locked));
      }
      if (files.has_variant_wheels && !package.variants) {
        const auto& variants = catalog.variants(*use.listing, files.version);
        if (variants) package.variants = *variants;
      }
      package.targets[target.name] = std::move(use.use);
    }
  }
  for (auto& [key, package] : packages) {
    for (const pkg::Requirement& member : project.workspace_members) {
      Result<pkg::PackageName> name = member.package_name();
      if (name && *name == package.name && package.directory) package.workspace_member = true;
    }
    lockfile.packages.push_back(std::move(package));
  }
  canonicalize(lockfile);
  WV_TRY(assign_package_markers(lockfile));
  // The project's own entry belongs to no target's closure (sync adds it to every one), so it
  // comes after the markers; the lockfile is validated after this, its last change.
  if (project.package_version) {
    WV_ASSIGN_OR_RETURN(LockedPackage entry, project_entry(project));
    lockfile.packages.push_back(std::move(entry));
    canonicalize(lockfile);
  }
  WV_TRY(validate(lockfile, "pylock.toml"));
  outcome.lockfile = std::move(lockfile);
  return outcome;
}

}  // namespace wv::lock
