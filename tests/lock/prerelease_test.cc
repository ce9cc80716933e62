// Pre-release handling of the resolver (docs/solver.md "Pre-releases"): stable candidates are
// tried before pre-releases whatever the requirements that name a pre-release look like;
// pre-releases stay candidates, so one is taken when every stable candidate in range fails, in
// each target on its own; and post releases follow PEP 440 as packaging 26 reads it.
#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"
#include "targets/project_file.h"

namespace {

using wv::lock::PrereleaseMode;
using wv::test::MemorySource;
using wv::test::MemoryWheel;

const char* kLinux = R"(
[[tool.wvlock.target]]
name = "linux"
platform = "linux-x86_64"
glibc = "2.28"
)";

const char* kMac = R"(
[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"
macos = "14.0"
)";

using wv::test::contexts;

wv::lock::ProjectRequirements project(
    std::vector<std::string> dependencies,
    PrereleaseMode mode = PrereleaseMode::kIfNecessaryOrExplicit) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  auto parsed = wv::lock::parse_requirements(dependencies, "dependencies");
  REQUIRE(parsed);
  requirements.dependencies = std::move(*parsed);
  requirements.prerelease = mode;
  return requirements;
}

// Versions of `name` with no dependencies.
void add_plain(MemorySource& source, const std::string& name,
               const std::vector<std::string>& versions) {
  for (const std::string& version : versions) source.add({.name = name, .version = version});
}

wv::lock::ResolveOutcome lock(MemorySource& source, const wv::lock::ProjectRequirements& project,
                              const std::string& targets_toml = kLinux,
                              const wv::lock::ResolveOptions& options = {}) {
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project, contexts(targets_toml), catalog, options);
  INFO((outcome ? "" : outcome.error().to_string()));
  REQUIRE(outcome);
  return std::move(*outcome);
}

// The version `target` locks for `name`; "" when it locks none, "(failed)" when it failed.
std::string locked(const wv::lock::ResolveOutcome& outcome, const std::string& name,
                   const std::string& target = "linux") {
  for (const auto& failure : outcome.failures) {
    if (failure.target == target) {
      UNSCOPED_INFO(target << " failed: " << failure.explanation);
      return "(failed)";
    }
  }
  if (!outcome.lockfile) return "(failed)";
  const auto* package = outcome.lockfile->find_package_for_target(*wv::pkg::parse_package_name(name), target);
  return package ? package->version : "";
}

}  // namespace

// ---- a stable candidate is preferred ----------------------------------------------------------

TEST_CASE("prerelease: a requirement naming a pre-release still gets the newest stable",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"1.0", "1.1rc1", "1.1", "1.2b2"});
  CHECK(locked(lock(source, project({"lib>=1.1rc1"})), "lib") == "1.1");
  // ... unless pre-releases are allowed for every package.
  CHECK(locked(lock(source, project({"lib>=1.1rc1"}, PrereleaseMode::kAllow)), "lib") == "1.2b2");
  // `explicit` and `if-necessary` prefer stable too.
  CHECK(locked(lock(source, project({"lib>=1.1rc1"}, PrereleaseMode::kExplicit)), "lib") == "1.1");
  CHECK(locked(lock(source, project({"lib>=1.1rc1"}, PrereleaseMode::kIfNecessary)), "lib") ==
        "1.1");
}

TEST_CASE("prerelease: the stable preference does not depend on the order of the requirements",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"0.8", "1.4", "2.0a3"});
  for (const auto& order : std::vector<std::vector<std::string>>{
           {"lib>=1.0a1", "lib>=0.9"}, {"lib>=0.9", "lib>=1.0a1"},
           {"lib>=0.9,>0.9a1", "lib"}, {"lib", "lib>=0.9,>0.9a1"}}) {
    INFO(order[0] << ", " << order[1]);
    CHECK(locked(lock(source, project(order)), "lib") == "1.4");
  }
}

TEST_CASE("prerelease: repeated and redundant pre-release clauses keep the stable preference",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"1.0", "1.5", "1.6", "2.0b1", "3.0"});
  CHECK(locked(lock(source, project({"lib>=1.0b1", "lib<3", "lib>=1.0b1,<3", "lib!=1.6",
                                     "lib>=0.1.dev0"})),
               "lib") == "1.5");
}

