// The bridge between the Python world and the generic solver, for one target. A solver package
// is a small id naming the project root, a project extra or dependency group, a package, or a
// package extra (a proxy pinned to its base's version); a solver version is an index into the
// package's versions (ascending), so a version set is a union of index intervals computed by
// evaluating PEP 440 specifiers on real versions — exact, with no range translation to get
// wrong. Each version is judged by the one wheel the target would install (lock/wheel_choice.h)
// and its dependencies come from that wheel's METADATA.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "src/base/result.h"
#include "lock/catalog.h"
#include "lock/project_requirements.h"
#include "lock/target_context.h"
#include "lock/wheel_choice.h"
#include "src/pkg/specifier.h"
#include "solver/provider.h"
#include "solver/ranges.h"

namespace wv::lock {

enum class NodeKind : std::uint8_t { kRoot, kProjectExtra, kProjectGroup, kPackage, kPackageExtra };

/// What a solver package id stands for.
struct Node {
  NodeKind kind = NodeKind::kRoot;
  std::string name;   ///< package name (normalised), or the project extra / group name
  std::string extra;  ///< kPackageExtra: the extra
};

/// How pre-release candidates take part in choosing a version (uv's `PrereleaseSelection`).
/// Pre-releases always stay in the version sets the solver reasons about, so every learned
/// incompatibility stays true; the selection only orders the candidates.
enum class PrereleaseSelection : std::uint8_t {
  kDisallow,      ///< never a pre-release
  kAllow,         ///< the newest version, pre-release or not
  kPreferStable,  ///< the newest stable version; a pre-release only when no stable is left
};

/// One dependency of a decided version, as the lockfile records it.
struct DependencyEdge {
  std::uint32_t node = 0;
  solver::Ranges<int> set;
  /// The specifier the requirements wrote (intersected when several name the node), for the
  /// report of a requirement no listed version satisfies.
  pkg::SpecifierSet specifier;
};

/// What the provider learnt about one (package, version) it was asked about.
struct VersionDecision {
  WheelChoice wheels;                ///< kPackage only
  std::vector<DependencyEdge> edges; ///< constraints handed to the solver
};

class PythonProvider {
 public:
  /// Walks ahead of the solver on this target's rules (lock/lookahead.h).
  friend class Lookahead;

  using Package = std::uint32_t;
  using Set = solver::Ranges<int>;
  using Reason = std::string;
  using Error = wv::Error;
  /// (conflict count, direct dependency of the project, fewer versions in range, earlier seen)
  using Priority = std::tuple<std::uint32_t, bool, std::int64_t, std::int64_t>;

  PythonProvider(const ProjectRequirements& project, const TargetContext& target,
                 Catalog& catalog);

  Priority prioritize(Package package, const Set& range, const solver::PackageStatistics& stats);
  solver::ProviderResult<std::optional<int>, Error> choose_version(Package package,
                                                                   const Set& range);
  solver::ProviderResult<solver::Dependencies<Package, Set, Reason>, Error> get_dependencies(
      Package package, int version);

  static constexpr Package kRoot = 0;
  const Node& node(Package package) const { return nodes_[package]; }
  std::size_t node_count() const { return nodes_.size(); }
  /// The listing behind a package or package-extra node (nullptr for project nodes).
  const ProjectListing* listing(Package package) const;
  const VersionDecision* decision(Package package, int version) const;
  /// The node of package `name` (kPackage), creating it; an error when `name` is invalid.
  Result<Package> package_node(std::string_view name);
  /// A version set rendered as the user would write it, over the versions that are listed:
  /// each run of adjacent listed versions as its tightest range ("==2.9.0", ">=2.8.0,<=2.9.0",
  /// "<=1.26.4 | >=2.3.3").
  std::string set_text(Package package, const Set& set) const;
  std::string package_text(Package package) const;
  /// What exists of a package whose set holds no listed version: "only numpy 1.26.4, 2.2.6,
  /// 2.3.3 are available" (a long list abbreviated), or the source's words when no index
  /// knows the project.
  std::string available_text(Package package) const;
  /// The requirement, as written, that versions `set` of `parent` make on `dependency`:
  /// "numpy>=9" (several different ones joined with " or ").
  std::string requirement_text(Package parent, const Set& set, Package dependency) const;
  /// Whether a version of `package` in `set` was ruled out for lack of any file this target
  /// can install (no compatible wheel and no source), as opposed to its Requires-Python or
  /// unreadable metadata.
  bool lacks_installable_file(Package package, const Set& set) const;

