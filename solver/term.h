// Term<VS>: a statement "package is selected at a version in S" (positive) or "package is not
// selected at a version in S" (negative, also true when the package is not selected at all),
// with the relation of a term to the intersection of the partial solution's terms
// (dart-lang/pub doc/solver.md "Term"; pubgrub-rs `term.rs`; reference §1.1, §1.7).
#pragma once

#include <utility>

#include "solver/version_set.h"

namespace wv::solver {

/// How a set of assignments relates to a term.
enum class TermRelation : unsigned char { kSatisfied, kContradicted, kInconclusive };

/// A positive or negative term over a version set.
template <VersionSet VS>
class Term {
 public:
  using Version = typename VS::Version;

  /// The negative term over the empty set: true for any selection ("any").
  Term() : positive_(false), set_(VS::empty()) {}
  Term(bool positive, VS set) : positive_(positive), set_(std::move(set)) {}

  /// `package ∈ set`.
  static Term positive(VS set) { return Term(true, std::move(set)); }
  /// `not package ∈ set`.
  static Term negative(VS set) { return Term(false, std::move(set)); }
  /// The term that is always true.
  static Term any() { return Term(false, VS::empty()); }
  /// The term that is never true.
  static Term empty() { return Term(true, VS::empty()); }
  /// `package == v`.
  static Term exact(const Version& v) { return Term(true, VS::singleton(v)); }

  bool is_positive() const { return positive_; }
  bool is_negative() const { return !positive_; }
  /// The version set (of a positive term: the allowed versions; of a negative: the excluded).
  const VS& set() const { return set_; }
  bool is_any() const { return !positive_ && set_.is_empty(); }
  bool is_empty() const { return positive_ && set_.is_empty(); }

  /// True when a selection of `v` makes the term true.
  bool contains(const Version& v) const { return set_.contains(v) == positive_; }

  /// The opposite statement.
  Term negate() const { return Term(!positive_, set_); }

  /// Both statements hold.
  Term intersection(const Term& other) const {
    if (positive_ && other.positive_) return positive(set_.intersection(other.set_));
    if (positive_) return positive(set_.intersection(other.set_.complement()));
    if (other.positive_) return positive(other.set_.intersection(set_.complement()));
    return negative(set_.union_with(other.set_));
  }

  /// Either statement holds.
  Term union_with(const Term& other) const {
    return negate().intersection(other.negate()).negate();
  }

  /// No selection makes both true.
  bool is_disjoint(const Term& other) const {
    if (positive_ && other.positive_) return set_.is_disjoint(other.set_);
    if (positive_) return set_.subset_of(other.set_);
    if (other.positive_) return other.set_.subset_of(set_);
    return false;  // "not selected" satisfies both negative terms
  }

  /// Every selection satisfying this term satisfies `other`.
  bool subset_of(const Term& other) const {
    if (positive_ && other.positive_) return set_.subset_of(other.set_);
    if (positive_) return set_.is_disjoint(other.set_);
    if (other.positive_) return false;  // "not selected" satisfies us but not `other`
    return other.set_.subset_of(set_);
  }

  /// How `assignments` (the intersection of the partial solution's terms for this package)
  /// relates to this term: satisfies it, contradicts it, or neither.
  TermRelation relation_with(const Term& assignments) const {
    if (assignments.subset_of(*this)) return TermRelation::kSatisfied;
    if (assignments.is_disjoint(*this)) return TermRelation::kContradicted;
    return TermRelation::kInconclusive;
  }

  /// True when `assignments` satisfies this term.
  bool satisfied_by(const Term& assignments) const { return assignments.subset_of(*this); }

  friend bool operator==(const Term& a, const Term& b) {
    return a.positive_ == b.positive_ && a.set_ == b.set_;
  }

 private:
  bool positive_;
  VS set_;
};

}  // namespace wv::solver
