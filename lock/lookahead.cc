#include "lock/lookahead.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::lock {

Lookahead::Walk& Lookahead::walk_of(PythonProvider& provider) {
  for (Walk& walk : walks_) {
    if (walk.provider == &provider) return walk;
  }
  walks_.push_back(Walk{&provider, {}, {}});
  return walks_.back();
}

void Lookahead::consider(Walk& walk, const pkg::Requirement& requirement,
                         std::span<const std::string> active) {
  const PythonProvider& provider = *walk.provider;
  Result<bool> yes = provider.applies(requirement, active, nullptr);
  if (requirement.url || !yes || !*yes) return;
  // The solver narrows a requirement by the project's constraints: so does the walk.
  Result<pkg::SpecifierSet> specifier =
      provider.constrained(requirement.normalized_name(), requirement.specifier);
  walk.next.push_back({&requirement, specifier ? *specifier : requirement.specifier});
}

void Lookahead::seed_edges(PythonProvider& provider, const std::vector<DependencyEdge>& edges) {
  Walk& walk = walk_of(provider);
  for (const DependencyEdge& edge : edges) {
    const Node n = provider.nodes_[edge.node];
    const ProjectListing* listing = provider.listings_[edge.node];
    if ((n.kind == NodeKind::kPackage || n.kind == NodeKind::kPackageExtra) && listing) {
      std::vector<std::string> extras;
      if (n.kind == NodeKind::kPackageExtra) extras.push_back(n.extra);
      walk.level.push_back({n.name, listing, edge.set, extras});
    }
    // The project's extras and groups the root needs are decided later, from the same index.
    const ProjectRequirements& project = provider.project_;
    const bool is_extra = n.kind == NodeKind::kProjectExtra;
    const std::vector<pkg::Requirement>* declared =
        is_extra ? find_declared(project.optional_dependencies, n.name)
        : n.kind == NodeKind::kProjectGroup ? find_declared(project.dependency_groups, n.name)
                                            : nullptr;
    if (declared == nullptr) continue;
    const std::span<const std::string> extras =
        is_extra ? std::span(&n.name, 1) : std::span<const std::string>();
    for (const pkg::Requirement& requirement : *declared) consider(walk, requirement, extras);
  }
}

void Lookahead::seed_project(PythonProvider& provider) {
  Walk& walk = walk_of(provider);
  const ProjectRequirements& project = provider.project_;
  const TargetContext& target = provider.target_;
  // The root's requirements as get_dependencies() selects them (markers, then overrides).
  std::vector<const pkg::Requirement*> selected;
  for (const pkg::Requirement& requirement : project.dependencies) {
    Result<bool> yes = provider.applies(requirement, {}, nullptr);
    if (yes && *yes) selected.push_back(&requirement);
  }
  (void)provider.apply_overrides(selected, {}, nullptr);  // on error: the root reports it
  for (const pkg::Requirement* requirement : selected) {
    // A direct reference the project set up is listed from its own source (pinned_for()).
    Result<pkg::PackageName> name = requirement->package_name();
    if (requirement->url && name && target.direct_sources.count(*name)) {
      Result<pkg::SpecifierSet> specifier =
          provider.constrained(requirement->normalized_name(), requirement->specifier);
      walk.next.push_back({requirement, specifier ? *specifier : requirement->specifier});
      continue;
    }
    consider(walk, *requirement, {});
  }
  for (const pkg::ExtraName& extra : target.extras) {
    auto found = project.optional_dependencies.find(extra);
    if (found == project.optional_dependencies.end()) continue;
    for (const pkg::Requirement& requirement : found->second) {
      consider(walk, requirement, std::span(&extra.str(), 1));
    }
  }
  for (const auto& [group, requirements] : project.dependency_groups) {
    for (const pkg::Requirement& requirement : requirements) consider(walk, requirement, {});
  }
}

void Lookahead::take_next() {
  // Each (pinned index, name) once in the batch, whichever walks want it.
  std::vector<std::pair<pkg::PackageName, std::string>> wanted;
  std::map<std::string, std::size_t> slot;
  std::vector<std::vector<std::pair<std::size_t, const Wanted*>>> asked(walks_.size());
  for (std::size_t w = 0; w < walks_.size(); ++w) {
    for (const Wanted& next : walks_[w].next) {
      auto pinned = walks_[w].provider->pinned_name(next.requirement->name);
      if (!pinned) continue;
      std::string key = str_cat(pinned->second, "\n", pinned->first.str());
      auto [at, fresh] = slot.emplace(key, wanted.size());
      if (fresh) wanted.push_back(std::move(*pinned));
      asked[w].emplace_back(at->second, &next);
    }
  }
  std::vector<bool> ready = catalog_.prefetch_listings(wanted);
  for (std::size_t w = 0; w < walks_.size(); ++w) {
    Walk& walk = walks_[w];
    for (const auto& [k, next] : asked[w]) {
      if (!ready[k]) continue;
      Result<const ProjectListing*> listing = catalog_.listing(wanted[k].first, wanted[k].second);
      if (!listing) continue;
      std::vector<std::string> extras;
      for (const std::string& extra : next->requirement->extras) {
        extras.push_back(pkg::normalize_name(extra));
      }
      std::sort(extras.begin(), extras.end());
      walk.level.push_back({wanted[k].first.str(), *listing,
                            walk.provider->set_for(**listing, next->specifier), extras});
    }
    walk.next.clear();
  }
}

