// What a failed resolution says: the versions that exist when a specifier matches none, that no
// index has a project (and a close name that one has), one range for the versions that fail for
// one cause, which failures come from a package with no installable file; and the lock-time
// check of requires-python against each target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"
#include "tests/support/package_name.h"

namespace {

using wv::test::MemorySource;

const char* kCpu = R"(
[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
)";

wv::lock::ProjectRequirements project(std::vector<std::string> dependencies) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  requirements.dependencies = *wv::lock::parse_requirements(dependencies, "dependencies");
  return requirements;
}

// The failure of the one target `cpu`.
wv::lock::TargetFailure failure_of(MemorySource& source, std::vector<std::string> dependencies) {
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project(std::move(dependencies)),
                                           wv::test::contexts(kCpu), catalog, {});
  REQUIRE(outcome);
  REQUIRE_FALSE(outcome->lockfile);
  REQUIRE(outcome->failures.size() == 1);
  return outcome->failures[0];
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t line_count(const std::string& text) {
  return std::size_t(std::count(text.begin(), text.end(), '\n')) + 1;
}

}  // namespace

TEST_CASE("explain: a specifier no version satisfies names the versions that exist",
          "[lock][explain]") {
  MemorySource source;
  for (const char* version : {"1.26.4", "2.2.6", "2.3.3"}) {
    source.add({.name = "numpy", .version = version});
  }
  auto failure = failure_of(source, {"numpy>=9"});
  CHECK(failure.explanation ==
        "Because only numpy 1.26.4, 2.2.6, 2.3.3 are available and demo depends on numpy>=9, "
        "version solving failed.");
  CHECK(failure.without_installable_file.empty());

  // One further down the graph reads the same, with the version that asks.
  source.add({.name = "app", .version = "1.0", .requires_dist = {"numpy>=9,<10"}});
  auto deeper = failure_of(source, {"app"});
  INFO(deeper.explanation);
  CHECK(has(deeper.explanation,
            "only numpy 1.26.4, 2.2.6, 2.3.3 are available and every version of app depends "
            "on numpy<10,>=9"));
  CHECK_FALSE(has(deeper.explanation, "no published version"));
}

TEST_CASE("explain: a long list of versions is abbreviated, yanked ones said apart",
          "[lock][explain]") {
  MemorySource source;
  for (int minor = 0; minor < 20; ++minor) {
    source.add({.name = "lib", .version = "1." + std::to_string(minor)});
  }
  source.add({.name = "lib", .version = "9.0", .yanked = true});
  auto failure = failure_of(source, {"lib>=9"});
  CHECK(failure.explanation ==
        "Because only lib 1.0, 1.1, 1.2, ..., 1.17, 1.18, 1.19 (20 versions) are available "
        "(9.0 is yanked) and demo depends on lib>=9, version solving failed.");
}

TEST_CASE("explain: a project no index has says so, with a close name one has",
          "[lock][explain]") {
  MemorySource source;
  source.add({.name = "numpy", .version = "2.3.3"});
  auto misspelt = failure_of(source, {"numpy", "nmupy>=1"});
  INFO(misspelt.explanation);
  CHECK(has(misspelt.explanation, "Because no project `nmupy` and demo depends on nmupy>=1"));
  CHECK(has(misspelt.explanation, "\nhint: did you mean `numpy`?"));
  CHECK_FALSE(has(misspelt.explanation, "only"));
  CHECK(misspelt.without_installable_file.empty());

  // Without a specifier the same; a name far from every listed one gets no guess.
  auto unknown = failure_of(source, {"numpy", "zzzzzz"});
  INFO(unknown.explanation);
  CHECK(has(unknown.explanation, "no project `zzzzzz`"));
  CHECK_FALSE(has(unknown.explanation, "did you mean"));
}

TEST_CASE("explain: notes follow the packages of the derivation, not the words of its text",
          "[lock][explain]") {
  // `depends` is pinned to an index and is a word of the explanation ("demo depends on ..."),
  // but the derivation is about numpy alone: no note about `depends`.
  MemorySource source;
  source.add({.name = "numpy", .version = "2.3.3"});
  source.add({.name = "depends", .version = "1.0"});
  auto targets = wv::test::contexts(kCpu);
  targets[0].pinned_indexes = {{"depends"_pkg, "extra"}};
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"numpy>=9"}), targets, catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->failures.size() == 1);
  CHECK(outcome->failures[0].explanation ==
        "Because only numpy 2.3.3 is available and demo depends on numpy>=9, version solving "
        "failed.");
}