TEST_CASE("prerelease: a pre-release clause spread over extras keeps the stable preference",
          "[lock][prerelease]") {
  MemorySource source;
  for (const char* version : {"1.0", "2.0b1"}) {
    source.add({.name = "lib", .version = version, .requires_dist = {"speedup ; extra == 'fast'"},
                .provides_extra = {"fast"}});
  }
  add_plain(source, "speedup", {"1.0"});
  // The root names the pre-release through the extra only, in either order with the base.
  CHECK(locked(lock(source, project({"lib[fast]>=0.5a1", "lib"})), "lib") == "1.0");
  CHECK(locked(lock(source, project({"lib", "lib[fast]>=0.5a1"})), "lib") == "1.0");
  // A dependency names it through the extra, the root through the base.
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib[fast]>=1.0a1"}});
  auto outcome = lock(source, project({"app", "lib"}));
  CHECK(locked(outcome, "lib") == "1.0");
  CHECK(locked(outcome, "speedup") == "1.0");
}

TEST_CASE("prerelease: a transitive requirement naming a pre-release gets the newest stable",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"1.0", "2.0rc1"});
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib>=0.9rc1"}});
  CHECK(locked(lock(source, project({"app"})), "lib") == "1.0");
}

// ---- a pre-release when every stable candidate fails -------------------------------------------

TEST_CASE("prerelease: a pre-release is taken when every stable candidate conflicts",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "pin", {"1.0", "2.0"});
  source.add({.name = "lib", .version = "1.0", .requires_dist = {"pin==2.0"}});
  source.add({.name = "lib", .version = "1.1", .requires_dist = {"pin>=2"}});
  source.add({.name = "lib", .version = "2.0b1", .requires_dist = {"pin<2"}});
  source.add({.name = "lib", .version = "2.0b2", .requires_dist = {"pin>1.5"}});
  auto outcome = lock(source, project({"lib>=1.0", "pin==1.0"}));
  CHECK(locked(outcome, "lib") == "2.0b1");
  CHECK(locked(outcome, "pin") == "1.0");
  // `disallow` never takes one: the lock fails and says why.
  auto refused = lock(source, project({"lib>=1.0", "pin==1.0"}, PrereleaseMode::kDisallow));
  REQUIRE(refused.failures.size() == 1);
  CHECK(refused.failures[0].explanation.find("lib") != std::string::npos);
  CHECK_FALSE(refused.lockfile);
}

TEST_CASE("prerelease: a stable version without a wheel for the target falls back to a "
          "pre-release", "[lock][prerelease]") {
  MemorySource source;
  source.add({.name = "lib", .version = "1.0", .tags = "cp311-cp311-manylinux_2_28_x86_64"});
  source.add({.name = "lib", .version = "1.1rc1"});
  CHECK(locked(lock(source, project({"lib"})), "lib") == "1.1rc1");
}

TEST_CASE("prerelease: a pre-release required after the package was decided replaces the "
          "stable", "[lock][prerelease]") {
  MemorySource source;
  // `lib` has fewer candidates than `gamma`, so it is decided (1.0) before `gamma` and `delta`
  // are; every `delta` then asks for lib>=2.0.dev1, so lib 1.0 must be undone.
  source.add({.name = "alpha", .version = "1.0", .requires_dist = {"lib"}});
  source.add({.name = "beta", .version = "1.0", .requires_dist = {"gamma"}});
  for (const char* version : {"0.1", "0.2", "0.3", "0.4", "0.5"}) {
    source.add({.name = "gamma", .version = version, .requires_dist = {"delta"}});
    source.add({.name = "delta", .version = version, .requires_dist = {"lib>=2.0.dev1"}});
  }
  SECTION("only a pre-release satisfies the late requirement") {
    add_plain(source, "lib", {"1.0", "2.0rc1"});
    auto outcome = lock(source, project({"alpha", "beta"}));
    CHECK(locked(outcome, "lib") == "2.0rc1");
    CHECK(locked(outcome, "gamma") == "0.5");
    CHECK(locked(outcome, "delta") == "0.5");
  }
  SECTION("a stable satisfies it too") {
    add_plain(source, "lib", {"1.0", "2.0rc1", "2.0", "2.1b1"});
    auto outcome = lock(source, project({"alpha", "beta"}));
    CHECK(locked(outcome, "lib") == "2.0");
    CHECK(locked(outcome, "delta") == "0.5");
  }
}

