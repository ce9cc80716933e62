// Package and extra names, normalised per PEP 503 (runs of -_. become one '-', lower case) and
// validated per the core metadata spec (ASCII letters, digits, -_. ; alphanumeric at both ends).
#pragma once

#include <compare>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::pkg {

/// True when `name` is a valid project name (before normalisation).
bool is_valid_name(std::string_view name);

/// PEP 503 normal form of any string ("Foo__Bar.baz" -> "foo-bar-baz"); no validation.
std::string normalize_name(std::string_view name);

/// A validated, normalised package name. Exists only through parse_package_name() and
/// parse_normalized_name(); default-constructed it is empty (no name yet).
class PackageName {
 public:
  PackageName() = default;
  const std::string& str() const { return name_; }
  bool empty() const { return name_.empty(); }
  friend auto operator<=>(const PackageName&, const PackageName&) = default;

 private:
  friend Result<PackageName> parse_package_name(std::string_view);
  friend Result<PackageName> parse_normalized_name(std::string_view);
  explicit PackageName(std::string normalised) : name_(std::move(normalised)) {}
  std::string name_;
};

/// Any valid project name, normalised ("Foo_Bar" -> foo-bar); an error with the position else.
Result<PackageName> parse_package_name(std::string_view name);

/// Text that must already be a normalised name (a lockfile's, an edge's): "foo-bar" is one,
/// "Foo_Bar" is an error, so what a file wrote is what reads back.
Result<PackageName> parse_normalized_name(std::string_view name);

/// Prints the normalised name; str_cat() takes one as it takes a string.
std::ostream& operator<<(std::ostream& out, const PackageName& name);
inline void str_append(std::string& out, const PackageName& name) { out.append(name.str()); }

/// Extra and dependency-group names normalise the same way (PEP 685, PEP 735).
using ExtraName = PackageName;
/// As parse_package_name(), its error naming an extra or group name.
Result<ExtraName> parse_extra_name(std::string_view name);

}  // namespace wv::pkg

template <>
struct std::hash<wv::pkg::PackageName> {
  std::size_t operator()(const wv::pkg::PackageName& name) const noexcept {
    return std::hash<std::string>()(name.str());
  }
};
