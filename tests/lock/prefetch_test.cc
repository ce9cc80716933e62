// Prefetch never changes a lock (docs/solver.md "Prefetch"): random ecosystems locked for two
// targets through a source whose prefetch hints say "ready" (the provider's lookahead then
// reads ahead through the real calls) and through one whose hints say "nothing fetched" (no
// lookahead) give the same lockfile text, or the same failure, also when locked again with
// the first lock as the previous one.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "lock/lockfile.h"
#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"

namespace {

using wv::test::MemorySource;
using wv::test::MemoryWheel;

// A seeded ecosystem: packages p0..p13, one to four versions each, dependencies only on
// later packages (so most roots resolve), with ranges, pins, extras and platform markers.
MemorySource ecosystem(unsigned seed) {
  std::mt19937 random(seed);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  MemorySource source;
  constexpr int kPackages = 14;
  for (int p = 0; p < kPackages; ++p) {
    int versions = pick(1, 4);
    for (int v = 1; v <= versions; ++v) {
      MemoryWheel wheel;
      wheel.name = "p" + std::to_string(p);
      wheel.version = std::to_string(v) + ".0";
      if (pick(0, 3) == 0) wheel.tags = "cp312-cp312-manylinux_2_28_x86_64";
      int dependencies = p + 1 < kPackages ? pick(0, 3) : 0;
      for (int d = 0; d < dependencies; ++d) {
        std::string line = "p" + std::to_string(pick(p + 1, kPackages - 1));
        switch (pick(0, 5)) {
          case 0: line += ">=" + std::to_string(pick(1, 3)) + ".0"; break;
          case 1: line += "<" + std::to_string(pick(2, 4)) + ".0"; break;
          case 2: line += "==" + std::to_string(pick(1, 4)) + ".0"; break;
          case 3: line += "[x]"; break;
          case 4: line += "; sys_platform == 'linux'"; break;
          default: break;
        }
        wheel.requires_dist.push_back(line);
      }
      if (p + 1 < kPackages && pick(0, 2) == 0) {
        wheel.provides_extra = {"x"};
        wheel.requires_dist.push_back("p" + std::to_string(pick(p + 1, kPackages - 1)) +
                                      "; extra == 'x'");
      }
      source.add(wheel);
    }
  }
  return source;
}

wv::lock::ProjectRequirements roots(unsigned seed) {
  std::mt19937 random(seed * 7919u + 1);
  std::vector<std::string> dependencies;
  for (int i = 0; i < 3; ++i) {
    dependencies.push_back("p" + std::to_string(std::uniform_int_distribution<int>(0, 6)(random)));
  }
  wv::lock::ProjectRequirements project;
  project.name = "demo";
  project.dependencies = *wv::lock::parse_requirements(dependencies, "dependencies");
  return project;
}

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

// The lockfile text, or the failures, of one lock.
std::string lock_text(MemorySource& source, const wv::lock::ProjectRequirements& project,
                      const std::vector<wv::lock::TargetContext>& targets,
                      const wv::lock::Lockfile* previous) {
  wv::lock::Catalog catalog(source);
  wv::lock::ResolveOptions options;
  options.previous = previous;
  auto outcome = wv::lock::resolve_targets(project, targets, catalog, options);
  if (!outcome) return "error: " + outcome.error().to_string();
  if (!outcome->lockfile) {
    std::string text = "failed:";
    for (const auto& failure : outcome->failures) text += "\n" + failure.target + ": " + failure.explanation;
    return text;
  }
  return wv::lock::write_lockfile(*outcome->lockfile);
}

}  // namespace

TEST_CASE("prefetch: random ecosystems lock the same with and without the lookahead",
          "[lock][prefetch]") {
  const auto targets = wv::test::contexts(kTargets);
  int locked = 0;
  int hinted = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    MemorySource plain = ecosystem(seed);
    MemorySource ahead = ecosystem(seed);
    ahead.answer_prefetch = true;
    const auto project = roots(seed);
    std::string without = lock_text(plain, project, targets, nullptr);
    std::string with = lock_text(ahead, project, targets, nullptr);
    REQUIRE(with == without);
    hinted += ahead.prefetch_hints > 0;
    if (without.rfind("failed", 0) == 0 || without.rfind("error", 0) == 0) continue;
    ++locked;
    auto previous = wv::lock::read_lockfile(without, "pylock.toml");
    REQUIRE(previous);
    CHECK(lock_text(ahead, project, targets, &*previous) ==
          lock_text(plain, project, targets, &*previous));
  }
  // The cases exercise the lookahead, and most of them lock.
  CHECK(hinted == 60);
  CHECK(locked > 15);
}
