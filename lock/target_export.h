// `wvlock export`'s model: one target of a universal lock as a plain PEP 751 lock, with the
// extras and dependency groups it locked (or a chosen few) and the markers a standard installer
// selects them by (docs/lockfile.md, "Exports").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "lock/lockfile.h"
#include "src/pkg/name.h"

namespace wv::lock {

/// What an export of `target` takes: every extra and dependency group the target locked, or,
/// per kind, only the ones named (`extras`/`groups` set; an empty list takes none). A name the
/// target did not lock is an error (kInvalidInput) that says which ones it did.
Result<Selection> export_selection(const LockedTarget& target,
                                   const std::optional<std::vector<pkg::ExtraName>>& extras,
                                   const std::optional<std::vector<pkg::ExtraName>>& groups);

/// The packages of `target` that `selection` reaches (Lockfile::selected_closure), each with the
/// wheels the target keeps (best first for the target as declared) or, for one it builds, its
/// source; `extras`, `dependency-groups` and `default-groups` narrowed to the selection;
/// `environments` the target's marker; each package's marker from assign_package_markers().
/// No wvlock tables: no targets, no per-target uses, no input hash.
Result<Lockfile> export_target(const Lockfile& lockfile, const LockedTarget& target,
                               const Selection& selection);

}  // namespace wv::lock
