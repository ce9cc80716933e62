// variants.json over nlohmann/json (one of the two .cc files that include it). Every shape is
// read into one pkg::VariantsMetadata; unknown keys are ignored (PEP 817: "tools MUST ignore
// unknown keys"), a known key of the wrong type is an error naming its JSON path.
#include "src/index/variants_json.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "src/base/str.h"
#include "src/index/json_guard.h"

namespace wv::index {
namespace {

using Json = nlohmann::json;
using pkg::VariantsMetadata;

Error type_error(std::string_view source, std::string_view path, std::string_view expected) {
  return make_error(ErrorCode::kParse, str_cat("variants file ", in_backticks(source), ": ",
                                               in_backticks(path), " must be ", expected));
}

Error rule_error(std::string_view source, std::string_view message) {
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("variants file ", in_backticks(source), ": ", message));
}

Result<std::vector<std::string>> string_list(const Json& value, std::string_view source,
                                             std::string_view path) {
  if (!value.is_array()) return type_error(source, path, "a list of strings");
  std::vector<std::string> out;
  out.reserve(value.size());
  for (const Json& item : value) {
    if (!item.is_string()) return type_error(source, path, "a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// {feature: [values]}
Result<pkg::FeatureValues> feature_values(const Json& value, std::string_view source,
                                          std::string_view path) {
  if (!value.is_object()) return type_error(source, path, "an object of feature -> values");
  pkg::FeatureValues out;
  for (const auto& [feature, values] : value.items()) {
    WV_ASSIGN_OR_RETURN(out[feature], string_list(values, source, str_cat(path, ".", feature)));
  }
  return out;
}

// {namespace: {feature: [values]}}
Result<std::map<std::string, pkg::FeatureValues>> namespace_features(const Json& value,
                                                                     std::string_view source,
                                                                     std::string_view path) {
  if (!value.is_object()) return type_error(source, path, "an object of namespace -> features");
  std::map<std::string, pkg::FeatureValues> out;
  for (const auto& [name, features] : value.items()) {
    WV_ASSIGN_OR_RETURN(out[name], feature_values(features, source, str_cat(path, ".", name)));
  }
  return out;
}

Result<std::optional<std::string>> optional_string(const Json& object, const char* key,
                                                   std::string_view source, std::string_view path) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::optional<std::string>();
  if (!found->is_string()) return type_error(source, str_cat(path, ".", key), "a string");
  return std::optional<std::string>(found->get<std::string>());
}

Result<bool> optional_bool(const Json& object, const char* key, bool fallback,
                           std::string_view source, std::string_view path) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return fallback;
  if (!found->is_boolean()) return type_error(source, str_cat(path, ".", key), "true or false");
  return found->get<bool>();
}

Result<void> read_default_priorities(const Json& root, std::string_view source,
                                     VariantsMetadata& out) {
  auto priorities = root.find("default-priorities");
  if (priorities == root.end()) {
    return rule_error(source, "missing `default-priorities` (required by every schema)");
  }
  if (!priorities->is_object()) return type_error(source, "default-priorities", "an object");
  auto namespaces = priorities->find("namespace");
  if (namespaces == priorities->end()) {
    return rule_error(source, "missing `default-priorities.namespace`");
  }
  WV_ASSIGN_OR_RETURN(out.default_priorities.namespaces,
                      string_list(*namespaces, source, "default-priorities.namespace"));
  std::set<std::string> seen;
  for (const std::string& name : out.default_priorities.namespaces) {
    if (!seen.insert(name).second) {
      return rule_error(source, str_cat("namespace ", in_backticks(name),
                                        " is listed twice in `default-priorities.namespace`"));
    }
  }
  if (auto features = priorities->find("feature");
      features != priorities->end() && !features->is_null()) {
    WV_ASSIGN_OR_RETURN(out.default_priorities.features,
                        feature_values(*features, source, "default-priorities.feature"));
  }
  if (auto properties = priorities->find("property");
      properties != priorities->end() && !properties->is_null()) {
    WV_ASSIGN_OR_RETURN(out.default_priorities.properties,
                        namespace_features(*properties, source, "default-priorities.property"));
  }
  return {};
}

Result<void> read_providers(const Json& root, std::string_view source, VariantsMetadata& out) {
  auto providers = root.find("providers");
  if (providers == root.end() || providers->is_null()) return {};
  if (!providers->is_object()) return type_error(source, "providers", "an object");
  for (const auto& [name, entry] : providers->items()) {
    std::string path = str_cat("providers.", name);
    if (!entry.is_object()) return type_error(source, path, "an object");
    pkg::VariantProvider provider;
    if (auto requirements = entry.find("requires");
        requirements != entry.end() && !requirements->is_null()) {
      WV_ASSIGN_OR_RETURN(provider.requirements,
                          string_list(*requirements, source, str_cat(path, ".requires")));
    }
    WV_ASSIGN_OR_RETURN(provider.enable_if, optional_string(entry, "enable-if", source, path));
    WV_ASSIGN_OR_RETURN(provider.plugin_api, optional_string(entry, "plugin-api", source, path));
    WV_ASSIGN_OR_RETURN(provider.optional, optional_bool(entry, "optional", false, source, path));
    WV_ASSIGN_OR_RETURN(provider.install_time,
                        optional_bool(entry, "install-time", true, source, path));
    // v0.0.2: `plugin-use` "none" means the plugin is not run at install time.
    WV_ASSIGN_OR_RETURN(auto plugin_use, optional_string(entry, "plugin-use", source, path));
    if (plugin_use) {
      if (*plugin_use == "none") provider.install_time = false;
      else if (*plugin_use != "build" && *plugin_use != "all") {
        return type_error(source, str_cat(path, ".plugin-use"), "`none`, `build` or `all`");
      }
    }
    // v0.2.0: static properties live inside the provider; such a provider is ahead-of-time.
    if (auto statics = entry.find("static-properties");
        statics != entry.end() && !statics->is_null()) {
      WV_ASSIGN_OR_RETURN(out.static_properties[name],
                          feature_values(*statics, source, str_cat(path, ".static-properties")));
      provider.install_time = false;
    }
    out.providers.emplace(name, std::move(provider));
  }
  return {};
}

Result<void> read_variants(const Json& root, std::string_view source, VariantsMetadata& out) {
  auto variants = root.find("variants");
  if (variants == root.end()) return rule_error(source, "missing `variants`");
  if (!variants->is_object()) return type_error(source, "variants", "an object of label -> properties");
  for (const auto& [label, namespaces] : variants->items()) {
    std::string path = str_cat("variants.", label);
    WV_ASSIGN_OR_RETURN(auto grouped, namespace_features(namespaces, source, path));
    std::vector<pkg::VariantProperty> properties;
    for (const auto& [name, features] : grouped) {
      for (const auto& [feature, values] : features) {
        if (values.empty()) {
          return rule_error(source, str_cat(in_backticks(str_cat(path, ".", name, ".", feature)),
                                            " has no values (at least one is required)"));
        }
        for (const std::string& value : values) {
          auto property = pkg::make_variant_property(name, feature, value);
          if (!property) {
            return rule_error(source, str_cat("variant ", in_backticks(label), ": ",
                                              property.error().message));
          }
          properties.push_back(std::move(*property));
        }
      }
    }
    std::sort(properties.begin(), properties.end());
    properties.erase(std::unique(properties.begin(), properties.end()), properties.end());
    out.variants.emplace(label, std::move(properties));
  }
  return {};
}

// variantlib's consistency rules for files that carry providers (v0.0.x, v0.2.0).
Result<void> check_providers(const VariantsMetadata& metadata, std::string_view source) {
  const auto& order = metadata.default_priorities.namespaces;
  if (metadata.providers.empty()) {
    if (metadata.schema == pkg::VariantsSchema::kV0_1) return {};
    // v0.0.x and v0.2.0 require `providers`; without it no namespace can be served.
    if (order.empty() && metadata.variants.size() <= 1) return {};
    return rule_error(source, "missing `providers` (required by this schema)");
  }
  for (const std::string& name : order) {
    if (!metadata.providers.contains(name)) {
      return rule_error(source, str_cat("namespace ", in_backticks(name),
                                        " is in `default-priorities.namespace` but has no provider"));
    }
  }
  for (const auto& [name, provider] : metadata.providers) {
    if (std::find(order.begin(), order.end(), name) == order.end()) {
      return rule_error(source, str_cat("provider ", in_backticks(name),
                                        " is missing from `default-priorities.namespace`"));
    }
    if (provider.install_time && provider.requirements.empty()) {
      return rule_error(source, str_cat("install-time provider ", in_backticks(name),
                                        " has no `requires`"));
    }
    if (!provider.install_time && !metadata.static_properties.contains(name)) {
      return rule_error(source, str_cat("ahead-of-time provider ", in_backticks(name),
                                        " has no `static-properties`: its variants cannot be "
                                        "ranked"));
    }
  }
  for (const auto& [name, features] : metadata.static_properties) {
    auto provider = metadata.providers.find(name);
    if (provider == metadata.providers.end()) {
      return rule_error(source, str_cat("`static-properties` names namespace ", in_backticks(name),
                                        " which has no provider"));
    }
    if (provider->second.install_time) {
      return rule_error(source, str_cat("`static-properties` names namespace ", in_backticks(name),
                                        " whose provider runs at install time"));
    }
    // JSON objects are unordered: with several features, their order must be given explicitly.
    if (features.size() > 1) {
      auto listed = metadata.default_priorities.features.find(name);
      for (const auto& [feature, values] : features) {
        (void)values;
        if (listed == metadata.default_priorities.features.end() ||
            std::find(listed->second.begin(), listed->second.end(), feature) ==
                listed->second.end()) {
          return rule_error(source, str_cat("static feature ", in_backticks(str_cat(name, " :: ", feature)),
                                            " is not ordered in `default-priorities.feature`"));
        }
      }
    }
  }
  return {};
}

Result<VariantsMetadata> parse_document(std::string_view text, std::string_view source) {
  WV_TRY(check_json_nesting(text, limit_value(Limit::kJsonDepth), str_cat("variants file ", in_backticks(source))));
  Json root = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return make_error(ErrorCode::kParse,
                      str_cat("variants file ", in_backticks(source), " is not valid JSON"));
  }
  if (!root.is_object()) return type_error(source, "(root)", "an object");
  VariantsMetadata metadata;
  if (auto schema = root.find("$schema"); schema != root.end() && !schema->is_null()) {
    if (!schema->is_string()) return type_error(source, "$schema", "a string");
    metadata.schema_url = schema->get<std::string>();
    if (auto version = pkg::parse_variants_schema_version(metadata.schema_url);
        version && version->major != 0) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat("variants file ", in_backticks(source), ": schema ",
                                in_backticks(metadata.schema_url), " has major version ",
                                version->major, "; wvlock reads major version 0 only"));
    }
    metadata.schema = pkg::classify_variants_schema(metadata.schema_url);
  }
  WV_TRY(read_default_priorities(root, source, metadata));
  WV_TRY(read_providers(root, source, metadata));
  if (auto statics = root.find("static-properties"); statics != root.end() && !statics->is_null()) {
    WV_ASSIGN_OR_RETURN(auto top, namespace_features(*statics, source, "static-properties"));
    for (auto& [name, features] : top) metadata.static_properties[name] = std::move(features);
  }
  WV_TRY(read_variants(root, source, metadata));
  if (auto valid = pkg::validate_variants_metadata(metadata); !valid) {
    return rule_error(source, valid.error().message);
  }
  WV_TRY(check_providers(metadata, source));
  return metadata;
}

