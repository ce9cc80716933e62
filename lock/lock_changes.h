// What a new lockfile changes against the one it replaces, per package name across the lock
// (uv's "Updated numpy v1.26.4 -> v2.2.6"): what `wvlock lock` prints and its --json lists.
#pragma once

#include <string>
#include <vector>

#include "lock/lockfile.h"

namespace wv::lock {

enum class ChangeAction { kAdded, kRemoved, kUpgraded, kDowngraded };

/// "added", "removed", "upgraded", "downgraded".
const char* to_string(ChangeAction action);

struct PackageChange {
  pkg::PackageName name;
  ChangeAction action = ChangeAction::kAdded;
  /// The versions before, oldest first (several when targets lock several); empty for an
  /// added package.
  std::vector<std::string> from;
  std::vector<std::string> to;  ///< the same after; empty for a removed package

  friend bool operator==(const PackageChange&, const PackageChange&) = default;
};

/// One change per package name whose versions differ from `before` (nullptr: no lockfile yet,
/// so every package is added) to `after`, by name. Moved versions are an upgrade when the
/// newest version after is newer (PEP 440 order) than the newest before, or equal and the
/// oldest after is newer; otherwise a downgrade. The project's own entry is not a change.
std::vector<PackageChange> compare_lockfiles(const Lockfile* before, const Lockfile& after);

}  // namespace wv::lock
