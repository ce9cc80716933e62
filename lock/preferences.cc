#include "lock/preferences.h"

#include <optional>

#include "lock/catalog.h"

namespace wv::lock {
namespace {

using Package = PythonProvider::Package;

// A preferred version and whether it comes from an earlier target of this lock.
struct Wanted {
  std::string version;
  bool from_earlier_target = false;
};

// A preference is never a reason for a lock to fail. The previous lock names packages this
// target may no longer need, or never needed (another target's pytorch-triton-rocm, pinned
// there to an index this target does not ask): a failure to look one up (offline, its page
// never cached) costs the preference. Where the solver does need the package, it asks again
// and fails with the error.
std::optional<int> version_index(PythonProvider& provider, Package node, const Wanted& want) {
  Result<std::optional<int>> index = provider.find_version(node, want.version);
  return index ? *index : std::nullopt;
}

// An earlier target's pre-release is no reason to pass over this target's stable candidates
// (uv ignores a sibling fork's pre-release preference); the previous lockfile's is kept.
bool inherited_prerelease(const PythonProvider& provider, Package node, int index,
                          const Wanted& want) {
  if (!want.from_earlier_target) return false;
  if (!provider.listing(node)->versions[std::size_t(index)].version.is_prerelease()) return false;
  return provider.prerelease_selection(provider.node(node).name) != PrereleaseSelection::kAllow;
}

// The variants files the loop of preferences() compares, as one batch: of each preferred
// version, and of every stable version of its package that has variant wheels (one by one,
// each would cost a round trip).
void prefetch_preferred_variants(PythonProvider& provider,
                                 const std::map<std::string, Wanted>& wanted) {
  std::vector<std::pair<const ProjectListing*, pkg::Version>> versions;
  for (const auto& [name, want] : wanted) {
    auto node = provider.package_node(name);
    if (!node) continue;
    std::optional<int> index = version_index(provider, *node, want);
    if (!index) continue;
    const ProjectListing* listing = provider.listing(*node);
    if (listing->versions[std::size_t(*index)].has_variant_wheels) {
      versions.emplace_back(listing, listing->versions[std::size_t(*index)].version);
    }
    for (const VersionFiles& files : listing->versions) {
      if (files.has_variant_wheels && !files.yanked && !files.version.is_prerelease() &&
          !(files.version == listing->versions[std::size_t(*index)].version)) {
        versions.emplace_back(listing, files.version);
      }
    }
  }
  (void)provider.prefetch_variants(versions);
}

}  // namespace

// The preferences of one target: the existing lockfile's choice for this target, else the
// version an earlier target chose, else the existing lockfile's choice for any target — each
// kept only when it does not give this target a lower wheel class than its best version.
Result<std::vector<std::pair<Package, int>>> preferences(
    PythonProvider& provider, const TargetContext& target,
    const std::map<std::string, std::string>& earlier, const ResolveOptions& options) {
  std::map<std::string, Wanted> wanted;
  if (options.previous && !options.upgrade_all) {
    for (const LockedPackage& package : options.previous->packages) {
      if (options.upgrade_packages.count(package.name)) continue;
      if (package.targets.count(target.name)) {
        wanted[package.name.str()] = {package.version, false};
      }
    }
  }
  for (const auto& [name, version] : earlier) wanted.emplace(name, Wanted{version, true});
  if (options.previous && !options.upgrade_all) {
    for (const LockedPackage& package : options.previous->packages) {
      // The project itself is never a dependency to list from an index (asking for it would
      // reach the default index, PyPI, for a name that is only ours).
      if (package.is_project) continue;
      if (!options.upgrade_packages.count(package.name)) {
        wanted.emplace(package.name.str(), Wanted{package.version, false});
      }
    }
  }
  std::vector<std::string> names;
  for (const auto& [name, want] : wanted) names.push_back(name);
  provider.prefetch_packages(names);  // the listings below, as one parallel batch
  prefetch_preferred_variants(provider, wanted);
  std::vector<std::pair<Package, int>> preferred;
  for (const auto& [name, want] : wanted) {
    auto node = provider.package_node(name);
    if (!node) continue;
    std::optional<int> index = version_index(provider, *node, want);
    if (!index) continue;
    if (inherited_prerelease(provider, *node, *index, want)) continue;
    Result<const WheelChoice*> choice = provider.wheel_choice(*node, *index);
    if (!choice) continue;  // as above: the solver reports it if it needs this version
    auto preferred_class = (*choice)->best_class();
    if (!preferred_class) continue;
    // The best class any stable version offers this target: a preference of a lower class
    // (a CPU build where a GPU build exists) would cost the target its hardware.
    const ProjectListing* listing = provider.listing(*node);
    bool lower = false, unknown = false;
    for (int i = int(listing->versions.size()) - 1; i >= 0 && !lower; --i) {
      if (listing->versions[std::size_t(i)].version.is_prerelease() ||
          listing->versions[std::size_t(i)].yanked) {
        continue;
      }
      if (!listing->versions[std::size_t(i)].has_variant_wheels &&
          *preferred_class == targets::VariantClass::kNonVariant) {
        continue;  // both non-variant: same class, nothing to compare
      }
      Result<const WheelChoice*> other = provider.wheel_choice(*node, i);
      if (!other) {
        unknown = true;  // cannot tell: no preference rather than a wrong one
        break;
      }
      auto other_class = (*other)->best_class();
      if (other_class && int(*other_class) < int(*preferred_class)) lower = true;
    }
    if (!lower && !unknown) preferred.emplace_back(*node, *index);
  }
  return preferred;
}

}  // namespace wv::lock
