#include <catch2/catch.hpp>

#include "src/base/str.h"

TEST_CASE("str: trim, split and join", "[base][str]") {
  CHECK(wv::trim("  a b \t\n") == "a b");
  CHECK(wv::trim("") == "");
  auto pieces = wv::split("a,,b", ',');
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[1].empty());
  CHECK(wv::split_whitespace("  x  y\tz ").size() == 3);
  CHECK(wv::join(std::vector<std::string>{"a", "b", "c"}, ", ") == "a, b, c");
}

TEST_CASE("str: case and numbers", "[base][str]") {
  CHECK(wv::to_lower("AbC") == "abc");
  CHECK(wv::iequals("Linux", "LINUX"));
  CHECK_FALSE(wv::iequals("Linux", "Linu"));
  CHECK(wv::parse_uint64("18446744073709551615") == UINT64_MAX);
  CHECK_FALSE(wv::parse_uint64("18446744073709551616"));
  CHECK_FALSE(wv::parse_uint64("12a"));
  CHECK_FALSE(wv::parse_uint64(""));
  CHECK(wv::str_cat("a", 1, '-', std::string("b")) == "a1-b");
}
