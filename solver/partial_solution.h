// PartialSolution: the ordered assignments (decisions and derivations) with decision levels, the
// running intersection of each package's terms, backtracking, and the satisfier search of
// conflict resolution (dart-lang/pub doc/solver.md "Partial Solution", "Conflict Resolution";
// pubgrub-rs `internal/partial_solution.rs`; reference §1.1, §1.4, §1.7).
// Included by solver/state.h; the bodies are small, so they stay here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "solver/arena.h"
#include "solver/incompatibility.h"
#include "solver/term.h"

namespace wv::solver {

/// The partial solution. Packages are dense ids; every assignment is appended to one log, whose
/// index is the assignment's global index (unique and ordered among live assignments).
template <VersionSet VS>
class PartialSolution {
 public:
  using Version = typename VS::Version;

  /// A derivation with the intersection of every term of its package up to and including it,
  /// so "earliest assignment that satisfies t" is a binary search (reference §1.7).
  struct Derivation {
    std::uint32_t global_index;
    DecisionLevel level;
    IncompatibilityId cause;
    Term<VS> accumulated;
  };

  /// Where a package's term was first satisfied: the cause (kNoId for a decision), the
  /// global index and the decision level of that assignment.
  struct Satisfier {
    IncompatibilityId cause = kNoId;
    std::uint32_t global_index = 0;
    DecisionLevel level = 0;
  };

  /// Makes room for package ids below `count`.
  void reserve_packages(std::size_t count) {
    if (packages_.size() < count) {
      packages_.resize(count);
      potential_.resize(count, 0);
    }
  }

  /// Number of decisions made so far (the current decision level).
  DecisionLevel current_level() const { return static_cast<DecisionLevel>(decisions_.size()); }
  /// True once conflict resolution has backtracked at least once.
  bool has_backtracked() const { return has_backtracked_; }

  /// The intersection of every assignment for `p`, or nullptr when it has none (the term "any").
  const Term<VS>* term(PackageId p) const {
    if (p >= packages_.size()) return nullptr;
    const PackageAssignments& pa = packages_[p];
    if (pa.decided) return &pa.decision_term;
    if (pa.derivations.empty()) return nullptr;
    return &pa.derivations.back().accumulated;
  }
  /// True when a version of `p` was decided.
  bool is_decided(PackageId p) const { return p < packages_.size() && packages_[p].decided; }
  /// The decided version of `p` (only when is_decided).
  const Version& decided_version(PackageId p) const { return packages_[p].version; }
  /// Counts changes of `p`'s term: priorities cached under an older count are stale.
  std::uint32_t epoch(PackageId p) const { return packages_[p].epoch; }

  /// True when `p` has a positive derivation and no decision: a candidate for decision making.
  bool is_potential(PackageId p) const { return potential_[p] != 0; }
  /// One flag per package (is_potential), for a fast scan.
  const std::vector<unsigned char>& potential_flags() const { return potential_; }

  /// Adds the derivation `not cause[p]` for package `p`.
  void add_derivation(PackageId p, IncompatibilityId cause, const Term<VS>& cause_term) {
    PackageAssignments& pa = packages_[p];
    Term<VS> negated = cause_term.negate();
    Term<VS> accumulated = pa.derivations.empty()
                               ? std::move(negated)
                               : pa.derivations.back().accumulated.intersection(negated);
    pa.derivations.push_back(Derivation{static_cast<std::uint32_t>(log_.size()), current_level(),
                                        cause, std::move(accumulated)});
    ++pa.epoch;
    update_potential(p);
    log_.push_back(p);
  }

  /// Decides version `v` of `p`, opening a new decision level.
  void add_decision(PackageId p, const Version& v) {
    PackageAssignments& pa = packages_[p];
    decisions_.push_back(static_cast<std::uint32_t>(log_.size()));
    pa.decided = true;
    pa.version = v;
    pa.decision_term = Term<VS>::exact(v);
    pa.decision_index = static_cast<std::uint32_t>(log_.size());
    pa.decision_level = current_level();
    ++pa.epoch;
    potential_[p] = 0;
    log_.push_back(p);
  }

