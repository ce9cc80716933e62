// Reading `{name}-{version}-variants.json` (index level) and `*.dist-info/variant.json` (in the
// wheel) into pkg::VariantsMetadata, for every published shape: v0.0.2 (`plugin-use`), v0.0.3
// (PEP 817: providers, static-properties, feature/property priorities), v0.1.x (PEP 825:
// namespace order + variants) and v0.2.0 (Providers draft: static-properties inside
// providers) — reference/variants.md §2.2–§2.4 and §3; merging several files of one version per
// PEP 825 §Metadata consistency (variants.md §2.5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/variant.h"

namespace wv::index {

/// Parses and validates one variants JSON document. `source` (a file name or URL) names the
/// input in errors. Checks, beyond the grammar of pkg::validate_variants_metadata:
///   - `$schema` major must be 0 (the drafts wvlock reads); a newer minor is read as the closest
///     known shape, an absent or unrecognised `$schema` as v0.0.3 (what indexes publish);
///   - `default-priorities.namespace` and `variants` are present (each with the right type);
///   - with `providers` (v0.0.x, v0.2.0): the provider set equals the namespace list, an
///     install-time provider has `requires`, and every ahead-of-time namespace has static
///     properties (variantlib's rules; without them no label using it could ever be ranked);
///   - every property value list is non-empty.
/// A failure is kParse (malformed JSON or a wrong type) or kInvalidInput/kUnsupported (valid
/// JSON that breaks a rule); its message is the reason the version's variant wheels are unusable.
Result<pkg::VariantsMetadata> parse_variants_json(std::string_view text, std::string_view source);

/// Parses an in-wheel `variant.json`: as parse_variants_json(), and `variants` must hold exactly
/// the one label `label` (the wheel file name's label).
Result<pkg::VariantsMetadata> parse_wheel_variant_json(std::string_view text,
                                                       std::string_view label,
                                                       std::string_view source);

/// Merges the variants files of one package version (PEP 825 §Metadata consistency; PEP 817
/// for providers and static properties). Order-independent:
///   - namespace orders must be equal or one a prefix of the other (the longer wins);
///   - a label in several files must have the same properties (union of labels);
///   - providers, static properties and feature/property priorities: union by key, a key in
///     several files must have equal values (provider `requires` lists are unioned, as
///     variantlib does).
/// An empty input is kNotFound. Conflicts are kInvalidInput naming `what` and the key.
Result<pkg::VariantsMetadata> merge_variants_metadata(const std::vector<pkg::VariantsMetadata>& files,
                                                      std::string_view what);

}  // namespace wv::index
