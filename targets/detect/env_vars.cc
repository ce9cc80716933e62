// Environment implementations.
#include "targets/detect/env_vars.h"

#include <cstdlib>

namespace wv::detect {

std::optional<std::string> ProcessEnvironment::get(std::string_view name) const {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> MapEnvironment::get(std::string_view name) const {
  const auto it = values_.find(std::string(name));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace wv::detect
