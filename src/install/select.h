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

#include "src/base/json_writer.h"
#include "src/base/result.h"
#include "lock/lockfile.h"
#include "src/pkg/name.h"
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
  /// Extras that must be locked by the selected target (`--extra`); its locked extras are
  /// always part of its install (docs/user-guide.md, "Extras belong to targets").
  std::vector<std::string> extras;
  /// The dependency groups installed (after InstallRequest's rules).
  std::vector<std::string> groups;
  /// false = `--only-group`: the project's own dependencies (roots and extras) are left out.
  bool dependencies = true;
  /// `--allow-cpu-fallback` (WVLOCK_ALLOW_CPU_FALLBACK, `cpu-fallback = true`): a GPU host that
  /// no GPU target serves may get a target that declares no GPU, with a warning. Without it
  /// selection refuses (docs/targets.md §6, "Never a silent CPU build").
  bool allow_cpu_fallback = false;
  targets::ProviderOptions providers;
};

/// uv's flags for what `wvlock sync` installs of the selected target.
struct InstallRequest {
  std::vector<pkg::ExtraName> extras;       ///< `--extra`
  /// `--all-extras`: every extra the selected target locks, which its install always has.
  bool all_extras = false;
  std::vector<pkg::ExtraName> groups;       ///< `--group`
  std::vector<pkg::ExtraName> only_groups;  ///< `--only-group`
  std::vector<pkg::ExtraName> no_groups;    ///< `--no-group`
  bool no_dev = false;                   ///< `--no-dev` (= `--no-group dev`, fine without one)
  bool all_groups = false;               ///< `--all-groups`
  bool no_default_groups = false;        ///< `--no-default-groups`
  /// `--only-group` leaves out the project's dependencies and the project itself.
  bool only() const { return !only_groups.empty(); }
};

/// Sets `options.groups`, `options.extras` and `options.dependencies` from `request` and the
/// lock: the lock's `default-groups` unless `--no-default-groups` or `--only-group`, all groups
/// with `--all-groups`, plus `--group`, less `--no-group`/`--no-dev`. An extra or group the
/// project does not declare is an error (kInvalidInput) naming the declared ones.
Result<void> apply_install_request(const lock::Lockfile& lockfile, const InstallRequest& request,
                                   SelectOptions& options);

/// The verdict of one declared target.
enum class TargetStatus { kSelected, kFits, kRuledOut };

/// `selected`, `fits`, `does-not-fit` (the JSON spelling).
std::string_view to_string(TargetStatus status);

/// A package whose live-best kept wheel is not the one the lock chose first for the target.
struct WheelChange {
  std::string name;
  std::string version;
  std::string wheel;            ///< the wheel this host gets
  std::string lock_time_wheel;  ///< the lock's first choice for the target
};

struct TargetVerdict {
  std::string name;
  TargetStatus status = TargetStatus::kRuledOut;
  /// For kRuledOut: the first fact that rules it out (`GPU compute capability 8.6,
  /// flash-attn 2.8.3 needs nvidia :: sm_arch :: 90_real`); for the others: a short note
  /// (`lock-time choices fit unchanged`, `2 packages get another kept wheel than at lock time`).
  std::string reason;
  /// True when every package's live-best wheel is the one chosen at lock time.
  bool unchanged = false;
  /// For a fitting target: each package that gets another kept wheel, by name.
  std::vector<WheelChange> changes;
};

/// `numpy 2.3.3: numpy-…-x86_64_v3.whl (lock time: numpy-…-x86_64_v1.whl)`.
std::string describe(const WheelChange& change);

/// The wheel chosen for one package of the selected target.
struct ChosenWheel {
  const lock::LockedPackage* package = nullptr;
  /// nullptr: the target builds the package from its source (sdist, directory, vcs, archive).
  const lock::LockedFile* file = nullptr;
  std::string variant_label;  ///< "" for a non-variant wheel
  /// True when this is the wheel the lock chose first for the target.
  bool lock_time_choice = false;
};

