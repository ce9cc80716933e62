// Package and extra names, normalised per PEP 503 (runs of -_. become one '-', lower case) and
// validated per the core metadata spec (ASCII letters, digits, -_. ; alphanumeric at both ends).
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::pkg {

/// True when `name` is a valid project name (before normalisation).
bool is_valid_name(std::string_view name);

/// PEP 503 normal form of any string ("Foo__Bar.baz" -> "foo-bar-baz"); no validation.
std::string normalize_name(std::string_view name);

/// A validated, normalised package name. Exists only through parse_package_name().
class PackageName {
 public:
  PackageName() = default;
  const std::string& str() const { return name_; }
  friend auto operator<=>(const PackageName&, const PackageName&) = default;

 private:
  friend Result<PackageName> parse_package_name(std::string_view);
  explicit PackageName(std::string normalised) : name_(std::move(normalised)) {}
  std::string name_;
};

Result<PackageName> parse_package_name(std::string_view name);

/// Extra and dependency-group names normalise the same way (PEP 685, PEP 735).
using ExtraName = PackageName;
inline Result<ExtraName> parse_extra_name(std::string_view name) { return parse_package_name(name); }

}  // namespace wv::pkg
