#include "lock/project_requirements.h"

#include <functional>
#include <set>

#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::lock {

Result<std::vector<pkg::Requirement>> parse_requirements(const std::vector<std::string>& items,
                                                         std::string_view where) {
  std::vector<pkg::Requirement> requirements;
  for (const std::string& item : items) {
    auto requirement = pkg::parse_requirement(item);
    if (!requirement) return std::move(requirement).error().with_context(where);
    requirements.push_back(std::move(*requirement));
  }
  return requirements;
}

Result<std::map<pkg::ExtraName, std::vector<pkg::Requirement>>> expand_dependency_groups(
    const std::map<std::string, std::vector<targets::DependencyGroupEntry>>& groups) {
  std::map<pkg::ExtraName, std::vector<targets::DependencyGroupEntry>> normalised;
  for (const auto& [name, items] : groups) {
    Result<pkg::ExtraName> key_name = pkg::parse_extra_name(name);
    if (!key_name) return std::move(key_name).error().with_context("[dependency-groups]");
    const pkg::ExtraName& key = *key_name;
    if (normalised.count(key)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("dependency group ", in_backticks(name),
                                " is declared twice (names are compared normalised)"));
    }
    normalised[key] = items;
  }
  std::map<pkg::ExtraName, std::vector<pkg::Requirement>> expanded;
  std::function<Result<std::vector<pkg::Requirement>>(const pkg::ExtraName&,
                                                      std::set<pkg::ExtraName>&)>
      expand = [&](const pkg::ExtraName& name,
                   std::set<pkg::ExtraName>& visiting) -> Result<std::vector<pkg::Requirement>> {
    if (auto done = expanded.find(name); done != expanded.end()) return done->second;
    if (!visiting.insert(name).second) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("dependency group ", in_backticks(name.str()),
                                " includes itself (PEP 735 forbids cycles)"));
    }
    std::vector<pkg::Requirement> result;
    for (const targets::DependencyGroupEntry& item : normalised.at(name)) {
      if (!item.include_group.empty()) {
        Result<pkg::ExtraName> included = pkg::parse_extra_name(item.include_group);
        if (!included) return std::move(included).error().with_context("[dependency-groups]");
        if (!normalised.count(*included)) {
          return make_error(ErrorCode::kInvalidInput,
                            str_cat("dependency group ", in_backticks(name.str()), " includes ",
                                    in_backticks(included->str()), ", which is not declared"));
        }
        WV_ASSIGN_OR_RETURN(auto more, expand(*included, visiting));
        result.insert(result.end(), more.begin(), more.end());
        continue;
      }
      auto requirement = pkg::parse_requirement(item.requirement);
      if (!requirement) {
        return std::move(requirement).error().with_context(
            str_cat("[dependency-groups] ", name));
      }
      result.push_back(std::move(*requirement));
    }
    visiting.erase(name);
    expanded[name] = result;
    return result;
  };
  for (const auto& [name, items] : normalised) {
    std::set<pkg::ExtraName> visiting;
    WV_TRY(expand(name, visiting));
  }
  return expanded;
}

const std::vector<pkg::Requirement>* find_declared(
    const std::map<pkg::ExtraName, std::vector<pkg::Requirement>>& declared, std::string_view name) {
  Result<pkg::ExtraName> key = pkg::parse_normalized_name(name);
  if (!key) return nullptr;
  auto found = declared.find(*key);
  return found == declared.end() ? nullptr : &found->second;
}

}  // namespace wv::lock
