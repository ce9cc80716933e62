// solve(): PubGrub's main loop against a DependencyProvider — unit propagation, then decision
// making, until every required package has a version or the root is proven unsatisfiable
// (dart-lang/pub doc/solver.md "The Algorithm", "Decision Making"; reference §1.2, §1.5).
// The result is a value: a Solution, a NoSolution with its derivation tree, or the provider's
// own failure. Cheap to include; the body is in solver/state_impl.h, included only by the
// translation unit that instantiates solve() for a provider type.
#pragma once

#include <cstddef>
#include <utility>
#include <variant>
#include <vector>

#include "solver/provider.h"
#include "solver/report.h"

namespace wv::solver {

/// A complete selection: every package decided, root first, in decision order.
template <class P, class V>
struct Solution {
  std::vector<std::pair<P, V>> packages;

  /// The version chosen for `package`, or nullptr.
  const V* find(const P& package) const {
    for (const auto& [p, v] : packages) {
      if (p == package) return &v;
    }
    return nullptr;
  }
};

/// The root cannot be selected; `tree` says why (print it with report()).
template <class P, VersionSet VS, class M>
struct NoSolution {
  DerivationTree<P, VS, M> tree;
};

/// The provider failed; the solve stopped.
template <class E>
struct ProviderFailure {
  E error;
};

/// Counters of one solve (for benchmarks and logs).
struct SolveStatistics {
  std::size_t decisions = 0;           ///< versions decided (including re-decisions)
  std::size_t conflicts = 0;           ///< conflicts resolved
  std::size_t incompatibilities = 0;   ///< incompatibilities added or learned
  std::size_t dependency_queries = 0;  ///< get_dependencies calls
};

/// Inputs of a solve besides the provider and root.
template <class P, class V>
struct SolveOptions {
  /// When set, filled with the solve's counters.
  SolveStatistics* statistics = nullptr;
  /// Versions to try first when they are in range and the provider has them (an earlier lock,
  /// an earlier target's choice): the solver asks the provider for exactly that version first.
  std::vector<std::pair<P, V>> preferred;
  /// 0: unbounded. Otherwise the solve stops with StepLimitReached once it has taken this many
  /// steps (versions tried plus conflicts resolved): a bound on work that does not depend on the
  /// machine's speed, so the same input stops at the same place everywhere.
  std::size_t max_steps = 0;
};

/// The solve took options.max_steps steps without finishing.
struct StepLimitReached {
  std::size_t steps = 0;
  SolveStatistics statistics;
};

/// The outcome of solve() for provider type D.
template <DependencyProvider D>
using SolveResult =
    std::variant<Solution<typename D::Package, typename D::Set::Version>,
                 NoSolution<typename D::Package, typename D::Set, typename D::Reason>,
                 ProviderFailure<typename D::Error>, StepLimitReached>;

/// Finds versions for `root` at `root_version` and everything it transitively depends on.
template <DependencyProvider D>
SolveResult<D> solve(
    D& provider, const typename D::Package& root, const typename D::Set::Version& root_version,
    const SolveOptions<typename D::Package, typename D::Set::Version>& options = {});

}  // namespace wv::solver
