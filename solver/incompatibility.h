// Incompatibility: a set of terms, at most one per package, that must not all be true, with its
// cause: the root, "no versions", a dependency, "unavailable" (a provider reason) or derived from
// two earlier incompatibilities by conflict resolution (dart-lang/pub doc/solver.md
// "Incompatibility"; pubgrub-rs `internal/incompatibility.rs`; reference §1.1, §1.4, §1.7).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "solver/arena.h"
#include "solver/term.h"

namespace wv::solver {

/// Why an incompatibility holds.
enum class CauseKind : unsigned char {
  kNotRoot,      ///< {not root ==v}: the root version must be selected.
  kNoVersions,   ///< {p ∈ S}: the provider has no version of p in S.
  kUnavailable,  ///< {p ∈ S}: versions in S cannot be used; the provider said why.
  kDependency,   ///< {p ∈ S, not q ∈ T}: versions of p in S depend on q ∈ T.
  kDerived,      ///< Derived from two incompatibilities by the resolution rule.
};

/// Which of a partial solution's relations holds with an incompatibility.
enum class IncompatibilityRelation : unsigned char {
  kSatisfied,        ///< Every term is satisfied: a conflict.
  kContradicted,     ///< At least one term is contradicted: nothing to learn.
  kAlmostSatisfied,  ///< All terms but one satisfied, that one inconclusive.
  kInconclusive,
};

/// An incompatibility over interned packages. Plain data: the State owns the logic.
template <VersionSet VS>
struct Incompatibility {
  using TermList = std::vector<std::pair<PackageId, Term<VS>>>;

  TermList terms;  ///< At most one term per package.
  CauseKind kind = CauseKind::kDerived;
  /// kDependency: the dependency package (kept even when its term is dropped because the
  /// dependency set is empty, so the report can still name it).
  PackageId dependency = kNoId;
  /// kDependency with an empty dependency set: that set, for the report.
  VS dependency_set{};
  /// kDerived: the two causes. kUnavailable: cause1 indexes the State's reasons.
  IncompatibilityId cause1 = kNoId;
  IncompatibilityId cause2 = kNoId;
  /// Decision level at which the partial solution was seen to contradict this incompatibility,
  /// kNoId when unknown; valid until a backtrack below that level (pubgrub-rs contradiction
  /// cache, reference §1.8).
  DecisionLevel contradicted_at = kNoId;

  /// The term for `package`, or nullptr.
  const Term<VS>* get(PackageId package) const {
    for (const auto& [p, t] : terms) {
      if (p == package) return &t;
    }
    return nullptr;
  }
};

}  // namespace wv::solver
