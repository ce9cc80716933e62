// Replays the checked-in fuzz inputs (fuzz/seeds/<target>/ and fuzz/regressions/<target>/)
// through the fuzz target bodies of fuzz/*_fuzz.cc, so that every bug the fuzzer found stays
// fixed in every build, sanitizer builds included. docs/fuzzing.md.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(WV_SOURCE_DIR) / "fuzz";

// The regular files under `dir`, sorted (so a failure names the same input every run).
std::vector<fs::path> inputs_under(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t replay(const std::string& target, wv::fuzz::FuzzBody body, const char* kind) {
  std::size_t count = 0;
  for (const fs::path& input : inputs_under(kFuzzDir / kind / target)) {
    // Printed before the run: a trap kills the process, and this line names the input.
    UNSCOPED_INFO("replaying " << input.string());
    const std::string bytes = read_bytes(input);
    body(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("fuzz: every target is registered and has seeds", "[fuzz]") {
  const auto& registry = wv::fuzz::registry();
  REQUIRE(registry.size() >= 14);
  for (const auto& [name, body] : registry) {
    INFO("target " << name);
    CHECK_FALSE(inputs_under(kFuzzDir / "seeds" / name).empty());
  }
  // A seed or regression folder for a target that does not exist is a typo: its inputs would
  // never run.
  for (const char* kind : {"seeds", "regressions"}) {
    std::error_code error;
    if (!fs::is_directory(kFuzzDir / kind, error)) continue;
    for (const auto& entry : fs::directory_iterator(kFuzzDir / kind)) {
      INFO(kind << "/" << entry.path().filename().string());
      CHECK(registry.count(entry.path().filename().string()) == 1);
    }
  }
}

TEST_CASE("fuzz: seeds and regression inputs replay through their targets", "[fuzz]") {
  for (const auto& [name, body] : wv::fuzz::registry()) {
    DYNAMIC_SECTION("target " << name) {
      const std::size_t seeds = replay(name, body, "seeds");
      const std::size_t regressions = replay(name, body, "regressions");
      INFO(name << ": " << seeds << " seeds, " << regressions << " regression inputs");
      CHECK(seeds + regressions > 0);
    }
  }
}
