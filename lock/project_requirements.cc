#include "lock/project_requirements.h"

#include <functional>
#include <set>

#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::lock {

Result<PrereleaseMode> parse_prerelease_mode(std::string_view text) {
  if (text == "disallow") return PrereleaseMode::kDisallow;
  if (text == "allow") return PrereleaseMode::kAllow;
  if (text == "if-necessary") return PrereleaseMode::kIfNecessary;
  if (text == "explicit") return PrereleaseMode::kExplicit;
  if (text == "if-necessary-or-explicit") return PrereleaseMode::kIfNecessaryOrExplicit;
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("unknown pre-release mode ", in_backticks(text),
                            ": expected disallow, allow, if-necessary, explicit or "
                            "if-necessary-or-explicit"));
}

std::string_view to_string(PrereleaseMode mode) {
  switch (mode) {
    case PrereleaseMode::kDisallow: return "disallow";
    case PrereleaseMode::kAllow: return "allow";
    case PrereleaseMode::kIfNecessary: return "if-necessary";
    case PrereleaseMode::kExplicit: return "explicit";
    case PrereleaseMode::kIfNecessaryOrExplicit: return "if-necessary-or-explicit";
  }
  return "";
}

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
    const std::map<std::string, std::vector<std::string>>& groups) {
  std::map<std::string, std::vector<std::string>> normalised;
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
    for (const std::string& item : normalised.at(name)) {
      static constexpr std::string_view kInclude = "include-group:";
      if (item.rfind(kInclude, 0) == 0) {
        std::string included = pkg::normalize_name(item.substr(kInclude.size()));
        if (!normalised.count(included)) {
          return make_error(ErrorCode::kInvalidInput,
                            str_cat("dependency group ", in_backticks(name), " includes ",
                                    in_backticks(included), ", which is not declared"));
        }
        WV_ASSIGN_OR_RETURN(auto more, expand(included, visiting));
        result.insert(result.end(), more.begin(), more.end());
        continue;
      }
      auto requirement = pkg::parse_requirement(item);
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
