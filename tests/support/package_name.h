// Package names in tests: `"foo-bar"_pkg` is the pkg::PackageName of that text (a test's own
// names are valid; an invalid one fails the check loudly).
#pragma once

#include <cstddef>
#include <string_view>

#include "src/base/result.h"
#include "src/pkg/name.h"

namespace wv::test {

inline pkg::PackageName package_name(std::string_view text) {
  Result<pkg::PackageName> name = pkg::parse_package_name(text);
  WV_CHECK(name.has_value(), "a test's package name is a valid name");
  return *name;
}

}  // namespace wv::test

inline wv::pkg::PackageName operator""_pkg(const char* text, std::size_t size) {
  return wv::test::package_name(std::string_view(text, size));
}