TEST_CASE("prerelease: each target falls back on its own, and no target inherits another's "
          "pre-release", "[lock][prerelease]") {
  MemorySource source;
  // lib 1.1 needs a helper that Linux does not have, so Linux must take lib 2.0b1; macOS keeps
  // the stable 1.1, in either order of the targets.
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib"}});
  add_plain(source, "helper", {"1.0"});
  source.add({.name = "lib", .version = "1.0", .requires_dist = {"helper==9"}});
  source.add({.name = "lib", .version = "1.1",
              .requires_dist = {"helper==9 ; sys_platform == 'linux'"}});
  source.add({.name = "lib", .version = "2.0b1"});
  for (const std::string& targets : {std::string(kLinux) + kMac, std::string(kMac) + kLinux}) {
    INFO(targets);
    auto outcome = lock(source, project({"app"}), targets);
    CHECK(locked(outcome, "lib", "linux") == "2.0b1");
    CHECK(locked(outcome, "lib", "mac") == "1.1");
  }
  // A requirement that needs the pre-release on Linux only.
  MemorySource marked;
  add_plain(marked, "lib", {"1.0", "2.0b1"});
  marked.add({.name = "app", .version = "1.0",
              .requires_dist = {"lib>=2.0b1 ; sys_platform == 'linux'",
                                "lib ; sys_platform == 'darwin'"}});
  auto outcome = lock(marked, project({"app"}), std::string(kLinux) + kMac);
  CHECK(locked(outcome, "lib", "linux") == "2.0b1");
  CHECK(locked(outcome, "lib", "mac") == "1.0");
}

TEST_CASE("prerelease: a pre-release the previous lockfile chose is kept", "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"1.0", "2.0b1"});
  wv::lock::Lockfile previous;
  wv::lock::LockedPackage old_lib{.name = "lib"_pkg, .version = "2.0b1"};
  old_lib.targets["linux"];
  previous.packages = {old_lib};
  wv::lock::ResolveOptions options;
  options.previous = &previous;
  CHECK(locked(lock(source, project({"lib"}), kLinux, options), "lib") == "2.0b1");
  // ... but not under `disallow`, nor when upgrading.
  CHECK(locked(lock(source, project({"lib"}, PrereleaseMode::kDisallow), kLinux, options),
               "lib") == "1.0");
  options.upgrade_all = true;
  CHECK(locked(lock(source, project({"lib"}), kLinux, options), "lib") == "1.0");
}

TEST_CASE("prerelease: `explicit` admits pre-releases only for packages the project names "
          "with one", "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"2.0a1", "2.0a2"});
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib>=2.0a1"}});
  CHECK(locked(lock(source, project({"lib>=2.0a1"}, PrereleaseMode::kExplicit)), "lib") == "2.0a2");
  // An exclusion names no wanted pre-release.
  CHECK(locked(lock(source, project({"lib!=2.0a1"}, PrereleaseMode::kExplicit)), "lib") ==
        "(failed)");
  // Nor does a dependency's requirement.
  CHECK(locked(lock(source, project({"app"}, PrereleaseMode::kExplicit)), "lib") == "(failed)");
  // The default mode takes the only versions there are.
  CHECK(locked(lock(source, project({"lib!=2.0a2"})), "lib") == "2.0a1");
  CHECK(locked(lock(source, project({"app"})), "lib") == "2.0a2");
}

// ---- capped ranges whose bound is a pre-release ------------------------------------------------

