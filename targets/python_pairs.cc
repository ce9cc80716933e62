#include "targets/python_pairs.h"

#include "src/base/str.h"

namespace wv::targets {

std::string python_pair_name(std::string_view declared_name, const MajorMinor& python) {
  return str_cat(declared_name, "-py", python.to_string());
}

std::vector<Target> expand_pythons(const Target& target, const std::vector<MajorMinor>& pythons) {
  std::vector<Target> out;
  for (const MajorMinor& python : pythons) {
    Target pair = target;
    pair.profile.python_version.set(python, FactSource::kDeclared);
    // One Python keeps the name: the lock of a one-Python project does not change.
    if (pythons.size() > 1) {
      pair.declared_name = target.name;
      pair.name = python_pair_name(target.name, python);
    }
    out.push_back(std::move(pair));
  }
  return out;
}

bool answers_to(const Target& target, std::string_view name) {
  if (same_target_name(target.name, name)) return true;
  return !target.declared_name.empty() && same_target_name(target.declared_name, name);
}

}  // namespace wv::targets