/// Selection landed on a target that declares no GPU while the host has a GPU of a vendor
/// some target of the lock declares.
struct CpuFallback {
  std::string target;                ///< the GPU-less target selection would take
  std::vector<std::string> vendors;  ///< the host's GPU vendors some target declares (`NVIDIA`)
  /// Each GPU target of those vendors and why it does not serve this host:
  /// `h100: GPU compute capability 10.0, the target is built for 9.0 (...)`.
  std::vector<std::string> reasons;
  /// What to do, as notes: a ready-to-paste target for this hardware, a declaration to
  /// widen where one would serve, and the ways to allow the CPU build.
  std::vector<std::string> fixes;
};

/// What selection chose: the target and one wheel per package of its closure, with every
/// target's verdict (not lock::Selection, the extras and groups an install or export asks for).
struct TargetChoice {
  std::string target;                 ///< the selected target
  std::vector<ChosenWheel> wheels;    ///< one per package of its closure, sorted by name
  std::vector<TargetVerdict> verdicts;  ///< every declared target, in declared order
  std::string host_summary;           ///< targets::describe(live)
  std::vector<std::string> extras;    ///< the extras installed (the target's locked ones)
  std::vector<std::string> groups;    ///< the dependency groups installed
  /// Set when the target is a CPU fallback the options allowed (the caller warns).
  std::optional<CpuFallback> fallback;

  const TargetVerdict* selected_verdict() const;
};

/// The verdict marked kSelected, or nullptr when no target was selected.
const TargetVerdict* selected_verdict(const std::vector<TargetVerdict>& verdicts);

/// Selects a target and its wheels. An error (kUnavailable) when no target fits, or the
/// forced one does not (unless !verify); its notes list each target's reason. Also kUnavailable
/// when a GPU host would get a GPU-less target and the options do not allow the CPU fallback:
/// its notes give each GPU target's reason and the fixes (CpuFallback). A forced target is
/// never a fallback: the user chose it.
Result<TargetChoice> select_target(const lock::Lockfile& lockfile,
                                   const targets::HostProfile& live,
                                   const SelectOptions& options = {});

/// Every target's verdict without failing (for `wvlock targets`); the best fitting one, if
/// any, is kSelected, except a CPU fallback the options do not allow (then it stays kFits).
/// `fallback`, when given, receives the CPU fallback, allowed or not.
std::vector<TargetVerdict> evaluate_targets(const lock::Lockfile& lockfile,
                                            const targets::HostProfile& live,
                                            const SelectOptions& options = {},
                                            std::optional<CpuFallback>* fallback = nullptr);

/// The refusal of a CPU fallback: kUnavailable, the host's GPU in the message, the reasons and
/// fixes as notes.
Error cpu_fallback_error(const CpuFallback& fallback, const targets::HostProfile& live);

/// The `warning:` line of an allowed CPU fallback (without the prefix).
std::string cpu_fallback_warning(const CpuFallback& fallback);

/// `"fallback"` (true when `selected` is the CPU fallback) and `"fallback_reasons"` (each GPU
/// target's reason whenever a CPU fallback was at stake, allowed or refused) of docs/json.md.
void write_fallback_json(JsonWriter& json, const std::optional<CpuFallback>& fallback,
                         const TargetVerdict* selected);

/// The `wvlock targets` table: one row per target (`name  platform  status  reason`), the
/// selected one marked with `*`, each package a fitting target gets another wheel of named
/// below its row, preceded by a line describing the host.
std::string render_targets_table(const lock::Lockfile& lockfile,
                                 const std::vector<TargetVerdict>& verdicts,
                                 const targets::HostProfile& live);

/// A `"wheel_changes"` array of docs/json.md: per package its wheel here and at lock time.
void write_wheel_changes_json(JsonWriter& json, const std::vector<WheelChange>& changes);

/// The `"targets"` array of docs/json.md: per target its name, platform, status, reasons and
/// wheel changes.
void write_verdicts_json(JsonWriter& json, const lock::Lockfile& lockfile,
                         const std::vector<TargetVerdict>& verdicts);

/// The `"host"` object of docs/json.md: the facts selection used (`summary`, and each fact
/// with its source as `wvlock detect --json` gives them).
void write_host_json(JsonWriter& json, const targets::HostProfile& live);

/// `wvlock targets --json` (docs/json.md).
std::string render_targets_json(const lock::Lockfile& lockfile,
                                const std::vector<TargetVerdict>& verdicts,
                                const targets::HostProfile& live,
                                const std::optional<CpuFallback>& fallback = std::nullopt);

}  // namespace wv::install
