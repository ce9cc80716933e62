#include "lock/python_provider.h"

#include <algorithm>
#include <limits>

#include "lock/lookahead.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::lock {
namespace {

using Set = PythonProvider::Set;

// Inclusive index bounds of one segment, clamped to [0, count).
std::pair<int, int> segment_bounds(const Set::Segment& segment, int count) {
  int low = 0, high = count - 1;
  if (!segment.lower.is_unbounded()) {
    low = segment.lower.is_included() ? segment.lower.value : segment.lower.value + 1;
  }
  if (!segment.upper.is_unbounded()) {
    high = segment.upper.is_included() ? segment.upper.value : segment.upper.value - 1;
  }
  return {std::max(low, 0), std::min(high, count - 1)};
}

// The newest version index in `range` that is (`prerelease`) or is not a pre-release; either
// when `prerelease` is nullopt.
std::optional<int> newest_in(const ProjectListing& listing, const Set& range,
                             std::optional<bool> prerelease) {
  int count = int(listing.versions.size());
  const auto segments = range.segments();
  for (auto segment = segments.rbegin(); segment != segments.rend(); ++segment) {
    auto [low, high] = segment_bounds(*segment, count);
    for (int i = high; i >= low; --i) {
      if (!prerelease || listing.versions[std::size_t(i)].version.is_prerelease() == *prerelease) {
        return i;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

PythonProvider::PythonProvider(const ProjectRequirements& project, const TargetContext& target,
                               Catalog& catalog)
    : project_(project), target_(target), catalog_(catalog) {
  intern(NodeKind::kRoot, project.name, "");
  for (pkg::Requirement member : project.workspace_members) {
    std::erase_if(member.extras, [&](const std::string& extra) {
      return std::none_of(target.extras.begin(), target.extras.end(),
                          [&](const pkg::ExtraName& locked) { return locked.str() == extra; });
    });
    members_.push_back(std::move(member));
  }
  auto note = [&](const std::vector<pkg::Requirement>& requirements) {
    for (const pkg::Requirement& requirement : requirements) {
      std::string name = requirement.normalized_name();
      direct_.insert(name);
      for (const pkg::Specifier& clause : requirement.specifier.specifiers()) {
        // uv's `explicit` opt-in is packaging 26's Specifier.prereleases: a pre-release operand
        // under any operator but `!=` / `!=V.*` (`>0.0.0a1` counts, `!=1.0a1` wants none).
        if (clause.prereleases().value_or(false)) explicit_prereleases_.insert(name);
        if (clause.op() == pkg::Operator::kEqual || clause.op() == pkg::Operator::kArbitraryEqual) {
          allowed_yanked_[name].push_back(clause.version());
        }
      }
    }
  };
  note(project.dependencies);
  for (const auto& [extra, requirements] : project.optional_dependencies) note(requirements);
  for (const auto& [group, requirements] : project.dependency_groups) note(requirements);
  note(project.overrides);  // an override is the project's own word on its package
  for (const pkg::Requirement& requirement : project.overrides) {
    overrides_[requirement.normalized_name()].push_back(&requirement);
  }
  for (const pkg::Requirement& requirement : project.constraints) {
    constraints_[requirement.normalized_name()].push_back(&requirement);
  }
}

PythonProvider::Package PythonProvider::intern(NodeKind kind, std::string name, std::string extra) {
  auto key = std::make_tuple(kind, name, extra);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  Package id = Package(nodes_.size());
  nodes_.push_back(Node{kind, std::move(name), std::move(extra)});
  listings_.push_back(nullptr);
  ids_.emplace(std::move(key), id);
  return id;
}

Result<PythonProvider::Package> PythonProvider::package_node(std::string_view name) {
  WV_ASSIGN_OR_RETURN(pkg::PackageName parsed, pkg::parse_package_name(name));
  return intern(NodeKind::kPackage, parsed.str(), "");
}

const ProjectListing* PythonProvider::listing(Package package) const {
  return package < listings_.size() ? listings_[package] : nullptr;
}

const VersionDecision* PythonProvider::decision(Package package, int version) const {
  auto it = decisions_.find({package, version});
  return it == decisions_.end() ? nullptr : &it->second;
}

Result<const ProjectListing*> PythonProvider::listing_for(Package package) {
  if (listings_[package]) return listings_[package];
  const Node& n = nodes_[package];
  if (n.kind != NodeKind::kPackage && n.kind != NodeKind::kPackageExtra) {
    return make_error(ErrorCode::kInvalidInput, "project nodes have no listing");
  }
  WV_ASSIGN_OR_RETURN(pkg::PackageName name, pkg::parse_package_name(n.name));
  WV_ASSIGN_OR_RETURN(const ProjectListing* found, catalog_.listing(name, pinned_for(name)));
  listings_[package] = found;
  return found;
}

std::string PythonProvider::pinned_for(const pkg::PackageName& name) const {
  if (auto direct = target_.direct_sources.find(name); direct != target_.direct_sources.end()) {
    return direct->second.key();
  }
  if (auto index = target_.pinned_indexes.find(name); index != target_.pinned_indexes.end()) {
    return index->second;
  }
  return "";
}

std::optional<std::pair<pkg::PackageName, std::string>> PythonProvider::pinned_name(
    std::string_view text) const {
  Result<pkg::PackageName> name = pkg::parse_package_name(text);
  if (!name) return std::nullopt;
  return std::pair{*name, pinned_for(*name)};
}

void PythonProvider::prefetch_packages(const std::vector<std::string>& names) {
  if (names.size() < 2) return;
  std::vector<std::pair<pkg::PackageName, std::string>> wanted;
  for (const std::string& text : names) {
    if (auto pinned = pinned_name(text)) wanted.push_back(std::move(*pinned));
  }
  (void)catalog_.prefetch_listings(wanted);
}

void PythonProvider::prefetch_listings_of(const std::vector<const pkg::Requirement*>& requirements) {
  std::vector<std::string> names;
  for (const pkg::Requirement* requirement : requirements) names.push_back(requirement->name);
  prefetch_packages(names);
}

void PythonProvider::prefetch_candidates(const std::vector<DependencyEdge>& edges) {
  Lookahead lookahead(catalog_);
  lookahead.seed_edges(*this, edges);
  lookahead.run();
}

Set PythonProvider::set_for(const ProjectListing& listing,
                            const pkg::SpecifierSet& specifier) const {
  auto allowed = allowed_yanked_.find(listing.name.str());
  auto yanked_allowed = [&](const pkg::Version& version) {
    if (allowed == allowed_yanked_.end()) return false;
    return std::find(allowed->second.begin(), allowed->second.end(), version) !=
           allowed->second.end();
  };
  int count = int(listing.versions.size());
  Set set;
  int run_start = -1;
  bool everything = true;
  for (int i = 0; i <= count; ++i) {
    bool in = i < count &&
              (!listing.versions[i].yanked || yanked_allowed(listing.versions[i].version)) &&
              specifier.contains(listing.versions[i].version, true);
    if (i < count && !in) everything = false;
    if (in && run_start < 0) run_start = i;
    if (!in && run_start >= 0) {
      set = set.union_with(Set::between(run_start, i));
      run_start = -1;
    }
  }
  if (everything && specifier.empty()) return Set::full();
  return set;
}

PrereleaseSelection PythonProvider::prerelease_selection(const std::string& name) const {
  // uv's current rules: `if-necessary` (and its old alias) prefers stable versions and falls
  // back to pre-releases when no stable candidate is left, whoever asks for the package;
  // `explicit` does so only for packages a project requirement names a pre-release for.
  switch (project_.prerelease) {
    case PrereleaseMode::kAllow: return PrereleaseSelection::kAllow;
    case PrereleaseMode::kDisallow: return PrereleaseSelection::kDisallow;
    case PrereleaseMode::kIfNecessary:
    case PrereleaseMode::kIfNecessaryOrExplicit: return PrereleaseSelection::kPreferStable;
    case PrereleaseMode::kExplicit:
      return explicit_prereleases_.count(name) > 0 ? PrereleaseSelection::kPreferStable
                                                   : PrereleaseSelection::kDisallow;
  }
  return PrereleaseSelection::kDisallow;
}

PythonProvider::Priority PythonProvider::prioritize(Package package, const Set& range,
                                                    const solver::PackageStatistics& stats) {
  const Node& n = nodes_[package];
  std::int64_t in_range = 0;
  if (const ProjectListing* found = listing(package)) {
    int count = int(found->versions.size());
    for (const Set::Segment& segment : range.segments()) {
      auto [low, high] = segment_bounds(segment, count);
      if (high >= low) in_range += high - low + 1;
    }
  }
  bool direct = n.kind != NodeKind::kPackage || direct_.count(n.name) > 0;
  return {stats.conflict_count(), direct, -in_range, -std::int64_t(package)};
}

solver::ProviderResult<std::optional<int>, Error> PythonProvider::choose_version(
    Package package, const Set& range) {
  const Node& n = nodes_[package];
  if (n.kind == NodeKind::kRoot || n.kind == NodeKind::kProjectExtra ||
      n.kind == NodeKind::kProjectGroup) {
    return range.contains(0) ? std::optional<int>(0) : std::nullopt;
  }
  auto found = listing_for(package);
  if (!found) return solver::Failure<Error>{found.error()};
  return candidate(n.name, **found, range);
}

std::optional<int> PythonProvider::candidate(const std::string& name, const ProjectListing& listing,
                                             const Set& range) const {
  switch (prerelease_selection(name)) {
    case PrereleaseSelection::kAllow: return newest_in(listing, range, std::nullopt);
    case PrereleaseSelection::kDisallow: return newest_in(listing, range, false);
    case PrereleaseSelection::kPreferStable: {
      // Stable first; the range shrinks as the solver rules stable versions out, so a
      // pre-release comes up exactly when every stable candidate has failed.
      std::optional<int> stable = newest_in(listing, range, false);
      return stable ? stable : newest_in(listing, range, true);
    }
  }
  return std::nullopt;
}

Result<bool> PythonProvider::applies(const pkg::Requirement& requirement,
                                     std::span<const std::string> extras,
                                     const pkg::VariantFacts* variant) const {
  if (requirement.marker.is_empty()) return true;
  pkg::MarkerContext context;
  context.environment = &target_.environment;
  context.extras = extras;
  context.variant = variant;
  return requirement.marker.evaluate(context);
}

// A direct reference (`name @ URL`) is followed only where the project set it up: the
// project's own requirements and sources register the package's source for the target; a
// dependency naming another URL for it (or one the project never named) is refused, as
// uv refuses it, so an index package cannot pull code from anywhere.
Result<void> PythonProvider::check_direct_reference(const pkg::Requirement& requirement) const {
  // A name the metadata spec refuses (`foo_`) has no source: it is refused below.
  Result<pkg::PackageName> name = requirement.package_name();
  auto direct = name ? target_.direct_sources.find(*name) : target_.direct_sources.end();
  Result<pkg::DirectSource> wanted = pkg::parse_direct_url(*requirement.url);
  if (!wanted) return std::move(wanted).error();
  if (direct != target_.direct_sources.end()) {
    pkg::DirectSource known = direct->second;
    known.editable = false;
    known.sha256 = wanted->sha256;
    if (known == *wanted) return {};
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(requirement.to_string()), " asks for ",
                              wanted->describe(), ", but the project takes ",
                              requirement.normalized_name(), " from ", direct->second.describe(),
                              " for target ", target_.name));
  }
  return make_error(ErrorCode::kUnsupported,
                    str_cat("direct reference ", in_backticks(requirement.to_string()),
                            " comes from a dependency: wvlock follows direct references only "
                            "from the project; add `", requirement.normalized_name(), " @ ",
                            *requirement.url, "` to the project's dependencies or a source "
                            "entry to `[tool.wvlock.sources]`"));
}

Result<void> PythonProvider::apply_overrides(std::vector<const pkg::Requirement*>& selected,
                                             std::span<const std::string> extras,
                                             const pkg::VariantFacts* variant) const {
  if (overrides_.empty()) return {};
  std::vector<const pkg::Requirement*> out;
  for (const pkg::Requirement* requirement : selected) {
    auto found = overrides_.find(requirement->normalized_name());
    if (found == overrides_.end()) {
      out.push_back(requirement);
      continue;
    }
    for (const pkg::Requirement* override_requirement : found->second) {
      auto yes = applies(*override_requirement, extras, variant);
      if (!yes) return std::move(yes).error().with_context(
                    str_cat("the marker of override ", in_backticks(override_requirement->to_string())));
      if (*yes && std::find(out.begin(), out.end(), override_requirement) == out.end()) {
        out.push_back(override_requirement);
      }
    }
  }
  selected = std::move(out);
  return {};
}

Result<pkg::SpecifierSet> PythonProvider::constrained(const std::string& name,
                                                      const pkg::SpecifierSet& specifier) const {
  auto found = constraints_.find(name);
  if (found == constraints_.end()) return specifier;
  pkg::SpecifierSet narrowed = specifier;
  for (const pkg::Requirement* constraint : found->second) {
    auto yes = applies(*constraint, {}, nullptr);
    if (!yes) return std::move(yes).error().with_context(
                  str_cat("the marker of constraint ", in_backticks(constraint->to_string())));
    if (*yes) narrowed = narrowed.intersect(constraint->specifier);
  }
  return narrowed;
}

Result<std::vector<DependencyEdge>> PythonProvider::edges_for(
    const std::vector<const pkg::Requirement*>& requirements) {
  std::vector<DependencyEdge> edges;
  auto add = [&](Package node, const Set& set, const pkg::SpecifierSet& specifier) {
    for (DependencyEdge& edge : edges) {
      if (edge.node == node) {
        edge.set = edge.set.intersection(set);
        edge.specifier = edge.specifier.intersect(specifier);
        return;
      }
    }
    edges.push_back({node, set, specifier});
  };
  prefetch_listings_of(requirements);
  for (const pkg::Requirement* requirement : requirements) {
    if (requirement->url) WV_TRY(check_direct_reference(*requirement));
    WV_ASSIGN_OR_RETURN(Package node, package_node(requirement->name));
    WV_ASSIGN_OR_RETURN(const ProjectListing* found, listing_for(node));
    WV_ASSIGN_OR_RETURN(pkg::SpecifierSet specifier,
                        constrained(nodes_[node].name, requirement->specifier));
    Set set = set_for(*found, specifier);
    add(node, set, specifier);
    for (const std::string& extra : requirement->extras) {
      Package extra_node = intern(NodeKind::kPackageExtra, nodes_[node].name,
                                  pkg::normalize_name(extra));
      listings_[extra_node] = found;
      add(extra_node, set, specifier);
    }
  }
  return edges;
}

namespace {

pkg::VariantFacts variant_facts(const RankedWheel& wheel,
                                const Result<pkg::VariantsMetadata>* variants) {
  pkg::VariantFacts facts;
  if (!wheel.filename.variant_label) return facts;
  facts.label = *wheel.filename.variant_label;
  if (!variants || !*variants) return facts;
  const auto* properties = (*variants)->find_variant(facts.label);
  if (!properties) return facts;
  std::set<std::string> features, namespaces;
  for (const pkg::VariantProperty& property : *properties) {
    facts.properties.push_back(property.to_string());
    features.insert(property.feature_key());
    namespaces.insert(property.namespace_);
  }
  std::sort(facts.properties.begin(), facts.properties.end());
  facts.features.assign(features.begin(), features.end());
  facts.namespaces.assign(namespaces.begin(), namespaces.end());
  return facts;
}

}  // namespace

solver::ProviderResult<solver::Dependencies<PythonProvider::Package, Set, std::string>, Error>
PythonProvider::get_dependencies(Package package, int version) {
  using Answer = solver::Dependencies<Package, Set, std::string>;
  // The answer holds for the version alone; written as the interval [v, v+1) so that the
  // solver's merged facts over adjacent versions stay one interval.
  const Set alone = Set::between(version, version + 1);
  auto to_answer = [&](const std::vector<DependencyEdge>& edges) {
    std::vector<std::pair<Package, Set>> constraints;
    for (const DependencyEdge& edge : edges) constraints.emplace_back(edge.node, edge.set);
    return Answer::of(std::move(constraints), alone);
  };
  const Node n = nodes_[package];
  std::vector<const pkg::Requirement*> selected;
  auto select = [&](const std::vector<pkg::Requirement>& requirements,
                    std::span<const std::string> extras) -> Result<void> {
    for (const pkg::Requirement& requirement : requirements) {
      auto yes = applies(requirement, extras, nullptr);
      if (!yes) return std::move(yes).error().with_context(
                    str_cat("the marker of ", in_backticks(requirement.to_string())));
      if (*yes) selected.push_back(&requirement);
    }
    return {};
  };

  if (n.kind == NodeKind::kRoot || n.kind == NodeKind::kProjectExtra ||
      n.kind == NodeKind::kProjectGroup) {
    Result<void> picked;
    if (n.kind == NodeKind::kRoot) {
      picked = select(project_.dependencies, {});
      // Workspace members are locked with the root (one lock for the whole workspace).
      for (const pkg::Requirement& member : members_) selected.push_back(&member);
    } else if (n.kind == NodeKind::kProjectExtra) {
      std::string extra = n.name;
      picked = select(*find_declared(project_.optional_dependencies, n.name), std::span(&extra, 1));
    } else {
      picked = select(*find_declared(project_.dependency_groups, n.name), {});
    }
    if (!picked) return solver::Failure<Error>{picked.error()};
    const std::string own_extra = n.kind == NodeKind::kProjectExtra ? n.name : std::string();
    std::span<const std::string> active = own_extra.empty() ? std::span<const std::string>()
                                                            : std::span(&own_extra, 1);
    if (auto overridden = apply_overrides(selected, active, nullptr); !overridden) {
      return solver::Failure<Error>{overridden.error()};
    }
    auto edges = edges_for(selected);
    if (!edges) return solver::Failure<Error>{edges.error()};
    if (n.kind == NodeKind::kRoot) {
      // The target's extras and every dependency group are locked: each is a node the root
      // needs, so `wvlock sync --group dev` installs from the same resolution.
      for (const pkg::ExtraName& extra : target_.extras) {
        const bool member_extra = std::any_of(
            project_.workspace_members.begin(), project_.workspace_members.end(),
            [&](const pkg::Requirement& member) {
              return std::find(member.extras.begin(), member.extras.end(), extra.str()) !=
                     member.extras.end();
            });
        if (member_extra && !project_.optional_dependencies.count(extra)) continue;
        if (!project_.optional_dependencies.count(extra)) {
          return solver::Failure<Error>{make_error(
              ErrorCode::kInvalidInput,
              str_cat("target ", in_backticks(target_.name), " asks for extra ",
                      in_backticks(extra.str()),
                      ", which [project.optional-dependencies] does not declare"))};
        }
        edges->push_back({intern(NodeKind::kProjectExtra, extra.str(), ""), Set::singleton(0)});
      }
      for (const auto& [group, requirements] : project_.dependency_groups) {
        edges->push_back({intern(NodeKind::kProjectGroup, group.str(), ""), Set::singleton(0)});
      }
    }
    prefetch_candidates(*edges);
    decisions_[{package, version}].edges = *edges;
    return to_answer(*edges);
  }

  // A package or package extra: judge the version by the wheel this target would install.
  Package base = package;
  if (n.kind == NodeKind::kPackageExtra) base = intern(NodeKind::kPackage, n.name, "");
  auto found = listing_for(base);
  if (!found) return solver::Failure<Error>{found.error()};
  const ProjectListing& listing = **found;
  const VersionFiles& files = listing.versions[std::size_t(version)];
  std::string version_text = files.version.to_string();

  auto ranked = wheel_choice(base, version);
  if (!ranked) return solver::Failure<Error>{ranked.error()};
  const WheelChoice& choice = **ranked;
  const RankedWheel* best = choice.best();
  const pkg::Distribution* chosen = choice.chosen_file();
  if (!chosen) return Answer::unavailable(choice.unavailable_reason, alone);

  auto python_fits = [&](std::string_view requires_python) -> std::optional<std::string> {
    if (requires_python.empty()) return std::nullopt;
    auto specifier = pkg::parse_specifier_set(requires_python);
    if (!specifier) return str_cat("its Requires-Python ", in_backticks(requires_python),
                                   " does not parse");
    if (specifier->contains(target_.python_version, true)) return std::nullopt;
    return str_cat("it requires Python ", requires_python, " and target ", target_.name,
                   " has Python ", target_.python_version.to_string());
  };
  if (auto why = python_fits(chosen->requires_python)) return Answer::unavailable(*why, alone);

  auto metadata = catalog_.metadata(*chosen);
  if (!metadata) {
    // Malformed metadata, or a source this lock cannot read (no builder wired in): the
    // version is unusable, with the reason.
    if (metadata.error().code == ErrorCode::kParse ||
        (!best && metadata.error().code == ErrorCode::kUnsupported)) {
      return Answer::unavailable(metadata.error().message, alone);
    }
    return solver::Failure<Error>{metadata.error()};
  }
  if (auto why = python_fits((*metadata)->requires_python_raw)) {
    return Answer::unavailable(*why, alone);
  }

  const Result<pkg::VariantsMetadata>* variants =
      files.has_variant_wheels ? &catalog_.variants(listing, files.version) : nullptr;
  pkg::VariantFacts facts = best ? variant_facts(*best, variants) : pkg::VariantFacts{};
  const pkg::VariantFacts* variant = best && best->filename.variant_label ? &facts : nullptr;

  std::vector<std::string> active_extras;
  if (n.kind == NodeKind::kPackageExtra) active_extras.push_back(n.extra);
  for (const pkg::RequiresDist& entry : (*metadata)->requires_dist) {
    auto with = applies(entry.requirement, active_extras, variant);
    if (!with) {
      log_warning(str_cat(listing.name.str(), " ", version_text, ": ignoring ",
                          in_backticks(entry.raw), ": ", with.error().message));
      continue;
    }
    if (!*with) continue;
    if (n.kind == NodeKind::kPackageExtra) {
      // The extra adds only what the base does not already need.
      auto without = applies(entry.requirement, {}, variant);
      if (without && *without) continue;
    }
    selected.push_back(&entry.requirement);
  }
  if (auto overridden = apply_overrides(selected, active_extras, variant); !overridden) {
    return solver::Failure<Error>{overridden.error()};
  }
  auto edges = edges_for(selected);
  if (!edges) return solver::Failure<Error>{edges.error()};
  if (n.kind == NodeKind::kPackageExtra) {
    // A package extra is its base at the same version plus the extra's requirements.
    edges->insert(edges->begin(), DependencyEdge{base, Set::singleton(version)});
  }
  prefetch_candidates(*edges);
  decisions_[{package, version}].edges = *edges;
  return to_answer(*edges);
}

Result<const WheelChoice*> PythonProvider::wheel_choice(Package base, int version) {
  WV_ASSIGN_OR_RETURN(const ProjectListing* found, listing_for(base));
  auto existing = decisions_.find({base, version});
  if (existing != decisions_.end()) return &existing->second.wheels;
  const VersionFiles& files = found->versions[std::size_t(version)];
  const Result<pkg::VariantsMetadata>* variants =
      files.has_variant_wheels ? &catalog_.variants(*found, files.version) : nullptr;
  if (variants && !*variants) {
    // Variant metadata that could not be fetched fails the lock: the version must not become
    // unavailable (and an older one quietly chosen) because of a bad transfer. Only a missing
    // or malformed file makes the variant wheels unusable.
    switch (variants->error().code) {
      case ErrorCode::kNetwork:
      case ErrorCode::kIntegrity:
      case ErrorCode::kIo:
      case ErrorCode::kLimit:
      case ErrorCode::kUnsupported:
        return variants->error();
      default:
        break;
    }
  }
  VersionDecision fresh;
  fresh.wheels = choose_wheels(target_, found->name.str(), files.version.to_string(),
                               files.wheels, variants);
  if (fresh.wheels.compatible.empty()) fresh.wheels.source = choose_source(files.sdists);
  auto inserted = decisions_.emplace(std::make_pair(base, version), std::move(fresh)).first;
  return &inserted->second.wheels;
}

Result<std::optional<int>> PythonProvider::find_version(Package base, std::string_view version) {
  WV_ASSIGN_OR_RETURN(const ProjectListing* found, listing_for(base));
  auto parsed = pkg::parse_version(version);
  if (!parsed) return std::optional<int>();
  int index = found->find(*parsed);
  return index < 0 ? std::optional<int>() : std::optional<int>(index);
}

Result<std::vector<std::string>> PythonProvider::wheel_requirements(Package base, int version,
                                                                    const RankedWheel& wheel) {
  WV_ASSIGN_OR_RETURN(const ProjectListing* found, listing_for(base));
  const VersionFiles& files = found->versions[std::size_t(version)];
  WV_ASSIGN_OR_RETURN(const pkg::CoreMetadata* metadata, catalog_.metadata(*wheel.file));
  const Result<pkg::VariantsMetadata>* variants =
      files.has_variant_wheels ? &catalog_.variants(*found, files.version) : nullptr;
  pkg::VariantFacts facts = variant_facts(wheel, variants);
  const pkg::VariantFacts* variant = wheel.filename.variant_label ? &facts : nullptr;
  std::vector<std::string> applicable;
  for (const pkg::RequiresDist& entry : metadata->requires_dist) {
    auto yes = applies(entry.requirement, {}, variant);
    if (yes && *yes) applicable.push_back(entry.requirement.to_string());
  }
  std::sort(applicable.begin(), applicable.end());
  return applicable;
}

std::string PythonProvider::package_text(Package package) const {
  const Node& n = nodes_[package];
  switch (n.kind) {
    case NodeKind::kRoot: return n.name.empty() ? "the project" : n.name;
    case NodeKind::kProjectExtra: return str_cat("the project's extra ", in_backticks(n.name));
    case NodeKind::kProjectGroup: return str_cat("the dependency group ", in_backticks(n.name));
    case NodeKind::kPackage: return n.name;
    case NodeKind::kPackageExtra: return str_cat(n.name, "[", n.extra, "]");
  }
  return n.name;
}

std::string PythonProvider::set_text(Package package, const Set& set) const {
  const ProjectListing* found = listing(package);
  if (!found || set.is_full()) return "";
  // Index runs: segments that leave no listed version between them read as one range.
  int count = int(found->versions.size());
  std::vector<std::pair<int, int>> runs;
  for (const Set::Segment& segment : set.segments()) {
    auto [low, high] = segment_bounds(segment, count);
    if (high < low) continue;
    if (!runs.empty() && runs.back().second + 1 >= low) {
      runs.back().second = std::max(runs.back().second, high);
    } else {
      runs.emplace_back(low, high);
    }
  }
  auto text = [&](int index) { return found->versions[std::size_t(index)].version.to_string(); };
  std::vector<std::string> parts;
  for (auto [low, high] : runs) {
    if (low == high) {
      parts.push_back("==" + text(low));
    } else if (low == 0 && high < count - 1) {
      parts.push_back("<=" + text(high));
    } else if (high == count - 1 && low > 0) {
      parts.push_back(">=" + text(low));
    } else {
      parts.push_back(str_cat(">=", text(low), ",<=", text(high)));
    }
  }
  if (parts.empty()) return " (no published version)";
  return join(parts, " | ");
}

namespace {

// "1.0, 1.1, 1.2": a short list whole, a long one as its oldest and newest few and the count.
std::string abbreviated(const std::vector<std::string>& versions) {
  constexpr std::size_t kEnds = 3;
  if (versions.size() <= 2 * kEnds + 1) return join(versions, ", ");
  std::vector<std::string> shown(versions.begin(), versions.begin() + kEnds);
  shown.push_back("...");
  shown.insert(shown.end(), versions.end() - kEnds, versions.end());
  return str_cat(join(shown, ", "), " (", versions.size(), " versions)");
}

}  // namespace

std::string PythonProvider::available_text(Package package) const {
  const ProjectListing* found = listing(package);
  const std::string& name = nodes_[package].name;
  if (!found) return str_cat("no index lists ", name);
  if (found->versions.empty()) {
    if (!found->not_found.empty()) return found->not_found;
    return str_cat("no index lists a file of ", in_backticks(name));
  }
  std::vector<std::string> usable, yanked;
  for (const VersionFiles& files : found->versions) {
    (files.yanked ? yanked : usable).push_back(files.version.to_string());
  }
  auto are = [](const std::vector<std::string>& list) {
    return list.size() == 1 ? " is" : " are";
  };
  if (usable.empty()) {
    return str_cat("every version of ", name, " is yanked (", abbreviated(yanked), ")");
  }
  std::string text = str_cat("only ", name, " ", abbreviated(usable), are(usable), " available");
  if (!yanked.empty()) text += str_cat(" (", abbreviated(yanked), are(yanked), " yanked)");
  return text;
}

std::string PythonProvider::requirement_text(Package parent, const Set& set,
                                             Package dependency) const {
  std::set<std::string> specifiers;
  for (auto it = decisions_.lower_bound({parent, std::numeric_limits<int>::min()});
       it != decisions_.end() && it->first.first == parent; ++it) {
    if (!set.contains(it->first.second)) continue;
    for (const DependencyEdge& edge : it->second.edges) {
      if (edge.node == dependency) specifiers.insert(edge.specifier.to_string());
    }
  }
  const std::string name = package_text(dependency);
  if (specifiers.empty()) return name;
  std::vector<std::string> texts;
  for (const std::string& specifier : specifiers) texts.push_back(name + specifier);
  return join(texts, " or ");
}

bool PythonProvider::lacks_installable_file(Package package, const Set& set) const {
  const Node& n = nodes_[package];
  if (n.kind != NodeKind::kPackage && n.kind != NodeKind::kPackageExtra) return false;
  auto base = ids_.find(std::make_tuple(NodeKind::kPackage, n.name, std::string()));
  if (base == ids_.end()) return false;
  for (auto it = decisions_.lower_bound({base->second, std::numeric_limits<int>::min()});
       it != decisions_.end() && it->first.first == base->second; ++it) {
    if (set.contains(it->first.second) && it->second.wheels.chosen_file() == nullptr) return true;
  }
  return false;
}

}  // namespace wv::lock
