// Variant properties and variant metadata model (reference/variants.md §2, §4.1).
#include "src/pkg/variant.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::pkg {
namespace {

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || is_ascii_digit(c) || c == '_'; }

// Splits `text` at the next `::`; returns npos when there is none.
std::size_t find_separator(std::string_view text, std::size_t from) {
  return text.find("::", from);
}

}  // namespace

bool is_valid_variant_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char);
}

bool is_valid_variant_value(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return is_name_char(c) || c == '.'; });
}

bool is_valid_variant_label(std::string_view text) { return is_valid_variant_value(text); }

std::string VariantProperty::to_string() const {
  return str_cat(namespace_, " :: ", feature, " :: ", value);
}

std::string VariantProperty::feature_key() const { return str_cat(namespace_, " :: ", feature); }

Result<VariantProperty> make_variant_property(std::string_view namespace_name,
                                              std::string_view feature, std::string_view value) {
  const std::string text = str_cat(namespace_name, " :: ", feature, " :: ", value);
  if (!is_valid_variant_name(namespace_name)) {
    return make_error(ErrorCode::kParse,
                      str_cat("invalid variant property ", in_backticks(text), ": namespace ",
                              in_backticks(namespace_name), " must match `[a-z0-9_]+`"));
  }
  if (!is_valid_variant_name(feature)) {
    return make_error(ErrorCode::kParse,
                      str_cat("invalid variant property ", in_backticks(text), ": feature ",
                              in_backticks(feature), " must match `[a-z0-9_]+`"));
  }
  if (!is_valid_variant_value(value)) {
    return make_error(ErrorCode::kParse,
                      str_cat("invalid variant property ", in_backticks(text), ": value ",
                              in_backticks(value), " must match `[a-z0-9_.]+`"));
  }
  return VariantProperty{std::string(namespace_name), std::string(feature), std::string(value)};
}

Result<VariantProperty> parse_variant_property(std::string_view text) {
  const std::size_t first = find_separator(text, 0);
  if (first == std::string_view::npos) {
    return make_parse_error("variant property", text, text.size(),
                            "`::` between namespace and feature");
  }
  const std::size_t second = find_separator(text, first + 2);
  if (second == std::string_view::npos) {
    return make_parse_error("variant property", text, text.size(),
                            "`::` between feature and value");
  }
  if (find_separator(text, second + 2) != std::string_view::npos) {
    return make_parse_error("variant property", text, find_separator(text, second + 2),
                            "exactly three parts `namespace :: feature :: value`");
  }
  const std::string_view parts[3] = {trim(text.substr(0, first)),
                                     trim(text.substr(first + 2, second - first - 2)),
                                     trim(text.substr(second + 2))};
  const std::size_t starts[3] = {0, first + 2, second + 2};
  const char* names[3] = {"a namespace `[a-z0-9_]+`", "a feature `[a-z0-9_]+`",
                          "a value `[a-z0-9_.]+`"};
  for (int i = 0; i < 3; ++i) {
    const bool ok = i < 2 ? is_valid_variant_name(parts[i]) : is_valid_variant_value(parts[i]);
    if (!ok) {
      // Point at the part as written (after leading whitespace).
      std::size_t offset = starts[i];
      while (offset < text.size() && is_ascii_space(text[offset])) ++offset;
      return make_parse_error("variant property", text, offset, names[i]);
    }
  }
  return VariantProperty{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

std::optional<SchemaVersion> parse_variants_schema_version(std::string_view schema_url) {
  constexpr std::string_view kSuffix = ".json";
  if (schema_url.size() < kSuffix.size() ||
      schema_url.substr(schema_url.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  std::string_view stem = schema_url.substr(0, schema_url.size() - kSuffix.size());
  const std::size_t slash = stem.rfind('/');
  if (slash != std::string_view::npos) stem = stem.substr(slash + 1);
  if (stem.empty() || stem[0] != 'v') return std::nullopt;
  const std::vector<std::string_view> parts = split(stem.substr(1), '.');
  if (parts.size() != 3) return std::nullopt;
  int numbers[3];
  for (int i = 0; i < 3; ++i) {
    const std::optional<std::uint64_t> n = parse_uint64(parts[i]);
    if (!n || *n > 100000) return std::nullopt;
    numbers[i] = static_cast<int>(*n);
  }
  return SchemaVersion{numbers[0], numbers[1], numbers[2]};
}

VariantsSchema classify_variants_schema(std::string_view schema_url) {
  const std::optional<SchemaVersion> version = parse_variants_schema_version(schema_url);
  if (!version || version->major != 0) return VariantsSchema::kUnknown;
  if (version->minor == 0) {
    return version->patch <= 2 ? VariantsSchema::kV0_0_2 : VariantsSchema::kV0_0_3;
  }
  if (version->minor == 1) return VariantsSchema::kV0_1;
  return VariantsSchema::kV0_2;
}

const std::vector<VariantProperty>* VariantsMetadata::find_variant(std::string_view label) const {
  const auto it = variants.find(std::string(label));
  return it == variants.end() ? nullptr : &it->second;
}

bool VariantsMetadata::is_static_namespace(std::string_view namespace_name) const {
  const std::string key(namespace_name);
  if (static_properties.count(key) != 0) return true;
  const auto it = providers.find(key);
  return it != providers.end() && !it->second.install_time;
}

std::vector<VariantFeatureGroup> group_by_feature(const std::vector<VariantProperty>& properties) {
  std::vector<VariantFeatureGroup> groups;
  for (const VariantProperty& property : properties) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const VariantFeatureGroup& g) {
      return g.namespace_ == property.namespace_ && g.feature == property.feature;
    });
    if (it == groups.end()) {
      groups.push_back({property.namespace_, property.feature, {}});
      it = groups.end() - 1;
    }
    if (std::find(it->values.begin(), it->values.end(), property.value) == it->values.end()) {
      it->values.push_back(property.value);
    }
  }
  return groups;
}

Result<void> validate_variants_metadata(const VariantsMetadata& metadata) {
  const auto& order = metadata.default_priorities.namespaces;
  for (const std::string& name : order) {
    if (!is_valid_variant_name(name)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("invalid namespace ", in_backticks(name),
                                " in `default-priorities.namespace`: expected `[a-z0-9_]+`"));
    }
  }
  for (const auto& [label, properties] : metadata.variants) {
    if (!is_valid_variant_label(label)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("invalid variant label ", in_backticks(label),
                                ": expected `[0-9a-z_.]+`"));
    }
    if (label == kNullVariantLabel && !properties.empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        "the `null` variant must have no properties");
    }
    if (label != kNullVariantLabel && properties.empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("variant ", in_backticks(label),
                                " has no properties: only `null` may be empty"));
    }
    for (const VariantProperty& property : properties) {
      WV_TRY(make_variant_property(property.namespace_, property.feature, property.value));
      if (std::find(order.begin(), order.end(), property.namespace_) == order.end()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("variant ", in_backticks(label), " uses namespace ",
                                  in_backticks(property.namespace_),
                                  " which is missing from `default-priorities.namespace`"));
      }
    }
  }
  return {};
}

}  // namespace wv::pkg
