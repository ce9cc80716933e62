#include <catch2/catch.hpp>

#include <sstream>
#include <unordered_set>

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

TEST_CASE("name: an already-normalised name reads back as itself", "[pkg][name]") {
  auto ok = wv::pkg::parse_normalized_name("foo-bar");
  REQUIRE(ok);
  CHECK(*ok == *wv::pkg::parse_package_name("Foo_Bar"));
  auto spelled = wv::pkg::parse_normalized_name("Foo_Bar");
  REQUIRE_FALSE(spelled);
  CHECK(spelled.error().code == wv::ErrorCode::kParse);
  CHECK(spelled.error().message.find("foo-bar") != std::string::npos);
  CHECK_FALSE(wv::pkg::parse_normalized_name("foo--bar"));
  CHECK_FALSE(wv::pkg::parse_normalized_name("foo bar"));
}

TEST_CASE("name: a PackageName is a hash key and prints as its normal form", "[pkg][name]") {
  std::unordered_set<wv::pkg::PackageName> names;
  names.insert(*wv::pkg::parse_package_name("Foo.Bar"));
  CHECK(names.count(*wv::pkg::parse_package_name("foo_bar")) == 1);
  CHECK(names.count(*wv::pkg::parse_package_name("foobar")) == 0);
  std::ostringstream out;
  out << *wv::pkg::parse_package_name("Foo__Bar");
  CHECK(out.str() == "foo-bar");
  CHECK(wv::pkg::PackageName().empty());
}

TEST_CASE("name: an extra or group name is refused as such", "[pkg][name]") {
  CHECK(wv::pkg::parse_extra_name("Dev_Tools")->str() == "dev-tools");
  auto bad = wv::pkg::parse_extra_name("dev tools");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("invalid extra or group name `dev tools`") == 0);
}
