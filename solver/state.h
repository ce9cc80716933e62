// State<P, VS, M>: the PubGrub algorithm state — incompatibility store and per-package index,
// the partial solution, unit propagation, conflict resolution with backjumping, and the
// derivation tree of a failure (dart-lang/pub doc/solver.md "Unit Propagation", "Conflict
// Resolution"; pubgrub-rs `internal/core.rs`; reference §1.2–§1.4, §1.7–§1.8).
//
// The loop that drives it against a provider is solve() (solver/solve.h); State is public so a
// caller (lock/) can drive the loop itself. Template bodies are in solver/state_impl.h, included
// only by the translation units that instantiate them.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solver/arena.h"
#include "solver/incompatibility.h"
#include "solver/partial_solution.h"
#include "solver/provider.h"
#include "solver/report.h"

namespace wv::solver {

/// The solver's state for one solve.
template <class P, VersionSet VS, class M>
class State {
 public:
  using Version = typename VS::Version;
  using Tree = DerivationTree<P, VS, M>;

  /// Starts a solve of `root` at `root_version`: adds {not root ==root_version}.
  State(const P& root, const Version& root_version);

  /// The id of `package`, interning it.
  PackageId intern(const P& package);
  /// The package of `id`.
  const P& package(PackageId id) const { return packages_[id]; }
  /// The root package's id (always 0).
  PackageId root() const { return 0; }

  /// Runs unit propagation from `package` (and conflict resolution when a conflict appears).
  /// Returns kNoId, or the id of the terminal incompatibility when version solving failed.
  IncompatibilityId unit_propagation(PackageId package);

  /// Cached priorities, kept by the caller of pick_package (one per package).
  template <class Priority>
  struct PriorityCache {
    struct Entry {
      std::uint32_t epoch = kNoId;
      std::uint32_t stats_generation = kNoId;
      bool valid = false;
      VS range{};  // the range the priority was computed for
      Priority priority{};
    };
    std::vector<Entry> entries;
  };

  /// The highest-priority package with a positive derivation and no decision, or kNoId when the
  /// solution is complete; ties go to the package interned first (breadth-first).
  /// `priority(package_id, range, stats)` is cached until the package's range or statistics
  /// change.
  template <class Priority, class F>
  PackageId pick_package(PriorityCache<Priority>& cache, F&& priority);

  /// The positive range of a potential package (the intersection of its assignments).
  const VS& range(PackageId p) const { return solution_.term(p)->set(); }

  /// Adds {p ∈ set}: no version of p in `set` exists.
  IncompatibilityId add_no_versions(PackageId p, VS set);
  /// Adds {p ∈ set}: the versions in `set` cannot be used, because of `reason`.
  IncompatibilityId add_unavailable(PackageId p, VS set, M reason);
  /// Adds {p ∈ applies_to, not q ∈ T} for each (q, T) of `constraints` and returns the range
  /// [first, last) of new ids (constraints on the same package are intersected first).
  std::pair<IncompatibilityId, IncompatibilityId> add_dependencies(
      PackageId p, const VS& applies_to, const std::vector<std::pair<P, VS>>& constraints);

  /// Decides `version` of `p` unless one of the incompatibilities [first, last) would then be
  /// satisfied (only checked after a first backtrack, like pubgrub-rs). Returns whether the
  /// decision was made.
  bool try_decide(PackageId p, const Version& version, IncompatibilityId first,
                  IncompatibilityId last);
  /// Decides `version` of `p` without checks (its dependencies were added before).
  void decide(PackageId p, const Version& version) { solution_.add_decision(p, version); }

  /// True when the dependencies of (p, version) were added already in this solve.
  bool dependencies_known(PackageId p, const Version& version) const;
  /// Remembers that the dependencies of (p, version) were added.
  void set_dependencies_known(PackageId p, const Version& version);

  /// The decisions, root first.
  std::vector<std::pair<P, Version>> solution() const;
  /// The derivation tree proving that `terminal` (from unit_propagation) holds.
  Tree derivation_tree(IncompatibilityId terminal) const;

  /// Statistics of `p` (conflicts it took part in).
  const PackageStatistics& statistics(PackageId p) const { return stats_[p]; }
  /// The incompatibility with id `id`.
  const Incompatibility<VS>& incompatibility(IncompatibilityId id) const { return store_[id]; }
  /// Number of incompatibilities learned or added.
  std::size_t incompatibility_count() const { return store_.size(); }
  /// Number of conflicts resolved so far.
  std::size_t conflict_count() const { return conflicts_; }

 private:
  IncompatibilityId add_incompatibility(Incompatibility<VS>&& incompat);
  // Adds an external fact, merged with an earlier one of the same shape when there is one
  // (pubgrub-rs merge_incompatibility): a dependency of p on the same set of q, or p
  // unavailable for the same reason. The earlier fact stays in the store (derivations may
  // name it) but leaves the per-package lists: the merged one covers it.
  IncompatibilityId add_merged(Incompatibility<VS>&& incompat);
  // Whether `a` and `b` say the same thing of their first package's versions.
  bool same_fact(const Incompatibility<VS>& a, const Incompatibility<VS>& b) const;
  // Returns the learned incompatibility (almost satisfied after backjumping) and sets
  // *package to its unsatisfied package; or returns the terminal incompatibility with
  // *package = kNoId.
  IncompatibilityId conflict_resolution(IncompatibilityId conflict, PackageId* package);
  Incompatibility<VS> prior_cause(IncompatibilityId incompat, IncompatibilityId satisfier_cause,
                                  PackageId package) const;
  bool is_terminal(const Incompatibility<VS>& incompat) const;
  void backtrack(DecisionLevel level);
  void mark_contradicted(IncompatibilityId id);
  void record_conflict(const Incompatibility<VS>& learned, PackageId affected);

  Interner<P> packages_;
  Version root_version_;
  std::vector<Incompatibility<VS>> store_;
  std::vector<std::vector<IncompatibilityId>> by_package_;
  std::vector<M> reasons_;
  PartialSolution<VS> solution_;
  std::vector<PackageStatistics> stats_;
  std::vector<std::vector<Version>> known_dependencies_;
  std::vector<IncompatibilityId> contradicted_;  // ids with a contradiction cache entry
  std::vector<PackageId> changed_;               // unit propagation work list
  std::vector<std::uint32_t> stats_generation_;  // bumped when a package's statistics change
  // Mergeable external facts by (package, dependency or kNoId for "unavailable").
  std::unordered_map<std::uint64_t, std::vector<IncompatibilityId>> mergeable_;
  std::size_t conflicts_ = 0;
};

}  // namespace wv::solver
