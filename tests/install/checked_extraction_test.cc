// A big local wheel is hashed against the lock beside its extraction into the cache, not
// before it (install/prepare.cc, ExtractOptions::check): what it reports and leaves must be
// what checking every wheel first gave. A mismatch wins over whatever the extraction found,
// in plan order across wheels; nothing of a mismatching wheel reaches the cache or the
// environment; a matching one installs byte for byte.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "src/base/sha256.h"
#include "src/install/sync.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelEntry;
using test::WheelSpec;

// Random bytes do not deflate: a wheel holding this many is over prepare's 16 MiB line
// between wheels hashed beside their extraction and wheels hashed before it.
constexpr std::size_t kBigBytes = std::size_t{17} << 20;

std::string random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i + 4 <= size; i += 4) {
    const std::uint32_t word = random();
    std::memcpy(&bytes[i], &word, 4);
  }
  return bytes;
}

WheelSpec spec_of(const std::string& name, std::size_t blob_bytes) {
  WheelSpec spec;
  spec.name = name;
  spec.version = "1.0";
  spec.files = {WheelEntry(name + "/__init__.py", "V = 1\n")};
  if (blob_bytes > 0) spec.files.emplace_back(name + "/blob.bin", random_bytes(blob_bytes, 7));
  return spec;
}

// Overwrites the end of the file (the zip's central directory) with zeros: the size stays,
// the content no longer matches its hash, and libzip refuses the archive.
void damage_directory(const std::string& path) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(-200, std::ios::end);
  file << std::string(200, '\0');
}

struct Env {
  test::TempDir dir;
  std::string venv = dir.file("venv");
  std::string cache = dir.file("cache");
  std::string wheels = dir.file("wheels");
  LocalWheelStore store{""};

  Result<SyncReport> sync_files(const std::vector<lock::LockedFile>& files) {
    SyncOptions options;
    options.venv = venv;
    options.cache_dir = cache;
    return sync(options, test::lock_of_wheels(files), test::live_host(), store);
  }
  // Entries the cache holds, and what its staging folder was left with.
  std::size_t cache_files() {
    std::size_t count = 0;
    const fs::path root = fs::path(cache) / "unpacked-v1";
    if (!fs::exists(root)) return 0;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      count += entry.is_regular_file() && entry.path().filename() != ".lock" ? 1 : 0;
    }
    return count;
  }
};

TEST_CASE("checked extraction: a big wheel that matches the lock installs byte for byte",
          "[install][cache][integrity]") {
  Env env;
  const std::string path = test::build_wheel(spec_of("big", kBigBytes), env.wheels);
  REQUIRE(fs::file_size(path) > (std::size_t{16} << 20));
  auto report = env.sync_files({test::locked_file(path)});
  REQUIRE(report.has_value());
  CHECK(report->extracted == 1);
  auto facts = read_interpreter(env.venv);
  REQUIRE(facts.has_value());
  const std::string blob = env.venv + "/" + facts->scheme.purelib + "/big/blob.bin";
  CHECK(sha256_file_hex(blob).value() == sha256_hex(random_bytes(kBigBytes, 7)));
}

TEST_CASE("checked extraction: a big wheel whose hash does not match is the hash error, and "
          "nothing of it is kept",
          "[install][cache][integrity]") {
  Env env;
  const std::string path = test::build_wheel(spec_of("big", kBigBytes), env.wheels);
  lock::LockedFile file = test::locked_file(path);
  std::string expected = "hash mismatch for `big-1.0-py3-none-any.whl`: the lock expects sha256 ";
  SECTION("a valid wheel, another hash in the lock") {
    file.sha256 = std::string(64, '0');
  }
  SECTION("a damaged wheel of the locked size: the hash, not the zip, is reported") {
    damage_directory(path);
  }
  auto report = env.sync_files({file});
  REQUIRE_FALSE(report.has_value());
  INFO(report.error().to_string());
  CHECK(report.error().code == ErrorCode::kIntegrity);
  CHECK(report.error().message.find(expected) != std::string::npos);
  CHECK(report.error().to_string().find("nothing was changed in") != std::string::npos);
  CHECK(env.cache_files() == 0);  // no entry, and no half extraction left in `.tmp`
  CHECK_FALSE(fs::exists(env.venv));  // made by this sync, removed with its failure
}

TEST_CASE("checked extraction: a mismatch later in plan order wins over an earlier big wheel's "
          "extraction error",
          "[install][cache][integrity]") {
  Env env;
  // `aaa` (first) is a damaged zip the lock agrees with: its extraction fails. `bbb` (second,
  // small) does not match the lock: checking every wheel before extracting any reported it.
  const std::string big = test::build_wheel(spec_of("aaa", kBigBytes), env.wheels);
  damage_directory(big);
  lock::LockedFile small = test::locked_file(test::build_wheel(spec_of("bbb", 0), env.wheels));
  small.sha256 = std::string(64, '0');
  auto report = env.sync_files({test::locked_file(big), small});
  REQUIRE_FALSE(report.has_value());
  INFO(report.error().to_string());
  CHECK(report.error().code == ErrorCode::kIntegrity);
  CHECK(report.error().message.find("hash mismatch for `bbb-1.0-py3-none-any.whl`") !=
        std::string::npos);
  CHECK(env.cache_files() == 0);
}

TEST_CASE("checked extraction: an earlier big wheel's extraction error stands when every wheel "
          "matches the lock",
          "[install][cache][integrity]") {
  Env env;
  const std::string big = test::build_wheel(spec_of("aaa", kBigBytes), env.wheels);
  damage_directory(big);
  lock::LockedFile small = test::locked_file(test::build_wheel(spec_of("bbb", 0), env.wheels));
  auto report = env.sync_files({test::locked_file(big), small});
  REQUIRE_FALSE(report.has_value());
  INFO(report.error().to_string());
  CHECK(report.error().message.find("wheel `aaa-1.0-py3-none-any.whl` is not a valid zip") !=
        std::string::npos);
}

}  // namespace
}  // namespace wv::install
