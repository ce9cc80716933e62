// Conformance of src/pkg/version and src/pkg/specifier with packaging 26.4's answers in
// $WVLOCK_CONFORMANCE_DIR/pep-current/{versions,version-order,specifiers}.jsonl: every field of every
// line. nlohmann/json is header-only and only used here.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "src/pkg/specifier.h"
#include "src/pkg/version.h"
#include "tests/support/conformance.h"

namespace {

using nlohmann::json;
using wv::pkg::Version;

// Collects the first few mismatches of a file so a failure says which lines and why.
struct Tally {
  int passed = 0;
  int failed = 0;
  std::vector<std::string> samples;

  void record(bool ok, int line, const std::string& why) {
    if (ok) {
      ++passed;
      return;
    }
    ++failed;
    if (samples.size() < 20) samples.push_back("line " + std::to_string(line) + ": " + why);
  }
  void report(std::string_view label) const {
    for (const std::string& sample : samples) std::cout << "  " << sample << "\n";
    wv::test::print_tally(label, passed, failed);
  }
};

std::optional<json> parse_json(std::string_view line) {
  json value = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

std::optional<std::string> optional_string(const json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<std::string>();
}

// Every field of one valid versions.jsonl line; returns the first mismatch, or "".
std::string check_version_fields(const json& expected, const Version& v) {
  std::ostringstream why;
  if (v.to_string() != expected["normalized"].get<std::string>()) {
    why << "normalized " << v.to_string();
  } else if (v.epoch() != expected["epoch"].get<std::uint64_t>()) {
    why << "epoch " << v.epoch();
  } else if (std::vector<std::uint64_t>(v.release().begin(), v.release().end()) !=
             expected["release"].get<std::vector<std::uint64_t>>()) {
    why << "release";
  } else if (expected["pre"].is_null() != !v.pre().has_value()) {
    why << "pre presence";
  } else if (v.pre() && (std::string(wv::pkg::pre_kind_name(v.pre()->first)) !=
                             expected["pre"][0].get<std::string>() ||
                         v.pre()->second != expected["pre"][1].get<std::uint64_t>())) {
    why << "pre value";
  } else if (expected["post"].is_null() != !v.post().has_value() ||
             (v.post() && *v.post() != expected["post"].get<std::uint64_t>())) {
    why << "post";
  } else if (expected["dev"].is_null() != !v.dev().has_value() ||
             (v.dev() && *v.dev() != expected["dev"].get<std::uint64_t>())) {
    why << "dev";
  } else if (optional_string(expected["local"]).value_or("") != v.local() ||
             expected["local"].is_null() == v.has_local()) {
    why << "local " << v.local();
  } else if (v.public_version().to_string() != expected["public"].get<std::string>()) {
    why << "public " << v.public_version().to_string();
  } else if (v.base_version().to_string() != expected["base_version"].get<std::string>()) {
    why << "base_version " << v.base_version().to_string();
  } else if (v.is_prerelease() != expected["is_prerelease"].get<bool>() ||
             v.is_postrelease() != expected["is_postrelease"].get<bool>() ||
             v.is_devrelease() != expected["is_devrelease"].get<bool>()) {
    why << "is_*release flags";
  } else {
    // The normal form must parse back to an equal version with the same string.
    auto again = wv::pkg::parse_version(v.to_string());
    if (!again || *again != v || again->to_string() != v.to_string()) why << "round trip";
  }
  return why.str();
}

}  // namespace

TEST_CASE("pep440: conformance of versions.jsonl", "[pkg][pep440][conformance]") {
  const auto dir = wv::test::conformance_dir();
  if (!dir) return;
  Tally tally;
  const bool read = wv::test::for_each_line(*dir + "/pep-current/versions.jsonl", [&](std::string_view line,
                                                                                 int number) {
    const auto entry = parse_json(line);
    if (!entry) return tally.record(false, number, "unreadable JSON");
    const std::string input = (*entry)["input"].get<std::string>();
    const bool valid = (*entry)["valid"].get<bool>();
    auto parsed = wv::pkg::parse_version(input);
    if (!valid) {
      return tally.record(!parsed && !wv::pkg::is_valid_version(input), number,
                          "`" + input + "` should be invalid");
    }
    if (!parsed) {
      return tally.record(false, number, "`" + input + "`: " + parsed.error().message);
    }
    const std::string why = check_version_fields(*entry, *parsed);
    tally.record(why.empty() && wv::pkg::is_valid_version(input), number, "`" + input + "`: " + why);
  });
  REQUIRE(read);
  tally.report("pep-current/versions.jsonl");
  CHECK(tally.passed > 0);
  REQUIRE(tally.failed == 0);
}

TEST_CASE("pep440: conformance of version-order.jsonl", "[pkg][pep440][conformance]") {
  const auto dir = wv::test::conformance_dir();
  if (!dir) return;
  Tally tally;
  std::vector<std::pair<int, Version>> all;  // (rank, version)
  std::optional<Version> previous;
  const bool read = wv::test::for_each_line(
      *dir + "/pep-current/version-order.jsonl", [&](std::string_view line, int number) {
        const auto entry = parse_json(line);
        if (!entry) return tally.record(false, number, "unreadable JSON");
        const int rank = (*entry)["rank"].get<int>();
        std::vector<Version> group;
        for (const json& text : (*entry)["equal"]) {
          auto v = wv::pkg::parse_version(text.get<std::string>());
          if (!v) return tally.record(false, number, v.error().message);
          group.push_back(*v);
        }
        std::string why;
        for (const Version& v : group) {
          if (v != group.front() || (v <=> group.front()) != 0 ||
              wv::pkg::hash_value(v) != wv::pkg::hash_value(group.front())) {
            why = v.to_string() + " differs from " + group.front().to_string();
          }
        }
        if (why.empty() && previous && !(*previous < group.front())) {
          why = previous->to_string() + " should sort before " + group.front().to_string();
        }
        if (!group.empty()) previous = group.front();
        for (const Version& v : group) all.emplace_back(rank, v);
        tally.record(why.empty(), number, why);
      });
  REQUIRE(read);
  // The whole list, shuffled deterministically and sorted, must come back in rank order.
  std::vector<std::pair<int, Version>> shuffled = all;
  for (std::size_t i = 0; i < shuffled.size(); ++i) {
    std::swap(shuffled[i], shuffled[(i * 7919 + 13) % shuffled.size()]);
  }
  std::stable_sort(shuffled.begin(), shuffled.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  int sort_failures = 0;
  for (std::size_t i = 1; i < shuffled.size(); ++i) {
    if (shuffled[i - 1].first > shuffled[i].first) ++sort_failures;
  }
  tally.record(sort_failures == 0, 0, "sorting the whole list breaks rank order");
  tally.report("pep-current/version-order.jsonl");
  CHECK(tally.passed > 0);
  REQUIRE(tally.failed == 0);
}

TEST_CASE("pep440: conformance of specifiers.jsonl", "[pkg][pep440][conformance]") {
  const auto dir = wv::test::conformance_dir();
  if (!dir) return;
  Tally tally;
  int cases = 0;
  const bool read = wv::test::for_each_line(
      *dir + "/pep-current/specifiers.jsonl", [&](std::string_view line, int number) {
        const auto entry = parse_json(line);
        if (!entry) return tally.record(false, number, "unreadable JSON");
        const std::string text = (*entry)["specifier"].get<std::string>();
        const bool valid = (*entry)["valid"].get<bool>();
        auto set = wv::pkg::parse_specifier_set(text);
        if (!valid) return tally.record(!set, number, "`" + text + "` should be invalid");
        if (!set) return tally.record(false, number, "`" + text + "`: " + set.error().message);
        std::string why;
        if (set->to_string() != (*entry)["normalized"].get<std::string>()) {
          why = "normalized " + set->to_string();
        }
        const json& prereleases = (*entry)["prereleases"];
        if (prereleases.is_null() != !set->prereleases().has_value() ||
            (set->prereleases() && *set->prereleases() != prereleases.get<bool>())) {
          why = "prereleases";
        }
        for (const json& one : (*entry)["cases"]) {
          ++cases;
          const std::string version_text = one["version"].get<std::string>();
          auto v = wv::pkg::parse_version(version_text);
          if (!v) {
            why = "case version " + version_text + " does not parse";
            continue;
          }
          // As written, which is what `===` compares; the parsed form must agree elsewhere.
          if (set->contains(version_text) != one["contains"].get<bool>()) {
            why = "contains " + version_text;
          }
          if (set->contains(version_text, true) != one["contains_prereleases"].get<bool>()) {
            why = "contains with pre-releases " + version_text;
          }
          const bool arbitrary = text.find("===") != std::string::npos;
          if (!arbitrary && set->contains(*v) != set->contains(version_text)) {
            why = "parsed and written " + version_text + " disagree";
          }
        }
        tally.record(why.empty(), number, "`" + text + "`: " + why);
      });
  REQUIRE(read);
  tally.report("pep-current/specifiers.jsonl");
  std::cout << "  (" << cases << " containment cases, each checked twice)\n";
  CHECK(tally.passed > 0);
  REQUIRE(tally.failed == 0);
}
