// What resolution reads from the project: PEP 735 groups expanded from their typed entries, and
// the pre-release modes, whose one list (targets/prerelease.h) the project reader checks too.
#include <catch2/catch.hpp>

#include "lock/project_requirements.h"
#include "targets/prerelease.h"
#include "tests/support/package_name.h"

namespace {

using wv::targets::DependencyGroupEntry;

DependencyGroupEntry requirement(std::string text) { return {std::move(text), ""}; }
DependencyGroupEntry include(std::string group) { return {"", std::move(group)}; }

std::vector<std::string> names(const std::vector<wv::pkg::Requirement>& requirements) {
  std::vector<std::string> out;
  for (const auto& r : requirements) out.push_back(r.name);
  return out;
}

}  // namespace

TEST_CASE("project requirements: groups expand their includes, normalised", "[lock][groups]") {
  auto expanded = wv::lock::expand_dependency_groups(
      {{"Dev", {requirement("pytest>=8"), include("Lint_Tools")}},
       {"lint-tools", {requirement("ruff")}}});
  REQUIRE(expanded);
  CHECK(names(expanded->at("dev"_pkg)) == std::vector<std::string>{"pytest", "ruff"});
  CHECK(names(expanded->at("lint-tools"_pkg)) == std::vector<std::string>{"ruff"});
  // A requirement string that looks like the old encoded include is a requirement, not an
  // include: the entry's kind is typed.
  auto odd = wv::lock::expand_dependency_groups({{"dev", {requirement("include-group:lint")}}});
  CHECK_FALSE(odd);
}

TEST_CASE("project requirements: unknown and cyclic includes are errors", "[lock][groups]") {
  auto unknown = wv::lock::expand_dependency_groups({{"dev", {include("nope")}}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "dependency group `dev` includes `nope`, which is not declared");
  auto cycle = wv::lock::expand_dependency_groups(
      {{"a", {include("b")}}, {"b", {include("a")}}});
  REQUIRE_FALSE(cycle);
  CHECK(cycle.error().message.find("includes itself") != std::string::npos);
}

TEST_CASE("project requirements: pre-release modes round-trip through their one list",
          "[lock][prerelease]") {
  for (std::string_view name : wv::targets::kPrereleaseModes) {
    auto mode = wv::targets::parse_prerelease_mode(name);
    REQUIRE(mode);
    CHECK(to_string(*mode) == name);
  }
  CHECK(wv::targets::parse_prerelease_mode("if-necessary-or-explicit") ==
        wv::lock::PrereleaseMode::kIfNecessaryOrExplicit);
  CHECK_FALSE(wv::targets::parse_prerelease_mode("sometimes"));
  CHECK(wv::lock::ProjectRequirements{}.prerelease == wv::lock::PrereleaseMode::kIfNecessaryOrExplicit);
}
