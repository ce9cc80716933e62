// The one judge that locking and installing both call (DESIGN.md §1): which wheels of a
// package version a host profile installs and how they rank (tags, variant under that host's
// provider output, build tag), and whether a declared target fits a live host (platform and
// declared hardware) and how close the fit is. lock/wheel_choice ranks a target's wheels with
// it at lock time; install/select ranks the kept wheels and the targets with it at install.
// docs/targets.md states the rules. Pure: no I/O. Cheap to include.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/pkg/tags.h"
#include "src/pkg/variant.h"
#include "src/pkg/wheel_filename.h"
#include "targets/host_profile.h"
#include "targets/providers.h"
#include "targets/target.h"
#include "targets/variant_ranking.h"

namespace wv::pkg {
class HostTagRanks;  // src/pkg/host_tag_ranks.h
}  // namespace wv::pkg

namespace wv::targets {

// ---- wheels -------------------------------------------------------------------------------

/// The rank of one installable wheel on one host.
struct WheelRank {
  VariantScore variant;
  std::uint32_t tag_rank = 0;  ///< lower is better (the host's tag priority)
  std::optional<pkg::BuildTag> build;
};

/// Negative when `a` is preferred: the variant order (PEP 825: variants, then null, then
/// non-variant wheels), then tag priority, then the higher build tag (none sorts last).
int compare_wheel_ranks(const WheelRank& a, const WheelRank& b);

/// compare_wheel_ranks() without its last resort, the label order: how two wheels chosen for
/// one package by two targets compare in quality. Two targets that each answer a namespace
/// themselves (declared properties) rank their own build first; neither is better.
int compare_wheel_quality(const WheelRank& a, const WheelRank& b);

/// Why a wheel does not install on a host.
enum class WheelProblem {
  kNone,               ///< it installs
  kTags,               ///< no tag of the wheel is in the host's tag list
  kNoVariantMetadata,  ///< a variant label without usable variant metadata
  kVariant,            ///< the variant needs something the host's providers do not report
};

/// The verdict on one wheel for one host.
struct WheelVerdict {
  std::optional<WheelRank> rank;  ///< set when the wheel installs
  WheelProblem problem = WheelProblem::kNone;
  /// For kVariant: the first property that failed and its sentence.
  std::optional<IncompatibleVariant> variant;
  /// For every problem: a sentence about the wheel (without the package subject).
  std::string reason;
};

/// Judges a parsed wheel for a host: `tags` are the host's, `variants` the package version's
/// variant metadata (nullptr when it has none; an error text in `variants_problem` when it is
/// unusable), `supported` the host's provider answers for that metadata (nullptr when none).
WheelVerdict judge_wheel(const pkg::WheelFilename& wheel, const pkg::TagPriority& tags,
                         const pkg::VariantsMetadata* variants,
                         const SupportedVariants* supported,
                         std::string_view variants_problem = "");
/// The same with the host's tags in factored form (install selection: no tag list).
WheelVerdict judge_wheel(const pkg::WheelFilename& wheel, const pkg::HostTagRanks& tags,
                         const pkg::VariantsMetadata* variants,
                         const SupportedVariants* supported,
                         std::string_view variants_problem = "");

// ---- targets ------------------------------------------------------------------------------

/// How closely a fitting target's declared hardware matches the live host; lower is closer.
struct HardwareCloseness {
  /// 0: the target declares hardware the host has (a GPU) and its declaration serves it;
  /// 1: its declaration does not serve the host's GPU but its variant wheels do (set by
  /// install selection); 2: it declares no GPU (CPU).
  int tier = 2;
  /// How far each declaration is from the host, in this order: compute-capability minor
  /// steps, CUDA driver steps, ROCm steps, x86-64 levels below the host's. A kind the target
  /// does not declare counts as kUndeclared (farther than any declaration).
  static constexpr int kUndeclared = 1 << 20;
  std::array<int, 4> distance = {kUndeclared, kUndeclared, kUndeclared, kUndeclared};
};

/// Negative when `a` is the closer fit (a lower tier, then a lexicographically smaller
/// distance).
int compare_closeness(const HardwareCloseness& a, const HardwareCloseness& b);

/// The GPU vendors a target may declare.
enum class GpuVendor { kNvidia, kAmd, kIntel };
inline constexpr GpuVendor kGpuVendors[] = {GpuVendor::kNvidia, GpuVendor::kAmd, GpuVendor::kIntel};

/// `NVIDIA`, `AMD`, `Intel`.
std::string_view to_string(GpuVendor vendor);
/// The variant namespace of the vendor's provider: `nvidia`, `amd`, `intel`.
std::string_view variant_namespace(GpuVendor vendor);
/// Whether a declared profile states hardware of this vendor.
bool declares_gpu(const HostProfile& declared, GpuVendor vendor);
/// Whether the live host has a GPU of this vendor (a device or its driver/ROCm was found).
bool has_gpu(const HostProfile& live, GpuVendor vendor);

/// Whether a declared target fits a live host on the facts alone (wheels aside).
struct TargetFit {
  bool fits = false;
  /// When it does not: the first fact that rules it out, in one line
  /// (`CUDA driver 12.2, the target needs 12.8 or newer`).
  std::string reason;
  /// When it does not only because of the declared hardware of a vendor whose GPU the host
  /// has (the platform fits): that vendor. Variant wheels may then judge for themselves
  /// (docs/targets.md §6).
  std::optional<GpuVendor> gpu_mismatch;
  HardwareCloseness closeness;
};

/// Checks `declared` (a target as the lockfile records it) against `live`: the platform (OS,
/// architecture, libc and its version, macOS version, Python) and the declared hardware:
///   NVIDIA: a live GPU is required, with a CUDA driver at least the declared one, and every
///     live GPU's compute capability served by a declared one under CUDA's binary
///     compatibility (same major, live minor >= declared minor), or at or above a declared
///     range `>=X.Y`;
///   AMD: every live GPU's gfx architecture among the declared ones, ROCm at least the
///     declared one; Intel: every live device IP among the declared ones;
///   x86-64-level: the live level at least the declared one.
/// Declared `properties` need nothing of the host: they are the target's own answer.
TargetFit fit_target(const Target& declared, const HostProfile& live);

/// The live host as one target's providers see it at install: a GPU vendor the target does not
/// declare is absent (a CPU target never installs a CUDA or ROCm build, even on a GPU host,
/// just as it locked none), the vendors it declares are the live host's (an 8.0 target serves
/// an 8.9 GPU with the kept build that fits it best), and its declared `properties` answer for
/// their namespaces.
HostProfile host_for_target(HostProfile live, const Target& declared);

}  // namespace wv::targets
