#include <catch2/catch.hpp>

#include "src/pkg/name.h"

TEST_CASE("name: PEP 503 normalisation", "[pkg][name]") {
  CHECK(wv::pkg::normalize_name("Friendly-Bard") == "friendly-bard");
  CHECK(wv::pkg::normalize_name("FRIENDLY__bard") == "friendly-bard");
  CHECK(wv::pkg::normalize_name("friendly.-_bard") == "friendly-bard");
  CHECK(wv::pkg::parse_package_name("Typing_Extensions")->str() == "typing-extensions");
}

TEST_CASE("name: invalid names are rejected with a position", "[pkg][name]") {
  CHECK_FALSE(wv::pkg::parse_package_name(""));
  CHECK_FALSE(wv::pkg::parse_package_name("-foo"));
  CHECK_FALSE(wv::pkg::parse_package_name("foo-"));
  auto bad = wv::pkg::parse_package_name("foo bar");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == wv::ErrorCode::kParse);
  CHECK(wv::pkg::parse_package_name("a").has_value());
}