  /// The wheels of version index `version` of package node `base` ranked for this target
  /// (computed once). An error when the package's listing cannot be read.
  Result<const WheelChoice*> wheel_choice(Package base, int version);
  /// The index of `version` in the listing of `base`, or nullopt when it is not listed.
  Result<std::optional<int>> find_version(Package base, std::string_view version);
  /// The requirements (normalised text, sorted) that apply to `wheel` of `base` at `version`
  /// for this target with no extra active: two wheels with equal lists have the same
  /// dependencies here.
  Result<std::vector<std::string>> wheel_requirements(Package base, int version,
                                                      const RankedWheel& wheel);
  /// Reads the listings of these packages (normalised names) as one batch (a prefetch).
  void prefetch_packages(const std::vector<std::string>& names);
  /// Reads the variants files of these versions as one batch (a prefetch).
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<const ProjectListing*, pkg::Version>>& versions) {
    return catalog_.prefetch_variants(versions);
  }
  /// Reads the METADATA of these wheels as one batch, as wheel_requirements() would one by one.
  void read_metadata(const std::vector<const pkg::Distribution*>& wheels) {
    catalog_.read_metadata(wheels);
  }
  /// How pre-releases of package `name` (normalised) are chosen under the project's mode.
  PrereleaseSelection prerelease_selection(const std::string& name) const;

 private:
  Package intern(NodeKind kind, std::string name, std::string extra);
  Result<const ProjectListing*> listing_for(Package package);
  /// The pinned index (or direct source key) package `name` is listed from; "" for the chain.
  std::string pinned_for(const pkg::PackageName& name) const;
  /// The version choose_version() takes for `name` in `range`, by the pre-release rule.
  std::optional<int> candidate(const std::string& name, const ProjectListing& listing,
                               const Set& range) const;
  /// Prefetch (lock/catalog.h; changes no answer): the listings `requirements` name, and,
  /// from `edges`, the lookahead of lock/lookahead.h for this target.
  void prefetch_listings_of(const std::vector<const pkg::Requirement*>& requirements);
  /// The package `text` names with the index it is pinned to; nullopt when it does not parse.
  std::optional<std::pair<pkg::PackageName, std::string>> pinned_name(std::string_view text) const;
  void prefetch_candidates(const std::vector<DependencyEdge>& edges);
  /// The index set of `listing` that `specifier` admits (yanked versions only when pinned).
  Set set_for(const ProjectListing& listing, const pkg::SpecifierSet& specifier) const;
  Result<void> check_direct_reference(const pkg::Requirement& requirement) const;
  /// Replaces each requirement in `selected` on a package that has overrides by the overrides
  /// whose markers hold here (with `extras` active), as uv does.
  Result<void> apply_overrides(std::vector<const pkg::Requirement*>& selected,
                               std::span<const std::string> extras,
                               const pkg::VariantFacts* variant) const;
  /// `specifier` narrowed by the constraints on `name` whose markers hold in this target.
  Result<pkg::SpecifierSet> constrained(const std::string& name,
                                        const pkg::SpecifierSet& specifier) const;
  /// Turns requirements (markers evaluated for this target) into constraints.
  Result<std::vector<DependencyEdge>> edges_for(const std::vector<const pkg::Requirement*>& reqs);
  Result<bool> applies(const pkg::Requirement& requirement, std::span<const std::string> extras,
                       const pkg::VariantFacts* variant) const;

  const ProjectRequirements& project_;
  const TargetContext& target_;
  Catalog& catalog_;
  std::vector<Node> nodes_;
  std::map<std::tuple<NodeKind, std::string, std::string>, Package> ids_;
  std::vector<const ProjectListing*> listings_;  // by node; nullptr until read
  /// Packages a project requirement names a pre-release for (`explicit` mode only).
  std::set<std::string> explicit_prereleases_;
  /// Yanked versions the project pins exactly (`==`/`===`), by package: PEP 592 lets only an
  /// explicit pin select a yanked file; transitive pins do not.
  std::map<std::string, std::vector<pkg::Version>> allowed_yanked_;
  std::set<std::string> direct_;                  // packages the project names directly
  /// `override-dependencies` and `constraint-dependencies` by normalised package name.
  std::map<std::string, std::vector<const pkg::Requirement*>> overrides_, constraints_;
  std::map<std::pair<Package, int>, VersionDecision> decisions_;
  /// (package name, version, extras) prefetch expanded.
  std::set<std::tuple<std::string, int, std::string>> explored_;
  /// The workspace members as this target locks them: each with the extras the target declares
  /// of those the member declares (ProjectRequirements::workspace_members lists them all).
  std::vector<pkg::Requirement> members_;
};

}  // namespace wv::lock
