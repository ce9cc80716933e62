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

Result<std::map<std::string, std::vector<pkg::Requirement>>> expand_dependency_groups(
    const std::map<std::string, std::vector<targets::DependencyGroupEntry>>& groups) {
  std::map<std::string, std::vector<targets::DependencyGroupEntry>> normalised;
  for (const auto& [name, items] : groups) {
    std::string key = pkg::normalize_name(name);
    if (normalised.count(key)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("dependency group ", in_backticks(name),
                                " is declared twice (names are compared normalised)"));
    }
    normalised[key] = items;
  }
  std::map<std::string, std::vector<pkg::Requirement>> expanded;
  std::function<Result<std::vector<pkg::Requirement>>(const std::string&, std::set<std::string>&)>
      expand = [&](const std::string& name,
                   std::set<std::string>& visiting) -> Result<std::vector<pkg::Requirement>> {
    if (auto done = expanded.find(name); done != expanded.end()) return done->second;
    if (!visiting.insert(name).second) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("dependency group ", in_backticks(name),
                                " includes itself (PEP 735 forbids cycles)"));
    }
    std::vector<pkg::Requirement> result;
    for (const targets::DependencyGroupEntry& item : normalised.at(name)) {
      if (!item.include_group.empty()) {
        std::string included = pkg::normalize_name(item.include_group);
        if (!normalised.count(included)) {
          return make_error(ErrorCode::kInvalidInput,
                            str_cat("dependency group ", in_backticks(name), " includes ",
                                    in_backticks(included), ", which is not declared"));
        }
        WV_ASSIGN_OR_RETURN(auto more, expand(included, visiting));
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
    std::set<std::string> visiting;
    WV_TRY(expand(name, visiting));
  }
  return expanded;
}

}  // namespace wv::lock
