// Variant compatibility and ordering (reference/variants.md §4.2–§4.3): AND across features,
// OR within a feature; PEP 825 ordering with PEP 817's default-priorities feature/property
// overrides when a file carries them; the null variant after every other variant and
// non-variant wheels after all variants. An incompatible variant carries the first property
// that failed and a sentence a user can read. Cheap to include.
#pragma once

#include <compare>
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "src/pkg/variant.h"
#include "targets/providers.h"

namespace wv::targets {

/// One feature's place in the order: (namespace index, feature index, best value index).
struct VariantKey {
  std::size_t namespace_index = 0;
  std::size_t feature_index = 0;
  std::size_t value_index = 0;
  auto operator<=>(const VariantKey&) const = default;
};

/// What kind of wheel a score belongs to; variants first, then null, then non-variant wheels.
enum class VariantClass { kVariant = 0, kNull = 1, kNonVariant = 2 };

/// The rank of one compatible variant label (or of the non-variant group).
struct VariantScore {
  VariantClass kind = VariantClass::kNonVariant;
  /// One key per declared feature, sorted ascending (PEP 825 step 4). Empty for null.
  std::vector<VariantKey> keys;
  std::string label;  ///< "" for non-variant wheels
};

/// Why a variant label does not fit a host.
struct IncompatibleVariant {
  std::string label;
  /// The first property that failed (properties in sorted order; empty when the label itself
  /// is unknown to the metadata).
  pkg::VariantProperty property;
  /// `nvidia :: sm_arch :: 50_real` is not supported: ... ; readable on its own.
  std::string reason;
};

/// A label either fits (with its score) or does not (with the reason).
using VariantMatch = std::variant<VariantScore, IncompatibleVariant>;

/// The score of non-variant wheels (they sort after every variant, null included).
VariantScore non_variant_score();

/// Checks `label` of `metadata` against `supported` and scores it when compatible.
VariantMatch match_variant(std::string_view label, const pkg::VariantsMetadata& metadata,
                           const SupportedVariants& supported);

/// Compares two scores: negative when `a` is preferred, positive when `b` is, 0 when equal.
/// Order: class (variant < null < non-variant); then the sorted key lists lexicographically,
/// a list that is a prefix of the other losing (PEP 825 step 5); then the label ascending.
int compare_variant_scores(const VariantScore& a, const VariantScore& b);

/// The properties of `properties` whose value the host supports, in their order: the PEP 825
/// `variant_properties` marker set of an installed variant wheel (reference/variants.md §4.5).
std::vector<pkg::VariantProperty> supported_properties(
    const std::vector<pkg::VariantProperty>& properties, const SupportedVariants& supported);

/// One label of a package version with its verdict.
struct RankedVariant {
  std::string label;
  VariantMatch match;
  bool compatible() const { return std::holds_alternative<VariantScore>(match); }
};

/// Every label of `metadata`: the compatible ones best first, then the incompatible ones in
/// label order, each with its reason.
std::vector<RankedVariant> rank_variants(const pkg::VariantsMetadata& metadata,
                                         const SupportedVariants& supported);

}  // namespace wv::targets
