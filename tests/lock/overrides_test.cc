// `constraint-dependencies` and `override-dependencies` (uv's "Dependency constraints" and
// "Dependency overrides"): a constraint narrows a package wherever it is required and adds
// nothing; an override replaces every requirement on its package, a dependency's bad pin
// included, where that requirement applies; both enter the input-hash only when given.
#include <catch2/catch.hpp>

#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"

namespace {

using wv::test::MemorySource;

const char* kTargets = R"(
[[tool.wvlock.target]]
name = "linux"
platform = "linux-x86_64"
glibc = "2.28"

[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"
macos = "14.0"
)";

std::vector<wv::pkg::Requirement> parsed(const std::vector<std::string>& items) {
  auto requirements = wv::lock::parse_requirements(items, "test");
  REQUIRE(requirements);
  return std::move(*requirements);
}

wv::lock::ProjectRequirements project(const std::vector<std::string>& dependencies) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  requirements.dependencies = parsed(dependencies);
  return requirements;
}

// app 1.0 pins `lib==1.0` (a bad pin); lib 1.0, 2.0, 3.0; tool 1.0 .. 3.0, unused by default.
MemorySource ecosystem() {
  MemorySource source;
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib==1.0"}});
  for (const char* version : {"1.0", "2.0", "3.0"}) {
    source.add({.name = "lib", .version = version});
    source.add({.name = "tool", .version = version});
  }
  return source;
}

std::string locked(const wv::lock::ResolveOutcome& outcome, const std::string& name,
                   const std::string& target = "linux") {
  for (const auto& failure : outcome.failures) {
    if (failure.target == target) return "(failed: " + failure.explanation + ")";
  }
  REQUIRE(outcome.lockfile);
  const auto* package = outcome.lockfile->find_package_for_target(*wv::pkg::parse_package_name(name), target);
  return package ? package->version : "";
}

wv::lock::ResolveOutcome lock(MemorySource& source, const wv::lock::ProjectRequirements& project) {
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project, wv::test::contexts(kTargets), catalog, {});
  INFO((outcome ? "" : outcome.error().to_string()));
  REQUIRE(outcome);
  return std::move(*outcome);
}

}  // namespace

TEST_CASE("overrides: an override replaces a dependency's pin", "[lock][overrides]") {
  MemorySource source = ecosystem();
  wv::lock::ProjectRequirements requirements = project({"app"});
  CHECK(locked(lock(source, requirements), "lib") == "1.0");  // the pin as published

  requirements.overrides = parsed({"lib>=2"});
  const auto outcome = lock(source, requirements);
  CHECK(locked(outcome, "lib") == "3.0");
  CHECK(locked(outcome, "lib", "mac") == "3.0");
}

TEST_CASE("overrides: the project's own requirement is replaced too", "[lock][overrides]") {
  MemorySource source = ecosystem();
  wv::lock::ProjectRequirements requirements = project({"lib<2"});
  requirements.overrides = parsed({"lib==2.0"});
  CHECK(locked(lock(source, requirements), "lib") == "2.0");
}

TEST_CASE("overrides: markers tell a package's overrides apart per target", "[lock][overrides]") {
  MemorySource source = ecosystem();
  wv::lock::ProjectRequirements requirements = project({"app"});
  requirements.overrides =
      parsed({"lib==2.0 ; sys_platform == 'linux'", "lib==3.0 ; sys_platform == 'darwin'"});
  const auto outcome = lock(source, requirements);
  CHECK(locked(outcome, "lib", "linux") == "2.0");
  CHECK(locked(outcome, "lib", "mac") == "3.0");
}

TEST_CASE("overrides: an override does not add its package", "[lock][overrides]") {
  MemorySource source = ecosystem();
  wv::lock::ProjectRequirements requirements = project({"lib"});
  requirements.overrides = parsed({"tool==1.0"});
  const auto outcome = lock(source, requirements);
  CHECK(locked(outcome, "tool").empty());
  CHECK(locked(outcome, "lib") == "3.0");
}

TEST_CASE("constraints: a constraint narrows a version wherever it is required",
          "[lock][constraints]") {
  MemorySource source = ecosystem();
  source.add({.name = "app", .version = "2.0", .requires_dist = {"tool"}});
  wv::lock::ProjectRequirements requirements = project({"app>=2", "lib"});
  requirements.constraints = parsed({"tool<3", "lib<2 ; sys_platform == 'darwin'"});
  const auto outcome = lock(source, requirements);
  CHECK(locked(outcome, "tool") == "2.0");    // transitive, narrowed
  CHECK(locked(outcome, "lib", "linux") == "3.0");  // the marker does not hold there
  CHECK(locked(outcome, "lib", "mac") == "1.0");
}

TEST_CASE("constraints: a constraint adds nothing, and a conflict fails the target",
          "[lock][constraints]") {
  MemorySource source = ecosystem();
  wv::lock::ProjectRequirements requirements = project({"lib>=2"});
  requirements.constraints = parsed({"tool==1.0"});
  CHECK(locked(lock(source, requirements), "tool").empty());
  requirements.constraints = parsed({"lib<2"});
  CHECK(locked(lock(source, requirements), "lib").rfind("(failed", 0) == 0);
}

TEST_CASE("constraints and overrides enter the input-hash only when given",
          "[lock][constraints][overrides]") {
  const auto targets = wv::test::contexts(kTargets);
  wv::lock::ProjectRequirements requirements = project({"app"});
  const std::string plain = wv::lock::input_hash(requirements, targets, {});
  requirements.constraints = parsed({"lib<3"});
  const std::string constrained = wv::lock::input_hash(requirements, targets, {});
  CHECK(constrained != plain);
  requirements.overrides = parsed({"lib<3"});
  const std::string overridden = wv::lock::input_hash(requirements, targets, {});
  CHECK(overridden != constrained);
  requirements.constraints.clear();
  requirements.overrides.clear();
  CHECK(wv::lock::input_hash(requirements, targets, {}) == plain);
}
