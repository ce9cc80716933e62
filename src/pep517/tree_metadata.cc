#include "src/pep517/tree_metadata.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::build {

std::optional<std::string> static_tree_metadata(const targets::ProjectConfig& config) {
  if (!config.name || !config.version) return std::nullopt;
  for (std::string_view field : {"version", "dependencies", "optional-dependencies",
                                 "requires-python"}) {
    if (std::find(config.dynamic.begin(), config.dynamic.end(), field) != config.dynamic.end()) {
      return std::nullopt;
    }
  }
  std::string out = str_cat("Metadata-Version: 2.2\nName: ", *config.name, "\nVersion: ",
                            *config.version, "\n");
  if (config.requires_python) out += str_cat("Requires-Python: ", *config.requires_python, "\n");
  for (const std::string& requirement : config.dependencies) {
    out += str_cat("Requires-Dist: ", requirement, "\n");
  }
  for (const auto& [extra, requirements] : config.optional_dependencies) {
    // An extra that is no valid name is the backend's to refuse: no static metadata then.
    Result<pkg::ExtraName> parsed = pkg::parse_extra_name(extra);
    if (!parsed) return std::nullopt;
    const std::string& name = parsed->str();
    out += str_cat("Provides-Extra: ", name, "\n");
    for (const std::string& requirement : requirements) {
      // The extra joins the requirement's own marker: `x; python_version < "3.12"` becomes
      // `x; (python_version < "3.12") and extra == "name"`.
      const std::size_t semicolon = requirement.find(';');
      if (semicolon == std::string::npos) {
        out += str_cat("Requires-Dist: ", requirement, "; extra == \"", name, "\"\n");
      } else {
        out += str_cat("Requires-Dist: ", trim(requirement.substr(0, semicolon)), "; (",
                       trim(requirement.substr(semicolon + 1)), ") and extra == \"", name, "\"\n");
      }
    }
  }
  return out;
}

}  // namespace wv::build
