// Wheel variant vocabulary: variant properties (`namespace :: feature :: value`, PEP 825
// §Variant properties; reference/variants.md §4.1) and the model of one package version's
// variant metadata as published in `{name}-{version}-variants.json` (PEP 817 / v0.0.3,
// PEP 825 / v0.1.x and the Providers draft / v0.2.0; reference/variants.md §2.2–§2.4).
// Pure model: no I/O, no JSON (src/index parses JSON into these structs). Cheap to include.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"

namespace wv::pkg {

/// `namespace` and `feature` names: `[a-z0-9_]+` (variants.md §4.1).
bool is_valid_variant_name(std::string_view text);
/// Property values: `[a-z0-9_.]+`.
bool is_valid_variant_value(std::string_view text);
/// Variant labels: `[0-9a-z_.]+`, any length when reading (PEP 825; PEP 817 capped it at 16).
bool is_valid_variant_label(std::string_view text);

/// The reserved label of the null variant: zero properties, always compatible.
inline constexpr std::string_view kNullVariantLabel = "null";

/// One variant property. Ordered by (namespace, feature, value), as variantlib sorts them.
struct VariantProperty {
  std::string namespace_;  ///< `nvidia` (trailing `_`: `namespace` is a keyword)
  std::string feature;     ///< `sm_arch`
  std::string value;       ///< `90_real`

  /// Canonical form `ns :: feature :: value` (single spaces).
  std::string to_string() const;
  /// The feature this property belongs to: `ns :: feature`.
  std::string feature_key() const;

  auto operator<=>(const VariantProperty&) const = default;
  bool operator==(const VariantProperty&) const = default;
};

/// Parses `ns :: feature :: value`; whitespace around `::` and at both ends is ignored.
/// Errors name the input and the offending part.
Result<VariantProperty> parse_variant_property(std::string_view text);

/// Builds a property from its three parts, validating each (for JSON/TOML readers).
Result<VariantProperty> make_variant_property(std::string_view namespace_name,
                                              std::string_view feature, std::string_view value);

/// Which published shape a variants.json follows, derived from its `$schema` URL.
enum class VariantsSchema {
  kUnknown,  ///< no or unrecognised `$schema`: read leniently as v0.0.3
  kV0_0_2,   ///< PEP 817 early: `plugin-use` instead of `install-time`, no static-properties
  kV0_0_3,   ///< PEP 817 / variantlib 0.0.3: what deployed indexes publish
  kV0_1,     ///< PEP 825 v0.1.x: `default-priorities.namespace` + `variants` only
  kV0_2,     ///< Providers draft v0.2.0: `static-properties` inside `providers.{ns}`
};

/// `major.minor.patch` read from a `$schema` URL ending in `/vX.Y.Z.json`.
struct SchemaVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  auto operator<=>(const SchemaVersion&) const = default;
};

/// The version in a `$schema` URL (`https://variants-schema.wheelnext.dev/v0.0.3.json`,
/// `…/peps/825/v0.1.1.json`); nullopt when the URL does not end in `vX.Y.Z.json`.
std::optional<SchemaVersion> parse_variants_schema_version(std::string_view schema_url);

/// The shape to read for a `$schema` URL. A known major with a newer minor maps to the
/// closest known shape (PEP 825: consumers SHOULD accept newer minors).
VariantsSchema classify_variants_schema(std::string_view schema_url);

/// One `providers.{namespace}` entry. Fields a shape lacks keep their defaults.
struct VariantProvider {
  /// `requires`: PEP 508 requirements that install the plugin (the word is a C++ keyword).
  std::vector<std::string> requirements;
  /// `enable-if`: a PEP 508 marker; the provider is used only where it is true (v0.0.3).
  std::optional<std::string> enable_if;
  /// `optional`: the provider runs only when the user enables it.
  bool optional = false;
  /// `plugin-api`: `module(:attr.path)?` of the Python plugin (informational for wvlock).
  std::optional<std::string> plugin_api;
  /// `install-time` (v0.0.3; v0.0.2 `plugin-use != "none"`; v0.2.0: no static-properties).
  /// false = ahead-of-time provider whose supported values are its static properties.
  bool install_time = true;
};

/// feature -> ordered values (most preferred first).
using FeatureValues = std::map<std::string, std::vector<std::string>>;

/// `default-priorities`. v0.1.x carries `namespaces` only.
struct VariantDefaultPriorities {
  /// `namespace`: every namespace used, most important first.
  std::vector<std::string> namespaces;
  /// `feature.{ns}`: features put first in that namespace's feature order (PEP 817 override).
  std::map<std::string, std::vector<std::string>> features;
  /// `property.{ns}.{feature}`: values put first in that feature's value order.
  std::map<std::string, FeatureValues> properties;
};

/// The variant metadata of one package version (`{name}-{version}-variants.json`, or a
/// wheel's `*.dist-info/variant.json`, which has a single label).
struct VariantsMetadata {
  /// `$schema` as written ("" when absent).
  std::string schema_url;
  VariantsSchema schema = VariantsSchema::kUnknown;
  VariantDefaultPriorities default_priorities;
  /// `providers`: namespace -> provider (empty for PEP 825 v0.1.x files).
  std::map<std::string, VariantProvider> providers;
  /// Static (ahead-of-time) supported values: namespace -> feature -> ordered values.
  /// Filled from top-level `static-properties` (v0.0.3) or `providers.{ns}.static-properties`
  /// (v0.2.0); a namespace listed here is served from this table, not from a live provider.
  std::map<std::string, FeatureValues> static_properties;
  /// `variants`: label -> its properties, sorted and without duplicates. `null` -> {}.
  std::map<std::string, std::vector<VariantProperty>> variants;

  /// The properties of `label`, or nullptr when the label is not described.
  const std::vector<VariantProperty>* find_variant(std::string_view label) const;
  /// True when `namespace_name` is ahead-of-time (static-properties or install-time false).
  bool is_static_namespace(std::string_view namespace_name) const;
};

/// Properties of one variant grouped by feature: (namespace, feature) -> its values.
/// Compatibility is AND across these groups and OR within one (variants.md §4.2).
struct VariantFeatureGroup {
  std::string namespace_;
  std::string feature;
  std::vector<std::string> values;
};
/// Groups sorted properties by (namespace, feature), keeping their order.
std::vector<VariantFeatureGroup> group_by_feature(const std::vector<VariantProperty>& properties);

/// Checks what the spec makes mandatory and a reader can check without a provider:
/// names/values/labels match their grammars, `null` <=> no properties, every namespace used by
/// a variant is in `default-priorities.namespace`. Returns the first problem, naming it.
/// (Lenient readers may keep a file that fails this and drop only its variant wheels.)
Result<void> validate_variants_metadata(const VariantsMetadata& metadata);

}  // namespace wv::pkg
