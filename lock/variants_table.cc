#include "lock/variants_table.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::lock {
namespace {

TomlValue string_array(const std::vector<std::string>& items) {
  TomlArray array;
  for (const std::string& item : items) array.emplace_back(item);
  return TomlValue(std::move(array));
}

TomlTable feature_values_table(const pkg::FeatureValues& features) {
  TomlTable table;
  for (const auto& [feature, values] : features) table[feature] = string_array(values);
  return table;
}

Error bad(std::string_view where, std::string_view key, std::string_view expected) {
  return make_error(ErrorCode::kInvalidLockfile,
                    str_cat(where, ": `variants-json.", key, "`: expected ", expected));
}

Result<std::vector<std::string>> read_strings(const TomlValue& value, std::string_view where,
                                              std::string_view key) {
  if (!value.is_array()) return bad(where, key, "an array of strings");
  std::vector<std::string> items;
  for (const TomlValue& item : value.as_array()) {
    if (!item.is_string()) return bad(where, key, "an array of strings");
    items.push_back(item.as_string());
  }
  return items;
}

Result<pkg::FeatureValues> read_feature_values(const TomlValue& value, std::string_view where,
                                               std::string_view key) {
  if (!value.is_table()) return bad(where, key, "a table of feature = [values]");
  pkg::FeatureValues features;
  for (const auto& [feature, values] : value.as_table()) {
    WV_ASSIGN_OR_RETURN(features[feature], read_strings(values, where, str_cat(key, ".", feature)));
  }
  return features;
}

}  // namespace

TomlTable variants_to_table(const pkg::VariantsMetadata& metadata,
                            const std::set<std::string>& used_labels) {
  std::set<std::string> namespaces;
  TomlTable variants;
  for (const auto& [label, properties] : metadata.variants) {
    if (!used_labels.count(label)) continue;
    TomlTable by_namespace;
    for (const pkg::VariantFeatureGroup& group : pkg::group_by_feature(properties)) {
      namespaces.insert(group.namespace_);
      if (!by_namespace.count(group.namespace_)) by_namespace[group.namespace_] = TomlTable{};
      by_namespace[group.namespace_].as_table()[group.feature] = string_array(group.values);
    }
    variants[label] = TomlValue(std::move(by_namespace));
  }

  TomlTable table;
  if (!metadata.schema_url.empty()) table["$schema"] = metadata.schema_url;

  TomlTable priorities;
  std::vector<std::string> namespace_order;
  for (const std::string& name : metadata.default_priorities.namespaces) {
    if (namespaces.count(name)) namespace_order.push_back(name);
  }
  priorities["namespace"] = string_array(namespace_order);
  TomlTable feature_priorities, property_priorities;
  for (const auto& [name, features] : metadata.default_priorities.features) {
    if (namespaces.count(name)) feature_priorities[name] = string_array(features);
  }
  for (const auto& [name, features] : metadata.default_priorities.properties) {
    if (namespaces.count(name)) property_priorities[name] = feature_values_table(features);
  }
  if (!feature_priorities.empty()) priorities["feature"] = TomlValue(std::move(feature_priorities));
  if (!property_priorities.empty()) {
    priorities["property"] = TomlValue(std::move(property_priorities));
  }
  table["default-priorities"] = TomlValue(std::move(priorities));

  TomlTable providers;
  for (const auto& [name, provider] : metadata.providers) {
    if (!namespaces.count(name)) continue;
    TomlTable entry;
    if (!provider.requirements.empty()) entry["requires"] = string_array(provider.requirements);
    if (provider.enable_if) entry["enable-if"] = *provider.enable_if;
    if (provider.optional) entry["optional"] = true;
    if (provider.plugin_api) entry["plugin-api"] = *provider.plugin_api;
    if (!provider.install_time) entry["install-time"] = false;
    providers[name] = TomlValue(std::move(entry));
  }
  if (!providers.empty()) table["providers"] = TomlValue(std::move(providers));

  TomlTable statics;
  for (const auto& [name, features] : metadata.static_properties) {
    if (namespaces.count(name)) statics[name] = feature_values_table(features);
  }
  if (!statics.empty()) table["static-properties"] = TomlValue(std::move(statics));
  table["variants"] = TomlValue(std::move(variants));
  return table;
}

