// The lookahead of several targets walks in step (lock/lookahead.h): a level of every target's
// graph is one batch of each kind, each file asked for once, and the variants files of every
// stable version of a variant package come in the batch of its first candidate. Counted on
// the hints an in-memory source receives: with a remote index, each batch is a round trip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lock/lockfile.h"
#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"

namespace {

using wv::test::MemorySource;
using wv::test::MemoryWheel;

constexpr int kDepth = 6;

const char* kLinuxAndMac = R"(
[[tool.wvlock.target]]
name = "linux"
platform = "linux-x86_64"
glibc = "2.28"
[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"
macos = "14.0"
)";

// `app` has a Linux wheel that needs l1 and a macOS wheel that needs m1; below them, two
// disjoint chains l1 -> ... -> l6 and m1 -> ... -> m6. Each target walks its own chain.
MemorySource two_chains() {
  MemorySource source;
  source.add({.name = "app", .version = "1.0", .tags = "cp312-cp312-manylinux_2_28_x86_64",
              .requires_dist = {"l1"}});
  source.add({.name = "app", .version = "1.0", .tags = "cp312-cp312-macosx_11_0_arm64",
              .requires_dist = {"m1"}});
  for (const char* chain : {"l", "m"}) {
    for (int i = 1; i <= kDepth; ++i) {
      MemoryWheel wheel{.name = chain + std::to_string(i), .version = "1.0"};
      if (i < kDepth) wheel.requires_dist = {chain + std::to_string(i + 1)};
      source.add(wheel);
    }
  }
  return source;
}

wv::lock::ProjectRequirements project(std::vector<std::string> dependencies) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  requirements.dependencies = *wv::lock::parse_requirements(dependencies, "dependencies");
  return requirements;
}

std::string lock_text(MemorySource& source, const std::vector<std::string>& dependencies,
                      const std::string& targets) {
  wv::lock::Catalog catalog(source);
  auto outcome =
      wv::lock::resolve_targets(project(dependencies), wv::test::contexts(targets), catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  return wv::lock::write_lockfile(*outcome->lockfile);
}

std::size_t nonempty(const std::vector<std::vector<std::string>>& batches) {
  return std::size_t(std::count_if(batches.begin(), batches.end(),
                                   [](const auto& batch) { return !batch.empty(); }));
}

}  // namespace

TEST_CASE("lookahead: the targets' graphs are walked in step, each file once",
          "[lock][prefetch][lookahead]") {
  MemorySource ahead = two_chains();
  ahead.answer_prefetch = true;
  MemorySource plain = two_chains();
  std::string with = lock_text(ahead, {"app"}, kLinuxAndMac);
  CHECK(with == lock_text(plain, {"app"}, kLinuxAndMac));
  CHECK(with.find("name = \"l6\"") != std::string::npos);
  CHECK(with.find("name = \"m6\"") != std::string::npos);
  // One batch of pages per level: app, then l1+m1, ..., l6+m6 — not one chain after the other.
  CHECK(nonempty(ahead.listing_batches) == kDepth + 1);
  // One batch of METADATA per level: both app wheels together, then l_i+m_i.
  CHECK(nonempty(ahead.metadata_batches) == kDepth + 1);
  REQUIRE(!ahead.listing_batches.empty());
  CHECK(ahead.listing_batches[0] == std::vector<std::string>{"app"});
  std::set<std::string> seen;
  for (const auto& batch : ahead.listing_batches) {
    for (const std::string& name : batch) CHECK(seen.insert(name).second);  // asked once
  }
  CHECK(seen.size() == 1 + 2 * kDepth);
  for (const auto& batch : ahead.metadata_batches) {
    if (batch.empty()) continue;
    CHECK(batch.size() == 2);  // a level of each target's chain
  }
}

TEST_CASE("lookahead: a variant candidate brings every stable version's variants file",
          "[lock][prefetch][lookahead]") {
  auto make = [] {
    MemorySource source;
    wv::pkg::VariantsMetadata variants;
    variants.schema_url = "https://variants-schema.wheelnext.dev/v0.0.3.json";
    variants.default_priorities.namespaces = {"nvidia"};
    variants.providers["nvidia"].requirements = {"nvidia-variant-provider"};
    variants.variants["null"] = {};
    for (const char* version : {"1.0", "2.0", "3.0rc1", "3.0"}) {
      source.add({.name = "accel", .version = version,
                  .tags = "cp312-cp312-manylinux_2_28_x86_64", .label = "null"});
      source.add_variants("accel", version, variants);
    }
    return source;
  };
  const char* kTwoLinux = R"(
[[tool.wvlock.target]]
name = "one"
platform = "linux-x86_64"
glibc = "2.28"
[[tool.wvlock.target]]
name = "two"
platform = "linux-x86_64"
glibc = "2.35"
)";
  MemorySource ahead = make();
  ahead.answer_prefetch = true;
  MemorySource plain = make();
  CHECK(lock_text(ahead, {"accel"}, kTwoLinux) == lock_text(plain, {"accel"}, kTwoLinux));
  REQUIRE(nonempty(ahead.variants_batches) >= 1);
  // The first batch: the candidate (3.0) and the other stable versions, not the pre-release.
  std::vector<std::string> first = ahead.variants_batches[0];
  std::sort(first.begin(), first.end());
  CHECK(first == std::vector<std::string>{"accel==1.0", "accel==2.0", "accel==3.0"});

  // One target has no later target whose preferences compare older versions: only the
  // candidate's file is read ahead.
  MemorySource single = make();
  single.answer_prefetch = true;
  const char* kOne = R"(
[[tool.wvlock.target]]
name = "one"
platform = "linux-x86_64"
glibc = "2.28"
)";
  (void)lock_text(single, {"accel"}, kOne);
  REQUIRE(nonempty(single.variants_batches) >= 1);
  CHECK(single.variants_batches[0] == std::vector<std::string>{"accel==3.0"});
}