std::vector<Lookahead::Chosen> Lookahead::choose() {
  std::vector<Chosen> chosen;
  std::vector<std::pair<const ProjectListing*, pkg::Version>> variant_versions;
  std::map<std::pair<const ProjectListing*, int>, std::size_t> slot;  // in variant_versions
  std::vector<std::size_t> variant_of;  // per chosen: its slot, or npos
  for (Walk& walk : walks_) {
    PythonProvider& provider = *walk.provider;
    for (const Step& step : walk.level) {
      std::optional<int> version = provider.candidate(step.name, *step.listing, step.set);
      if (!version ||
          !provider.explored_.insert({step.name, *version, join(step.extras, ",")}).second) {
        continue;
      }
      chosen.push_back({&walk, &step, *version, true});
      const VersionFiles& files = step.listing->versions[std::size_t(*version)];
      if (!files.has_variant_wheels) {
        variant_of.push_back(std::string::npos);
        continue;
      }
      auto [at, fresh] = slot.emplace(std::pair{step.listing, *version}, variant_versions.size());
      if (fresh) variant_versions.emplace_back(step.listing, files.version);
      variant_of.push_back(at->second);
      if (!every_variant_version_) continue;
      for (int other = 0; other < int(step.listing->versions.size()); ++other) {
        const VersionFiles& older = step.listing->versions[std::size_t(other)];
        if (!older.has_variant_wheels || older.yanked || older.version.is_prerelease()) continue;
        if (slot.emplace(std::pair{step.listing, other}, variant_versions.size()).second) {
          variant_versions.emplace_back(step.listing, older.version);
        }
      }
    }
  }
  std::vector<bool> ready = catalog_.prefetch_variants(variant_versions);
  for (std::size_t c = 0; c < chosen.size(); ++c) {
    if (variant_of[c] != std::string::npos) chosen[c].variants_ready = ready[variant_of[c]];
  }
  return chosen;
}

bool Lookahead::read_requirements(const std::vector<Chosen>& chosen) {
  std::vector<const pkg::Distribution*> files;  // each wheel once
  std::map<std::string, std::size_t> slot;       // by URL, in files
  std::vector<std::pair<std::size_t, const Chosen*>> wheels;
  for (const Chosen& one : chosen) {
    const Step& step = *one.step;
    const VersionFiles& files_of = step.listing->versions[std::size_t(one.version)];
    const Result<pkg::VariantsMetadata>* variants = nullptr;
    if (files_of.has_variant_wheels) {
      if (!one.variants_ready) continue;
      variants = &catalog_.variants(*step.listing, files_of.version);
    }
    // The same judgement wheel_choice() makes, kept nowhere: only its file is wanted.
    WheelChoice choice = choose_wheels(one.walk->provider->target_, step.name,
                                       files_of.version.to_string(), files_of.wheels, variants);
    const RankedWheel* best = choice.best();
    if (best == nullptr || best->file->kind != pkg::DistributionKind::kWheel) continue;
    auto [at, fresh] = slot.emplace(best->file->url, files.size());
    if (fresh) files.push_back(best->file);
    wheels.emplace_back(at->second, &one);
  }
  if (!wheels.empty()) {
    std::vector<bool> ready = catalog_.prefetch_metadata(files);
    for (const auto& [k, one] : wheels) {
      if (!ready[k]) continue;
      Result<const pkg::CoreMetadata*> metadata = catalog_.metadata(*files[k]);
      if (!metadata) continue;
      for (const pkg::RequiresDist& entry : (*metadata)->requires_dist) {
        consider(*one->walk, entry.requirement, one->step->extras);
      }
    }
  }
  for (Walk& walk : walks_) walk.level.clear();  // after: `chosen` points into the levels
  return !wheels.empty();
}

void Lookahead::run() {
  take_next();
  constexpr int kDepth = 32;  // a bound for pathological graphs; real ones are far shallower
  for (int depth = 0; depth < kDepth; ++depth) {
    bool any = false;
    for (const Walk& walk : walks_) any = any || !walk.level.empty();
    if (!any) break;
    std::vector<Chosen> chosen = choose();
    if (!read_requirements(chosen)) break;
    take_next();
  }
  walks_.clear();
}

}  // namespace wv::lock
