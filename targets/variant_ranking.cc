// Variant compatibility and PEP 825 ordering (variants.md §4.2–§4.3).
#include "targets/variant_ranking.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::targets {
namespace {

constexpr std::size_t kShownValues = 6;

std::size_t index_in(const std::vector<std::string>& list, std::string_view item,
                     std::size_t absent) {
  const auto it = std::find(list.begin(), list.end(), item);
  return it == list.end() ? absent : static_cast<std::size_t>(it - list.begin());
}

// `a`, `b`, `c` and 12 more
std::string list_values(const std::vector<std::string>& values) {
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < values.size() && i < kShownValues; ++i) {
    shown.push_back(in_backticks(values[i]));
  }
  std::string text = join(shown, ", ");
  if (values.size() > kShownValues) {
    text += str_cat(" and ", values.size() - kShownValues, " more");
  }
  return text;
}

IncompatibleVariant incompatible(std::string_view label, const pkg::VariantProperty& property,
                                 std::string reason) {
  return IncompatibleVariant{std::string(label), property,
                             str_cat(in_backticks(property.to_string()), " is not supported: ",
                                     reason)};
}

}  // namespace

VariantScore non_variant_score() { return VariantScore{VariantClass::kNonVariant, {}, ""}; }

VariantMatch match_variant(std::string_view label, const pkg::VariantsMetadata& metadata,
                           const SupportedVariants& supported) {
  const std::vector<pkg::VariantProperty>* declared = metadata.find_variant(label);
  if (declared == nullptr) {
    return IncompatibleVariant{
        std::string(label), {},
        str_cat("the variant label ", in_backticks(label),
                " is not described by the package's variant metadata")};
  }
  if (label == pkg::kNullVariantLabel && declared->empty()) {
    return VariantScore{VariantClass::kNull, {}, std::string(label)};
  }
  std::vector<pkg::VariantProperty> properties = *declared;
  std::sort(properties.begin(), properties.end());
  const auto& priorities = metadata.default_priorities;
  VariantScore score{VariantClass::kVariant, {}, std::string(label)};
  for (const pkg::VariantFeatureGroup& group : pkg::group_by_feature(properties)) {
    const pkg::VariantProperty first{group.namespace_, group.feature, group.values.front()};
    const NamespaceSupport* space = supported.find(group.namespace_);
    if (space == nullptr) {
      return incompatible(label, first,
                          str_cat("no provider answers for namespace ",
                                  in_backticks(group.namespace_)));
    }
    if (space->features.empty()) {
      return incompatible(label, first,
                          space->reason.empty()
                              ? str_cat("namespace ", in_backticks(group.namespace_),
                                        " supports nothing here")
                              : space->reason);
    }
    const SupportedFeature* feature = space->find(group.feature);
    if (feature == nullptr || feature->values.empty()) {
      return incompatible(label, first,
                          str_cat("this host has no ",
                                  in_backticks(str_cat(group.namespace_, " :: ", group.feature)),
                                  " (", to_string(space->state), " provider)"));
    }
    // OR within the feature: the best supported value decides.
    std::vector<std::string> value_order;
    if (const auto ns = priorities.properties.find(group.namespace_);
        ns != priorities.properties.end()) {
      if (const auto f = ns->second.find(group.feature); f != ns->second.end()) {
        value_order = f->second;
      }
    }
    for (const std::string& value : feature->values) {
      if (index_in(value_order, value, SIZE_MAX) == SIZE_MAX) value_order.push_back(value);
    }
    std::size_t best = SIZE_MAX;
    for (const std::string& value : group.values) {
      if (index_in(feature->values, value, SIZE_MAX) == SIZE_MAX) continue;
      best = std::min(best, index_in(value_order, value, SIZE_MAX));
    }
    if (best == SIZE_MAX) {
      return incompatible(label, first,
                          str_cat("this host's ",
                                  in_backticks(str_cat(group.namespace_, " :: ", group.feature)),
                                  " values are ", list_values(feature->values)));
    }
    std::vector<std::string> feature_order;
    if (const auto ns = priorities.features.find(group.namespace_);
        ns != priorities.features.end()) {
      feature_order = ns->second;
    }
    for (const SupportedFeature& candidate : space->features) {
      if (index_in(feature_order, candidate.name, SIZE_MAX) == SIZE_MAX) {
        feature_order.push_back(candidate.name);
      }
    }
    score.keys.push_back(
        VariantKey{index_in(priorities.namespaces, group.namespace_, priorities.namespaces.size()),
                   index_in(feature_order, group.feature, feature_order.size()), best});
  }
  std::sort(score.keys.begin(), score.keys.end());
  return score;
}

int compare_variant_scores(const VariantScore& a, const VariantScore& b) {
  if (a.kind != b.kind) return static_cast<int>(a.kind) < static_cast<int>(b.kind) ? -1 : 1;
  const std::size_t common = std::min(a.keys.size(), b.keys.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (a.keys[i] != b.keys[i]) return a.keys[i] < b.keys[i] ? -1 : 1;
  }
  // A list that is a prefix of the other: the longer list (more matched features) wins.
  if (a.keys.size() != b.keys.size()) return a.keys.size() > b.keys.size() ? -1 : 1;
  if (a.label != b.label) return a.label < b.label ? -1 : 1;
  return 0;
}

std::vector<pkg::VariantProperty> supported_properties(
    const std::vector<pkg::VariantProperty>& properties, const SupportedVariants& supported) {
  std::vector<pkg::VariantProperty> out;
  for (const pkg::VariantProperty& property : properties) {
    const NamespaceSupport* space = supported.find(property.namespace_);
    const SupportedFeature* feature = space ? space->find(property.feature) : nullptr;
    if (feature != nullptr && index_in(feature->values, property.value, SIZE_MAX) != SIZE_MAX) {
      out.push_back(property);
    }
  }
  return out;
}

std::vector<RankedVariant> rank_variants(const pkg::VariantsMetadata& metadata,
                                         const SupportedVariants& supported) {
  std::vector<RankedVariant> compatible;
  std::vector<RankedVariant> rejected;
  for (const auto& [label, properties] : metadata.variants) {
    VariantMatch match = match_variant(label, metadata, supported);
    if (std::holds_alternative<VariantScore>(match)) {
      compatible.push_back({label, std::move(match)});
    } else {
      rejected.push_back({label, std::move(match)});
    }
  }
  std::stable_sort(compatible.begin(), compatible.end(),
                   [](const RankedVariant& a, const RankedVariant& b) {
                     return compare_variant_scores(std::get<VariantScore>(a.match),
                                                   std::get<VariantScore>(b.match)) < 0;
                   });
  compatible.insert(compatible.end(), std::make_move_iterator(rejected.begin()),
                    std::make_move_iterator(rejected.end()));
  return compatible;
}

}  // namespace wv::targets