template <class Map>
Result<void> merge_map(Map& into, const Map& from, std::string_view what, std::string_view key_kind) {
  for (const auto& [key, value] : from) {
    auto [it, inserted] = into.emplace(key, value);
    if (!inserted && !(it->second == value)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(what, ": the variants files disagree on ", key_kind, " ",
                                in_backticks(key)));
    }
  }
  return {};
}

bool same_provider_except_requirements(const pkg::VariantProvider& a,
                                       const pkg::VariantProvider& b) {
  return a.enable_if == b.enable_if && a.optional == b.optional && a.plugin_api == b.plugin_api &&
         a.install_time == b.install_time;
}

}  // namespace

Result<VariantsMetadata> parse_variants_json(std::string_view text, std::string_view source) {
  try {
    return parse_document(text, source);
  } catch (const std::exception& exception) {
    return make_error(ErrorCode::kParse,
                      str_cat("variants file ", in_backticks(source), ": ", exception.what()));
  }
}

Result<VariantsMetadata> parse_wheel_variant_json(std::string_view text, std::string_view label,
                                                  std::string_view source) {
  WV_ASSIGN_OR_RETURN(VariantsMetadata metadata, parse_variants_json(text, source));
  if (metadata.variants.size() != 1 || metadata.variants.begin()->first != label) {
    std::vector<std::string> labels;
    for (const auto& [name, properties] : metadata.variants) labels.push_back(name);
    return rule_error(source, str_cat("an in-wheel variant.json must describe exactly the label ",
                                      in_backticks(label), ", found [", join(labels, ", "), "]"));
  }
  return metadata;
}

