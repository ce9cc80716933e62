#include "src/pkg/name.h"

#include <ostream>

#include "src/base/str.h"

namespace wv::pkg {

bool is_valid_name(std::string_view name) {
  if (name.empty()) return false;
  if (!is_ascii_alnum(name.front()) || !is_ascii_alnum(name.back())) return false;
  for (char c : name) {
    if (!is_ascii_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_separator_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_separator_run) out.push_back('-');
      in_separator_run = true;
    } else {
      out.push_back(to_ascii_lower(c));
      in_separator_run = false;
    }
  }
  return out;
}

namespace {

// `name` is not a valid name: the error points at the first character that breaks the rule.
Error invalid_name(std::string_view what, std::string_view name) {
  std::size_t at = 0;
  if (!name.empty() && is_ascii_alnum(name.front())) {
    while (at < name.size() && (is_ascii_alnum(name[at]) || name[at] == '-' ||
                                name[at] == '_' || name[at] == '.')) {
      ++at;
    }
    if (at == name.size()) at = name.size() - 1;
  }
  return make_parse_error(what, name, at,
                          "expected ASCII letters, digits, `-`, `_` or `.`, starting and "
                          "ending with a letter or digit");
}

}  // namespace

Result<PackageName> parse_package_name(std::string_view name) {
  if (!is_valid_name(name)) return invalid_name("package name", name);
  return PackageName(normalize_name(name));
}

Result<ExtraName> parse_extra_name(std::string_view name) {
  if (!is_valid_name(name)) return invalid_name("extra or group name", name);
  return parse_package_name(name);
}

Result<PackageName> parse_normalized_name(std::string_view name) {
  WV_ASSIGN_OR_RETURN(PackageName parsed, parse_package_name(name));
  if (parsed.str() != name) {
    // The first character the normal form changes.
    std::size_t at = 0;
    while (at < name.size() && at < parsed.str().size() && name[at] == parsed.str()[at]) ++at;
    return make_parse_error("package name", name, at,
                            str_cat("expected a normalised name (PEP 503): ",
                                    in_backticks(parsed.str())));
  }
  return parsed;
}

std::ostream& operator<<(std::ostream& out, const PackageName& name) { return out << name.str(); }

}  // namespace wv::pkg