TEST_CASE("prerelease: a pre-release upper bound admits the pre-releases below it",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "pin", {"1", "2"});
  source.add({.name = "lib", .version = "2.5", .requires_dist = {"pin==2"}});
  add_plain(source, "lib", {"3.0rc1", "3.6a2", "3.6b1", "3.6", "4.0"});
  // Nothing rejects 2.5: the stable candidate wins over the pre-releases in range.
  CHECK(locked(lock(source, project({"lib>=2.5,<=3.6b1"})), "lib") == "2.5");
  // 2.5 conflicts: the newest pre-release in range, not 3.6 or 4.0 above the cap.
  CHECK(locked(lock(source, project({"lib>=2.5,<=3.6b1", "pin==1"})), "lib") == "3.6b1");
  CHECK(locked(lock(source, project({"lib>=2.5,<3.6b1", "pin==1"})), "lib") == "3.6a2");
  // The cap may come from another requirement than the floor.
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib<=3.6b1"}});
  CHECK(locked(lock(source, project({"lib>=2.5", "app", "pin==1"})), "lib") == "3.6b1");
  // An exclusion carves the range; the pre-releases on either side remain candidates.
  CHECK(locked(lock(source, project({"lib>=2.5,<=3.6b1,!=3.6b1", "pin==1"})), "lib") == "3.6a2");
}

// ---- post releases ----------------------------------------------------------------------------

TEST_CASE("prerelease: a bound below a post release admits the base's pre-releases",
          "[lock][prerelease]") {
  MemorySource source;
  // 1.0a1 sorts before 1.0.post1; 1.0.post1.dev0 is a pre-release of 1.0.post1 itself.
  add_plain(source, "lib", {"1.0a1", "1.0.post1.dev0"});
  CHECK(locked(lock(source, project({"lib<1.0.post1"})), "lib") == "1.0a1");
  // Transitively the same.
  source.add({.name = "app", .version = "1.0", .requires_dist = {"lib<1.0.post1"}});
  CHECK(locked(lock(source, project({"app"})), "lib") == "1.0a1");
  // With stable versions below the bound the newest of them; post releases of the base count.
  add_plain(source, "lib", {"0.9", "1.0", "1.0.post0"});
  CHECK(locked(lock(source, project({"lib<1.0.post1"})), "lib") == "1.0.post0");
}

TEST_CASE("prerelease: pre-releases of post releases order and count as pre-releases",
          "[lock][prerelease]") {
  MemorySource source;
  add_plain(source, "lib", {"1.0", "1.0.post1.dev0", "1.0.post1.dev3", "1.0.post2.dev1"});
  // The dev releases of post releases are newer than 1.0 but pre-releases: 1.0 wins.
  CHECK(locked(lock(source, project({"lib>=1.0"})), "lib") == "1.0");
  CHECK(locked(lock(source, project({"lib>=1.0"}, PrereleaseMode::kAllow)), "lib") ==
        "1.0.post2.dev1");
  // Below 1.0.post2 (whose own dev release is out): the latest dev release of post1.
  // >1.0 leaves out every post release of 1.0, their dev releases included.
  CHECK(locked(lock(source, project({"lib>1.0"}, PrereleaseMode::kAllow)), "lib") == "(failed)");
  CHECK(locked(lock(source, project({"lib>=1.0.post1.dev0,<1.0.post2"})), "lib") ==
        "1.0.post1.dev3");
  // When 1.0 is excluded (a conflict or `!=`), the newest pre-release of a post release.
  CHECK(locked(lock(source, project({"lib!=1.0"})), "lib") == "1.0.post2.dev1");
  // >V.postN: not V.postN's local versions, but dev releases of later post releases.
  MemorySource post;
  add_plain(post, "lib", {"1.0.post0+local", "1.0.post1.dev0"});
  CHECK(locked(lock(post, project({"lib>1.0.post0"})), "lib") == "1.0.post1.dev0");
  // A post release of a pre-release is a pre-release.
  MemorySource pre_post;
  add_plain(pre_post, "lib", {"0.9", "1.0a1", "1.0a1.post1"});
  CHECK(locked(lock(pre_post, project({"lib>=1.0a1"})), "lib") == "1.0a1.post1");
  pre_post.add({.name = "lib", .version = "1.0"});
  CHECK(locked(lock(pre_post, project({"lib>=1.0a1"})), "lib") == "1.0");
}