Result<pkg::VariantsMetadata> variants_from_table(const TomlTable& table, std::string_view where) {
  pkg::VariantsMetadata metadata;
  if (auto it = table.find("$schema"); it != table.end()) {
    if (!it->second.is_string()) return bad(where, "$schema", "a string");
    metadata.schema_url = it->second.as_string();
    metadata.schema = pkg::classify_variants_schema(metadata.schema_url);
  }
  if (auto it = table.find("default-priorities"); it != table.end()) {
    if (!it->second.is_table()) return bad(where, "default-priorities", "a table");
    const TomlTable& priorities = it->second.as_table();
    if (auto order = priorities.find("namespace"); order != priorities.end()) {
      WV_ASSIGN_OR_RETURN(metadata.default_priorities.namespaces,
                          read_strings(order->second, where, "default-priorities.namespace"));
    }
    if (auto features = priorities.find("feature"); features != priorities.end()) {
      WV_ASSIGN_OR_RETURN(metadata.default_priorities.features,
                          read_feature_values(features->second, where,
                                              "default-priorities.feature"));
    }
    if (auto properties = priorities.find("property"); properties != priorities.end()) {
      if (!properties->second.is_table()) {
        return bad(where, "default-priorities.property", "a table");
      }
      for (const auto& [name, features] : properties->second.as_table()) {
        WV_ASSIGN_OR_RETURN(metadata.default_priorities.properties[name],
                            read_feature_values(features, where,
                                                "default-priorities.property." + name));
      }
    }
  }
  if (auto it = table.find("providers"); it != table.end()) {
    if (!it->second.is_table()) return bad(where, "providers", "a table");
    for (const auto& [name, value] : it->second.as_table()) {
      if (!value.is_table()) return bad(where, "providers." + name, "a table");
      pkg::VariantProvider provider;
      const TomlTable& entry = value.as_table();
      for (const auto& [key, field] : entry) {
        std::string full = str_cat("providers.", name, ".", key);
        if (key == "requires") {
          WV_ASSIGN_OR_RETURN(provider.requirements, read_strings(field, where, full));
        } else if (key == "enable-if" || key == "plugin-api") {
          if (!field.is_string()) return bad(where, full, "a string");
          (key == "enable-if" ? provider.enable_if : provider.plugin_api) = field.as_string();
        } else if (key == "optional" || key == "install-time") {
          if (!field.is_boolean()) return bad(where, full, "true or false");
          (key == "optional" ? provider.optional : provider.install_time) = field.as_boolean();
        } else {
          return bad(where, full, "one of requires, enable-if, optional, plugin-api, install-time");
        }
      }
      metadata.providers[name] = std::move(provider);
    }
  }
  if (auto it = table.find("static-properties"); it != table.end()) {
    if (!it->second.is_table()) return bad(where, "static-properties", "a table");
    for (const auto& [name, features] : it->second.as_table()) {
      WV_ASSIGN_OR_RETURN(metadata.static_properties[name],
                          read_feature_values(features, where, "static-properties." + name));
    }
  }
  auto variants = table.find("variants");
  if (variants == table.end() || !variants->second.is_table()) {
    return bad(where, "variants", "a table of label = { namespace = { feature = [values] } }");
  }
  for (const auto& [label, namespaces] : variants->second.as_table()) {
    std::string key = "variants." + label;
    if (!namespaces.is_table()) return bad(where, key, "a table");
    std::vector<pkg::VariantProperty> properties;
    for (const auto& [name, features] : namespaces.as_table()) {
      WV_ASSIGN_OR_RETURN(pkg::FeatureValues values,
                          read_feature_values(features, where, key + "." + name));
      for (const auto& [feature, list] : values) {
        for (const std::string& value : list) {
          auto property = pkg::make_variant_property(name, feature, value);
          if (!property) {
            return make_error(ErrorCode::kInvalidLockfile,
                              str_cat(where, ": `variants-json.", key, "`: ",
                                      property.error().message));
          }
          properties.push_back(std::move(*property));
        }
      }
    }
    std::sort(properties.begin(), properties.end());
    metadata.variants[label] = std::move(properties);
  }
  auto valid = pkg::validate_variants_metadata(metadata);
  if (!valid) {
    return make_error(ErrorCode::kInvalidLockfile,
                      str_cat(where, ": `variants-json`: ", valid.error().message));
  }
  return metadata;
}

}  // namespace wv::lock
