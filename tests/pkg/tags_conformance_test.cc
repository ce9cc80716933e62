// Conformance: compatible_tags() against packaging 26.4's sys_tags() for the hosts in
// conformance/pep-current/tags.jsonl (every tag, in order).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "src/pkg/tags.h"
#include "tests/support/conformance.h"

namespace {

using wv::pkg::OperatingSystem;
using wv::pkg::TagPlatform;

// "cp312 manylinux glibc 2.28 x86_64", "cp312 macos 14.0 arm64", "cp312 win_amd64".
std::optional<TagPlatform> platform_from_config(const std::string& config,
                                                const std::vector<int>& python) {
  std::istringstream in(config);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  if (words.size() < 2 || python.size() != 2) return std::nullopt;
  TagPlatform platform;
  platform.python_major = python[0];
  platform.python_minor = python[1];
  auto parse_pair = [&](const std::string& text) {
    const std::size_t dot = text.find('.');
    platform.libc_major = std::stoi(text.substr(0, dot));
    platform.libc_minor = dot == std::string::npos ? 0 : std::stoi(text.substr(dot + 1));
  };
  if (words[1] == "manylinux" && words.size() == 5 && words[2] == "glibc") {
    platform.os = OperatingSystem::kManylinux;
    parse_pair(words[3]);
    platform.arch = words[4];
  } else if (words[1] == "musllinux" && words.size() == 5) {
    platform.os = OperatingSystem::kMusllinux;
    parse_pair(words[3]);
    platform.arch = words[4];
  } else if (words[1] == "macos" && words.size() == 4) {
    platform.os = OperatingSystem::kMacos;
    parse_pair(words[2]);
    platform.arch = words[3];
  } else if (words[1].rfind("win", 0) == 0 && words.size() == 2) {
    platform.os = OperatingSystem::kWindows;
    platform.arch = words[1] == "win32" ? "x86" : words[1].substr(4);
  } else {
    return std::nullopt;
  }
  return platform;
}

}  // namespace

TEST_CASE("tags conformance: compatible_tags matches packaging's sys_tags in order",
          "[pkg][tags][conformance]") {
  const std::optional<std::string> dir = wv::test::conformance_dir();
  if (!dir) return;
  const std::string path = *dir + "/pep-current/tags.jsonl";
  int passed = 0;
  int failed = 0;
  int tags_checked = 0;
  const bool readable = wv::test::for_each_line(path, [&](std::string_view line, int number) {
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      ++failed;
      UNSCOPED_INFO("line " << number << ": unreadable json: " << e.what());
      return;
    }
    const std::string config = record.value("config", "");
    const std::optional<TagPlatform> platform =
        platform_from_config(config, record.at("python").get<std::vector<int>>());
    if (!platform) {
      ++failed;
      std::cerr << "tags.jsonl line " << number << ": unknown config `" << config << "`\n";
      return;
    }
    const auto expected_platforms = record.at("platforms").get<std::vector<std::string>>();
    const auto expected = record.at("tags").get<std::vector<std::string>>();
    const std::vector<std::string> platforms = wv::pkg::platform_tags(*platform);
    std::vector<std::string> actual;
    for (const wv::pkg::Tag& tag : wv::pkg::compatible_tags(*platform)) {
      actual.push_back(tag.to_string());
    }
    tags_checked += static_cast<int>(expected.size());
    bool ok = platforms == expected_platforms && actual == expected;
    if (!ok) {
      ++failed;
      std::size_t i = 0;
      while (i < actual.size() && i < expected.size() && actual[i] == expected[i]) ++i;
      std::cerr << "tags.jsonl line " << number << " (" << config << "): " << actual.size()
                << " tags, expected " << expected.size() << "; first difference at " << i
                << ": got `" << (i < actual.size() ? actual[i] : "<end>") << "`, expected `"
                << (i < expected.size() ? expected[i] : "<end>") << "`"
                << (platforms == expected_platforms ? "" : " (platform list differs)") << "\n";
    } else {
      ++passed;
    }
  });
  REQUIRE(readable);
  wv::test::print_tally("tags.jsonl", passed, failed);
  std::cout << "tags.jsonl: " << tags_checked << " tags compared in order\n";
  CHECK(passed > 0);
  REQUIRE(failed == 0);
}