  /// Removes every assignment above decision level `level`; calls `touched(p)` once per
  /// removed assignment.
  template <class F>
  void backtrack(DecisionLevel level, F&& touched) {
    has_backtracked_ = true;
    if (level >= current_level()) return;
    std::uint32_t cut = decisions_[level];
    while (log_.size() > cut) {
      PackageId p = log_.back();
      PackageAssignments& pa = packages_[p];
      if (pa.decided && pa.decision_index == log_.size() - 1) {
        pa.decided = false;
      } else {
        pa.derivations.pop_back();
      }
      ++pa.epoch;
      update_potential(p);
      log_.pop_back();
      touched(p);
    }
    decisions_.resize(level);
  }

  /// Relation of the partial solution with `incompat`. For kAlmostSatisfied and
  /// kContradicted, `*which` is the package of the unsatisfied / contradicted term.
  /// `override_package`/`override_term` replace one package's assignments (to test a decision).
  IncompatibilityRelation relation(const Incompatibility<VS>& incompat, PackageId* which,
                                   PackageId override_package = kNoId,
                                   const Term<VS>* override_term = nullptr) const {
    IncompatibilityRelation result = IncompatibilityRelation::kSatisfied;
    for (const auto& [p, t] : incompat.terms) {
      const Term<VS>* assigned = p == override_package ? override_term : term(p);
      // No assignment means the term "any": inconclusive, since incompatibilities never hold
      // the term "any" themselves.
      TermRelation r = assigned ? t.relation_with(*assigned) : TermRelation::kInconclusive;
      if (r == TermRelation::kSatisfied) continue;
      if (r == TermRelation::kContradicted) {
        *which = p;
        return IncompatibilityRelation::kContradicted;
      }
      if (result == IncompatibilityRelation::kAlmostSatisfied) {
        return IncompatibilityRelation::kInconclusive;
      }
      result = IncompatibilityRelation::kAlmostSatisfied;
      *which = p;
    }
    return result;
  }

  /// Decision level of `p`'s decision or last derivation (0 when it has no assignment).
  DecisionLevel level_of(PackageId p) const {
    const PackageAssignments& pa = packages_[p];
    if (pa.decided) return pa.decision_level;
    return pa.derivations.empty() ? 0 : pa.derivations.back().level;
  }

  /// The earliest assignment of `p` after which `p`'s accumulated term is disjoint from
  /// `start` (i.e. satisfies `start`'s negation); falls back to the decision.
  Satisfier satisfier(PackageId p, const Term<VS>& start) const {
    const PackageAssignments& pa = packages_[p];
    auto it = std::partition_point(
        pa.derivations.begin(), pa.derivations.end(),
        [&](const Derivation& d) { return !d.accumulated.is_disjoint(start); });
    if (it != pa.derivations.end()) return Satisfier{it->cause, it->global_index, it->level};
    // Not reached by the derivations: it must be the decision (the caller knows the
    // incompatibility is satisfied).
    return Satisfier{kNoId, pa.decision_index, pa.decision_level};
  }

  /// The decision term of `p` (only when decided).
  const Term<VS>& decision_term(PackageId p) const { return packages_[p].decision_term; }

  /// The decided packages, in decision order.
  template <class F>
  void for_each_decision(F&& f) const {
    for (std::uint32_t index : decisions_) {
      PackageId p = log_[index];
      f(p, packages_[p].version);
    }
  }

 private:
  void update_potential(PackageId p) {
    const PackageAssignments& pa = packages_[p];
    potential_[p] =
        !pa.decided && !pa.derivations.empty() && pa.derivations.back().accumulated.is_positive();
  }

  struct PackageAssignments {
    std::vector<Derivation> derivations;
    bool decided = false;
    Version version{};
    Term<VS> decision_term;
    std::uint32_t decision_index = 0;
    DecisionLevel decision_level = 0;
    std::uint32_t epoch = 0;
  };

  std::vector<PackageAssignments> packages_;
  std::vector<unsigned char> potential_;  // is_potential, per package
  std::vector<PackageId> log_;            // package of each assignment, by global index
  std::vector<std::uint32_t> decisions_;  // global index of each decision
  bool has_backtracked_ = false;
};

}  // namespace wv::solver
