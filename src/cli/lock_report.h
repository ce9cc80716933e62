// What `wvlock lock` reports: per target the package count and the hardware or pinned-index
// builds it got, the changes against the previous lock, the failures with the hints that apply
// to them — as text on stderr, or as the `--json` document (docs/json.md).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lock/lock_changes.h"
#include "lock/lockfile.h"
#include "lock/resolve.h"
#include "lock/target_context.h"

namespace wv::cli {

/// A package a target takes as a variant build or from a pinned index.
struct TargetBuild {
  std::string name;
  std::string version;
  std::optional<std::string> variant;  ///< the wheel's variant label (never "null")
  std::optional<std::string> index;    ///< the pinned index's name
};

struct TargetSummary {
  std::string name;
  std::size_t packages = 0;  ///< the target's closure
  std::vector<TargetBuild> builds;
};

/// Each locked target's summary, in declared order.
std::vector<TargetSummary> summarize_targets(const lock::Lockfile& lockfile,
                                             const std::vector<lock::TargetContext>& contexts);

/// "  h100: 41 packages, torch 2.9.0 [cuda12.8], flash-attn 2.8.3 [cu12_sm90]" per target.
void print_summaries(const std::vector<TargetSummary>& summaries);
/// "Updated numpy v1.26.4 -> v2.2.6", "Downgraded ...", "Added ...", "Removed ..." per change.
void print_changes(const std::vector<lock::PackageChange>& changes);
/// Each failure's explanation, then the hint for targets that cannot have a package at all.
void print_failures(const std::vector<lock::TargetFailure>& failures);
/// `warning:` for each name of `--upgrade-package` that neither the previous lock nor the
/// resolution (`reached`) knows.
void warn_unknown_upgrades(const std::set<pkg::PackageName>& upgrade_packages,
                           const lock::Lockfile* previous,
                           const std::vector<std::string>& reached);

/// Everything the `--json` document holds.
struct LockReport {
  std::string lockfile;  ///< its path
  /// written, unchanged, stale (`--check` failing), up-to-date (`--check` passing), failed.
  std::string status;
  std::vector<TargetSummary> targets;
  std::vector<lock::PackageChange> changes;
  std::vector<lock::TargetFailure> failures;
  double elapsed_ms = 0;
};

/// The `wvlock lock --json` document (docs/json.md).
std::string lock_json(const LockReport& report);

}  // namespace wv::cli
