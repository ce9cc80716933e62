// One target's solve: the PubGrub solver instantiated for PythonProvider (the only translation
// unit that includes solver/state_impl.h), and its failure explained in Python words.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "lock/python_provider.h"
#include "solver/solve.h"

namespace wv::lock {

using PythonSolution = solver::Solution<PythonProvider::Package, int>;

/// Why a target has no resolution.
struct Unsolvable {
  std::string explanation;  ///< the PubGrub derivation in Python words
  /// Packages (normalised names) the derivation rules out because a version has no file this
  /// target can install (no fitting wheel, no source), though the package exists.
  std::vector<std::string> without_installable_file;
  /// Every package (normalised name) the derivation names: what the failure is about, for the
  /// hints that follow it (a pinned index, an explicit index, a misspelt name).
  std::set<std::string> named_packages;
};

/// Solves from the project root; `preferred` versions are tried first. A no-solution outcome
/// comes back explained; a provider failure as its Error, and `max_steps` (0: unbounded)
/// reached as the solver-steps limit error naming `target_name`.
Result<std::variant<PythonSolution, Unsolvable>> solve_target(
    PythonProvider& provider, const std::vector<std::pair<PythonProvider::Package, int>>& preferred,
    std::string_view target_name, std::uint64_t max_steps);

}  // namespace wv::lock