TEST_CASE("explain: versions that fail for one cause read as one range", "[lock][explain]") {
  // pyrax 1.9.8 -> oslo.serialization: its 1.x versions need msgpack-python>=9 (no such
  // version), its 0.9.0 and 2.0.0 need legacy, which has no wheel for cpu.
  MemorySource source;
  source.add({.name = "pyrax", .version = "1.9.8", .requires_dist = {"oslo.serialization", "six"}});
  source.add({.name = "six", .version = "1.16.0"});
  for (int minor = 0; minor <= 14; ++minor) {
    source.add({.name = "oslo.serialization", .version = "1." + std::to_string(minor) + ".0",
                .requires_dist = {"msgpack-python>=9"}});
  }
  source.add({.name = "oslo.serialization", .version = "2.0.0", .requires_dist = {"legacy"}});
  source.add({.name = "oslo.serialization", .version = "0.9.0", .requires_dist = {"legacy"}});
  source.add({.name = "legacy", .version = "1.0", .tags = "cp27-cp27mu-manylinux1_x86_64"});
  source.add({.name = "msgpack-python", .version = "0.4.0"});
  source.add({.name = "msgpack-python", .version = "0.5.6"});
  auto failure = failure_of(source, {"pyrax"});
  const std::string& text = failure.explanation;
  INFO(text);
  CHECK(line_count(text) <= 12);
  CHECK(has(text, "only msgpack-python 0.4.0, 0.5.6 are available and "
                  "oslo-serialization>=1.0.0,<=1.14.0 depends on msgpack-python>=9"));
  // Not adjacent: two ranges of one fact.
  CHECK(has(text, "oslo-serialization==0.9.0 | ==2.0.0 depends on legacy"));
  CHECK(has(text, "no wheel for target cpu"));
  for (int minor = 1; minor <= 13; ++minor) {
    CHECK_FALSE(has(text, "oslo-serialization==1." + std::to_string(minor) + ".0"));
  }
  CHECK(failure.without_installable_file == std::vector<std::string>{"legacy"});
}

TEST_CASE("explain: versions whose Requires-Python excludes the target are one fact",
          "[lock][explain]") {
  MemorySource source;
  for (int minor = 0; minor < 12; ++minor) {
    source.add({.name = "old", .version = "1." + std::to_string(minor),
                .requires_python = ">=3.13"});
  }
  auto failure = failure_of(source, {"old"});
  CHECK(failure.explanation ==
        "Because every version of old is unavailable because it requires Python >=3.13 and "
        "target cpu has Python 3.12.0 and demo depends on old, version solving failed.");
  // It has wheels the target could take but for its Python: no "move it to an extra" hint.
  CHECK(failure.without_installable_file.empty());
}

TEST_CASE("explain: requires-python is checked against each target's Python at lock time",
          "[lock][explain][requires-python]") {
  auto targets = wv::test::contexts(R"(
[[tool.wvlock.target]]
name = "new"
platform = "linux-x86_64"
glibc = "2.28"
[[tool.wvlock.target]]
name = "old"
platform = "linux-x86_64"
glibc = "2.28"
python = "3.11"
)");
  auto requirements = project({});
  requirements.requires_python = ">=3.12";
  auto checked = wv::lock::check_requires_python(requirements, targets);
  REQUIRE_FALSE(checked);
  CHECK(checked.error().code == wv::ErrorCode::kInvalidInput);
  CHECK(checked.error().message ==
        "target `old` has Python 3.11, which the project's requires-python `>=3.12` excludes");
  REQUIRE(checked.error().notes.size() == 1);
  CHECK(has(checked.error().notes[0], "`python = \"3.12\"`"));

  // resolve_targets refuses before any solve; a requires-python every target meets passes.
  MemorySource source;
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(requirements, targets, catalog, {});
  REQUIRE_FALSE(outcome);
  CHECK(has(outcome.error().message, "target `old` has Python 3.11"));
  requirements.requires_python = ">=3.11";
  CHECK(wv::lock::check_requires_python(requirements, targets));
  requirements.requires_python = "<3.12";
  auto both = wv::lock::check_requires_python(requirements, {targets[0]});
  REQUIRE_FALSE(both);
  CHECK(has(both.error().message, "target `new` has Python 3.12"));
  requirements.requires_python = "not a specifier";
  CHECK_FALSE(wv::lock::check_requires_python(requirements, targets));
}
