// What sync installs of a workspace lock (docs/user-guide.md, "Workspaces"): the root's own
// closure, one member's, or every member's. Pure: rewrites an in-memory Lockfile's target roots
// so that the rest of installing needs no notion of members.
#pragma once

#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/name.h"
#include "lock/lockfile.h"

namespace wv::lock {

struct MemberSelection {
  /// `--package NAME`: these members and their dependencies, not the root's.
  std::vector<pkg::PackageName> packages;
  /// `--all-packages`: the root's closure and every member's.
  bool all = false;
  /// `--extra` given with members named: each must be an extra some named member locks. A
  /// member's locked extras (those its target declares in `extras`) are always part of its
  /// install, as the root's are (docs/user-guide.md, "Extras belong to targets").
  std::vector<pkg::ExtraName> extras;
};

/// Rewrites every target's roots to `selection`: with `packages`, the named members' edges
/// (and their locked extras) replace the roots, the root's extras and groups, and the root
/// project's own entry (it is not installed); with `all`, every member's edges join the roots.
/// A name that is no member of the lock is kInvalidInput, naming the members; a name that is
/// the root project keeps the root's selection.
Result<void> select_members(Lockfile& lockfile, const MemberSelection& selection);

}  // namespace wv::lock
