// What a new lockfile changes against the one it replaces, per package name across the lock
// (uv's "Updated numpy v1.26.4 -> v2.2.6"): what `wvlock lock` prints and its --json lists.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lock/lockfile.h"

namespace wv::lock {

enum class ChangeAction { kAdded, kRemoved, kUpgraded, kDowngraded };

/// "added", "removed", "upgraded", "downgraded".
const char* to_string(ChangeAction action);

struct PackageChange {
  std::string name;  ///< normalised
  ChangeAction action = ChangeAction::kAdded;
  std::optional<std::string> from;  ///< the version before; none for an added package
  std::optional<std::string> to;    ///< the version after; none for a removed package

  friend bool operator==(const PackageChange&, const PackageChange&) = default;
};

/// The changes from `before` (nullptr: no lockfile yet, so every package is added) to `after`,
/// by name (removed versions before added ones). A name locked at one version on each side that moved is
/// upgraded or downgraded (PEP 440 order); otherwise each version only one side has is added or
/// removed. The project's own entry is not a change.
std::vector<PackageChange> compare_lockfiles(const Lockfile* before, const Lockfile& after);

}  // namespace wv::lock