Result<VariantsMetadata> merge_variants_metadata(const std::vector<VariantsMetadata>& files,
                                                 std::string_view what) {
  if (files.empty()) {
    return make_error(ErrorCode::kNotFound, str_cat(what, ": no variants file"));
  }
  VariantsMetadata merged = files.front();
  for (std::size_t i = 1; i < files.size(); ++i) {
    const VariantsMetadata& next = files[i];
    auto& order = merged.default_priorities.namespaces;
    const auto& other = next.default_priorities.namespaces;
    const auto& shorter = order.size() <= other.size() ? order : other;
    const auto& longer = order.size() <= other.size() ? other : order;
    if (!std::equal(shorter.begin(), shorter.end(), longer.begin())) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(what, ": the variants files disagree on the namespace order [",
                                join(order, ", "), "] vs [", join(other, ", "), "]"));
    }
    order = std::vector<std::string>(longer);
    if (merged.schema_url.empty()) {
      merged.schema_url = next.schema_url;
      merged.schema = next.schema;
    }
    WV_TRY(merge_map(merged.variants, next.variants, what, "the properties of label"));
    WV_TRY(merge_map(merged.static_properties, next.static_properties, what,
                     "the static properties of namespace"));
    WV_TRY(merge_map(merged.default_priorities.features, next.default_priorities.features, what,
                     "the feature priorities of namespace"));
    WV_TRY(merge_map(merged.default_priorities.properties, next.default_priorities.properties,
                     what, "the property priorities of namespace"));
    for (const auto& [name, provider] : next.providers) {
      auto [it, inserted] = merged.providers.emplace(name, provider);
      if (inserted) continue;
      if (!same_provider_except_requirements(it->second, provider)) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(what, ": the variants files disagree on provider ",
                                  in_backticks(name)));
      }
      for (const std::string& requirement : provider.requirements) {
        auto& list = it->second.requirements;
        if (std::find(list.begin(), list.end(), requirement) == list.end()) list.push_back(requirement);
      }
    }
  }
  return merged;
}

}  // namespace wv::index
