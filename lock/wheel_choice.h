// Which wheels of one package version a target would install (DESIGN.md §1, "resolution of a
// target"), judged by targets::judge_wheel — the judge install uses too: tags compatible with
// the target, variant compatible with its provider output, best by PEP 825 order (variants,
// then null, then non-variant), then tag priority, then build tag.
// When none fits, the reason names the target and the first fact that failed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "lock/target_context.h"
#include "src/pkg/source.h"
#include "src/pkg/wheel_filename.h"
#include "targets/match.h"

namespace wv::lock {

struct RankedWheel {
  const pkg::Distribution* file = nullptr;
  pkg::WheelFilename filename;
  /// targets::judge_wheel's rank (for other_variants: the tag rank only).
  targets::WheelRank rank;
};

struct WheelChoice {
  /// Tag- and variant-compatible wheels, best first. Empty when the version is unusable.
  std::vector<RankedWheel> compatible;
  /// Tag-compatible variant wheels whose variant the declared target does not support: kept in
  /// the lockfile so another host of the same platform (another GPU) can pick one.
  std::vector<RankedWheel> other_variants;
  /// Why `compatible` is empty: "no wheel for target h100: every torch 2.9.0 wheel needs ...".
  std::string unavailable_reason;
  /// When no wheel fits: the sdist or source tree the target builds at install (uv's rule:
  /// a fitting wheel always wins over building). nullptr when there is none.
  const pkg::Distribution* source = nullptr;

  const RankedWheel* best() const { return compatible.empty() ? nullptr : &compatible.front(); }
  /// The file whose metadata decides the version: the best wheel, else the source.
  const pkg::Distribution* chosen_file() const { return best() ? best()->file : source; }
  /// The class of the best wheel (variant > null > non-variant); nullopt when unusable.
  std::optional<targets::VariantClass> best_class() const;
};

/// Compares two compatible wheels: negative when `a` is preferred (targets::compare_wheel_ranks,
/// then the file name, so the order is total).
int compare_ranked_wheels(const RankedWheel& a, const RankedWheel& b);

/// Ranks the wheels of one version for `target`. `variants` is the version's merged variant
/// metadata (nullptr when the version has no variant wheels); an error there makes every
/// variant wheel of the version unusable, with the error as the reason.
WheelChoice choose_wheels(const TargetContext& target, std::string_view package,
                          std::string_view version, const std::vector<pkg::Distribution>& wheels,
                          const Result<pkg::VariantsMetadata>* variants);

/// The wheel of a version closest to `wanted` (same architecture, then C library or OS family,
/// then interpreter), for a failure's message, with what it would take (": it needs glibc
/// 2.28, ...") when only the target's declared glibc or macOS version stands in the way.
/// `wheels` is not empty.
struct NearMiss {
  const pkg::Distribution* file = nullptr;
  std::string needs;
};
NearMiss closest_wheel(const std::vector<pkg::Distribution>& wheels, const pkg::Tag& wanted);

/// The source a target builds when no wheel of the version fits: a source tree first (a path
/// or git source lists only that), else the first `.tar.gz` sdist, else the first sdist.
/// nullptr when `sdists` is empty.
const pkg::Distribution* choose_source(const std::vector<pkg::Distribution>& sdists);

}  // namespace wv::lock
