// Target selection at install time (DESIGN.md §1 "target selection"): given the lockfile and
// the LIVE host profile (python facts from the environment's interpreter), keep the targets
// whose platform the host satisfies and whose whole closure has a kept wheel installable here
// (tags of the live host, variants under the live provider output), pick the best, and within
// it each package's live-best kept wheel. Every other target gets the first fact that rules it
// out. Pure: no I/O. Also renders the `wvlock targets` table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"
#include "targets/providers.h"

namespace wv::install {

/// What the user asked of selection.
struct SelectOptions {
  /// `--target NAME`: use this target (still verified unless `verify` is false).
  std::string forced_target;
  /// false = `--no-verify-target`: a forced target is taken even when it does not fit; a package
  /// with no installable kept wheel then gets its lock-time first choice.
  bool verify = true;
  std::vector<std::string> extras;
  std::vector<std::string> groups;
  targets::ProviderOptions providers;
};

/// The verdict of one declared target.
enum class TargetStatus { kSelected, kFits, kRuledOut };

struct TargetVerdict {
  std::string name;
  TargetStatus status = TargetStatus::kRuledOut;
  /// For kRuledOut: the first fact that rules it out (`GPU compute capability 8.6,
  /// flash-attn 2.8.3 needs nvidia :: sm_arch :: 90_real`); for the others: a short note
  /// (`lock-time choices fit unchanged`, `3 wheels differ from lock time`).
  std::string reason;
  /// True when every package's live-best wheel is the one chosen at lock time.
  bool unchanged = false;
};

/// The wheel chosen for one package of the selected target.
struct ChosenWheel {
  const lock::LockedPackage* package = nullptr;
  /// nullptr: the target builds the package from its source (sdist, directory, vcs, archive).
  const lock::LockedFile* file = nullptr;
  std::string variant_label;  ///< "" for a non-variant wheel
  /// True when this is the wheel the lock chose first for the target.
  bool lock_time_choice = false;
};

struct Selection {
  std::string target;                 ///< the selected target
  std::vector<ChosenWheel> wheels;    ///< one per package of its closure, sorted by name
  std::vector<TargetVerdict> verdicts;  ///< every declared target, in declared order
  std::string host_summary;           ///< targets::describe(live)
};

/// Selects a target and its wheels. An error (kUnavailable) when no target fits, or the
/// forced one does not (unless !verify); its notes list each target's reason.
Result<Selection> select_target(const lock::Lockfile& lockfile, const targets::HostProfile& live,
                                const SelectOptions& options = {});

/// Every target's verdict without failing (for `wvlock targets`); the best fitting one, if
/// any, is kSelected.
std::vector<TargetVerdict> evaluate_targets(const lock::Lockfile& lockfile,
                                            const targets::HostProfile& live,
                                            const SelectOptions& options = {});

/// The `wvlock targets` table: one row per target (`name  platform  status  reason`), the
/// selected one marked with `*`, preceded by a line describing the host.
std::string render_targets_table(const lock::Lockfile& lockfile,
                                 const std::vector<TargetVerdict>& verdicts,
                                 const targets::HostProfile& live);

}  // namespace wv::install
