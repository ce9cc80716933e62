// Universal locking (DESIGN.md §1): one solve per declared target, in declared order, each
// preferring the versions earlier targets chose and the versions of the existing lockfile
// (never at the cost of the target's hardware), merged into one Lockfile.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/base/limits.h"
#include "src/base/result.h"
#include "lock/catalog.h"
#include "lock/lockfile.h"
#include "lock/project_requirements.h"
#include "lock/target_context.h"

namespace wv::lock {

struct ResolveOptions {
  /// The lockfile being replaced: its versions are preferred unless upgraded.
  const Lockfile* previous = nullptr;
  bool upgrade_all = false;
  std::set<pkg::PackageName> upgrade_packages;
  /// Turns a listed file's location into the lockfile's `url` or `path` (relative to the
  /// lockfile's folder); the default keeps http(s)/file URLs as `url` and anything else as
  /// `path`.
  std::function<LockedFile(const pkg::Distribution&)> locate;
  /// How a source location is written as a package's `index` (URLs as they are; the CLI writes
  /// local folders relative to the project, so the lockfile is the same on every checkout).
  std::function<std::string(const std::string&)> describe_index;
  /// Lockfile::input_files: the files besides pyproject.toml that the inputs read.
  std::map<std::string, std::string> input_files;
  /// More inputs for `input-hash` (index URLs, find-links): whatever else resolution read.
  std::vector<std::string> extra_inputs;
  /// Solver steps allowed per target (the solver-steps limit, base/limits.h); 0: unbounded.
  std::uint64_t max_solver_steps = limit_value(Limit::kSolverSteps);
};

/// A package the failure names that no index this target asks has, though a named (explicit)
/// index lists it: pinning it there in `[tool.wvlock.sources]` would fix the target.
struct IndexPin {
  std::string package;
  std::string index;
  bool operator==(const IndexPin&) const = default;
};

struct TargetFailure {
  std::string target;
  std::string explanation;  ///< the PubGrub derivation in Python words
  /// Packages the failure rules out because a version offers this target no file it can
  /// install (say, a CUDA-only build on a CPU target), though the package exists.
  std::vector<std::string> without_installable_file;
  /// The pins that would fix it; the CLI prints one `[tool.wvlock.sources]` entry per package
  /// for every target that needs it, not one per target.
  std::vector<IndexPin> index_pins;
};

struct ResolveOutcome {
  std::optional<Lockfile> lockfile;     ///< set when every target resolved
  std::vector<TargetFailure> failures;  ///< one per target that did not
};

/// The fingerprint of everything resolution reads from the project and its targets.
std::string input_hash(const ProjectRequirements& project,
                       const std::vector<TargetContext>& targets,
                       const std::vector<std::string>& extra_inputs);

/// An error (kInvalidInput) naming the first target whose Python the project's requires-python
/// excludes, and what to change; nothing when every target's Python is allowed.
Result<void> check_requires_python(const ProjectRequirements& project,
                                   const std::vector<TargetContext>& targets);

/// Resolves every target. Provider failures (network, I/O) are errors, and so is a target
/// whose Python the project's requires-python excludes; unsatisfiable targets are failures
/// with explanations in the outcome.
Result<ResolveOutcome> resolve_targets(const ProjectRequirements& project,
                                       const std::vector<TargetContext>& targets,
                                       Catalog& catalog, const ResolveOptions& options);

}  // namespace wv::lock
