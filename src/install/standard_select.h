// Selection by PEP 751's installation rules, for a lock that declares no wvlock targets:
// another tool's pylock.toml (uv's `export`, `pip lock`, the PEP's own example) or one of our
// `wvlock export`s. The steps are the PEP's ("Installation"), in its order, and agree with
// packaging's `Pylock.select()`: lock-version (checked by the reader), requires-python and
// environments against this interpreter, each package's marker with the `extras` and
// `dependency_groups` sets, one entry per name, then per package the wheel whose tags (and,
// for PEP 825 variant wheels, whose variant) fit best by targets::judge_wheel, the judge target
// selection uses, else its sdist; vcs, directory and archive entries are built. The result is
// the TargetChoice target selection gives (no target), so the rest of sync is unchanged. Pure.
#pragma once

#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/install/select.h"
#include "lock/lockfile.h"
#include "src/pkg/marker_environment.h"
#include "src/pkg/tags.h"
#include "targets/host_profile.h"

namespace wv::install {

/// True when `lockfile` is installed by the standard's rules: it declares no wvlock targets.
bool is_standard_lock(const lock::Lockfile& lockfile);

/// What the standard selection is evaluated against: the marker environment and the ordered
/// tags of `live` (the detected host with the environment's interpreter). An error when the
/// host lacks a fact they need.
struct StandardEnvironment {
  pkg::MarkerEnvironment markers;
  std::vector<pkg::Tag> tags;
};
Result<StandardEnvironment> standard_environment(const targets::HostProfile& live);

/// Selects what to install from a standard lock for `live`, with `options.extras` and
/// `options.groups` (after apply_install_request: the lock's default-groups unless told
/// otherwise) as the PEP 751 `extras` and `dependency_groups` sets. kUnavailable (exit 1) when
/// the lock's requires-python or environments exclude this interpreter, a selected package's
/// requires-python does, or a wheel-only package has no wheel for these tags; kInvalidInput
/// (exit 2) when two entries of one name are selected, naming both. The project entry of one
/// of our exports (`is_project`) is left to sync, which adds it as it does for a target.
Result<TargetChoice> select_standard(const lock::Lockfile& lockfile,
                                     const targets::HostProfile& live,
                                     const SelectOptions& options);

/// `wvlock targets` on a standard lock: each selected package and the file it installs (or
/// that it is built), as text or as docs/json.md's `wvlock targets --json` standard shape.
std::string render_standard_selection(const TargetChoice& selection, bool json);

}  // namespace wv::install
