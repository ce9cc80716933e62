#include <catch2/catch.hpp>

#include <zip.h>

#include <random>

#include "src/base/file_system.h"
#include "src/index/wheel_zip.h"
#include "index_test_support.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;

namespace {

struct Member {
  std::string name;
  std::string content;
  bool store = false;  // stored instead of deflated
};

// Builds a zip with libzip; returns its bytes.
std::string make_zip(const std::string& path, const std::vector<Member>& members) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  REQUIRE(archive != nullptr);
  for (const Member& member : members) {
    zip_source_t* source = zip_source_buffer(archive, member.content.data(), member.content.size(), 0);
    REQUIRE(source != nullptr);
    zip_int64_t index = zip_file_add(archive, member.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    REQUIRE(index >= 0);
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                             member.store ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
  }
  REQUIRE(zip_close(archive) == 0);
  return *wv::RealFileSystem().read_file(path);
}

std::string noise(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(random());
  return out;
}

const char* kMetadata = "Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nRequires-Dist: numpy>=2\n\n";

DistInfoEntry metadata_entry() { return {*wv::pkg::parse_package_name("demo"), "METADATA"}; }

}  // namespace

TEST_CASE("wheel zip: METADATA from a local wheel and from memory", "[index][zip]") {
  wv::test::TempDir dir;
  std::string bytes = make_zip(dir.file("demo-1.0-py3-none-any.whl"),
                               {{"demo/__init__.py", "x = 1\n"},
                                {"demo-1.0.dist-info/METADATA", kMetadata},
                                {"demo-1.0.dist-info/variant.json", "{}", true},
                                {"demo-1.0.dist-info/RECORD", ""}});
  auto local = read_dist_info_file(dir.file("demo-1.0-py3-none-any.whl"), metadata_entry(), {});
  REQUIRE(local);
  CHECK(*local == kMetadata);
  auto stored = read_dist_info_from_buffer(bytes, {*wv::pkg::parse_package_name("demo"), "variant.json"},
                                           "demo", {});
  REQUIRE(stored);
  CHECK(*stored == "{}");
  auto missing = read_dist_info_file(dir.file("absent.whl"), metadata_entry(), {});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("wheel zip: choosing the dist-info folder", "[index][zip]") {
  DistInfoEntry wanted = metadata_entry();
  CHECK(*find_dist_info_entry({"a/METADATA", "demo-1.0.dist-info/METADATA"}, wanted, "w") == 1);
  // Nested dist-info folders (vendored packages) are not the wheel's own.
  CHECK_FALSE(find_dist_info_entry({"demo/_vendor/x-1.dist-info/METADATA"}, wanted, "w"));
  CHECK(*find_dist_info_entry({"other-2.dist-info/METADATA", "Demo-1.0.dist-info/METADATA"}, wanted, "w") == 1);
  auto ambiguous = find_dist_info_entry({"a-1.dist-info/METADATA", "b-1.dist-info/METADATA"}, wanted, "w");
  REQUIRE_FALSE(ambiguous);
  CHECK(ambiguous.error().message.find("2 `.dist-info` folders") != std::string::npos);
  auto none = find_dist_info_entry({"demo/__init__.py"}, wanted, "w");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("wheel zip: range requests read only the end and the one entry", "[index][zip]") {
  wv::test::TempDir dir;
  // 3 MiB of incompressible data first, so the entry and central directory are far apart.
  std::string bytes = make_zip(dir.file("w.whl"),
                               {{"demo/blob.bin", noise(3 << 20, 1), true},
                                {"demo-1.0.dist-info/METADATA", kMetadata},
                                {"demo/tail.bin", noise(200000, 2), true}});
  wv::test::MemoryFetcher fetcher;
  const std::string url = "https://files.example/demo-1.0-py3-none-any.whl";
  fetcher.files[url] = bytes;

  for (bool known_size : {false, true}) {
    INFO("size known: " << known_size);
    RangeReadStats stats;
    std::optional<std::uint64_t> size;
    if (known_size) size = bytes.size();
    auto text = fetch_dist_info_file(fetcher, url, size, metadata_entry(), {}, &stats);
    REQUIRE(text);
    CHECK(*text == kMetadata);
    CHECK_FALSE(stats.whole_file);
    CHECK(stats.requests == 2);  // the tail (EOCD + central directory), then the entry
    CHECK(stats.bytes < 100000);
  }

  // A server that ignores ranges sends everything: read in memory.
  fetcher.ignore_ranges = true;
  RangeReadStats stats;
  auto whole = fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), {}, &stats);
  REQUIRE(whole);
  CHECK(*whole == kMetadata);
  CHECK(stats.whole_file);
  CHECK(stats.requests == 1);

  // ... unless that is more than the wheel limit allows.
  SourceLimits small;
  small.max_wheel_bytes = 1000;
  auto limited = fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), small);
  REQUIRE_FALSE(limited);
  CHECK(limited.error().code == wv::ErrorCode::kLimit);
  CHECK(limited.error().message.find("download-bytes limit of 1000 bytes") != std::string::npos);
}

TEST_CASE("wheel zip: a small wheel is read from the tail alone", "[index][zip]") {
  wv::test::TempDir dir;
  std::string bytes = make_zip(dir.file("w.whl"), {{"demo-1.0.dist-info/METADATA", kMetadata}});
  wv::test::MemoryFetcher fetcher;
  fetcher.files["https://h/w.whl"] = bytes;
  RangeReadStats stats;
  auto text = fetch_dist_info_file(fetcher, "https://h/w.whl", std::nullopt, metadata_entry(), {}, &stats);
  REQUIRE(text);
  CHECK(*text == kMetadata);
  CHECK(stats.requests == 1);
}

TEST_CASE("wheel zip: corrupt, missing and oversized entries are errors", "[index][zip]") {
  wv::test::TempDir dir;
  std::string big_metadata = std::string(kMetadata) + std::string(50000, 'x');
  std::string bytes = make_zip(dir.file("w.whl"), {{"demo/blob.bin", noise(300000, 3), true},
                                                   {"demo-1.0.dist-info/METADATA", big_metadata, true}});
  wv::test::MemoryFetcher fetcher;
  const std::string url = "https://h/demo-1.0-py3-none-any.whl";

  // A flipped byte inside the stored METADATA: the CRC-32 check catches it.
  std::string tampered = bytes;
  std::size_t at = tampered.find("Requires-Dist");
  REQUIRE(at != std::string::npos);
  tampered[at] = 'r';
  fetcher.files[url] = tampered;
  auto crc = fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), {});
  REQUIRE_FALSE(crc);
  CHECK(crc.error().code == wv::ErrorCode::kIntegrity);
  CHECK_FALSE(read_dist_info_from_buffer(tampered, metadata_entry(), "w", {}));

  fetcher.files[url] = bytes;
  SourceLimits small;
  small.max_metadata_bytes = 1000;
  auto limited = fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), small);
  REQUIRE_FALSE(limited);
  CHECK(limited.error().code == wv::ErrorCode::kLimit);
  CHECK(limited.error().message.find("metadata-bytes limit of 1000 bytes") != std::string::npos);
  CHECK_FALSE(read_dist_info_from_buffer(bytes, metadata_entry(), "w", small));

  auto variant = fetch_dist_info_file(fetcher, url, std::nullopt,
                                      {*wv::pkg::parse_package_name("demo"), "variant.json"}, {});
  REQUIRE_FALSE(variant);
  CHECK(variant.error().code == wv::ErrorCode::kNotFound);

  auto absent = fetch_dist_info_file(fetcher, "https://h/absent.whl", std::nullopt, metadata_entry(), {});
  REQUIRE_FALSE(absent);
  CHECK(absent.error().code == wv::ErrorCode::kNetwork);

  fetcher.files[url] = "not a zip at all, just some text that is long enough to hold an EOCD";
  CHECK_FALSE(fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), {}));
}

TEST_CASE("wheel zip: every truncation and random corruption fails cleanly", "[index][zip]") {
  wv::test::TempDir dir;
  std::string bytes = make_zip(dir.file("w.whl"), {{"demo/a.py", "print(1)\n"},
                                                   {"demo-1.0.dist-info/METADATA", kMetadata}});
  wv::test::MemoryFetcher fetcher;
  const std::string url = "https://h/w.whl";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    fetcher.files[url] = bytes.substr(0, cut);
    CHECK_FALSE(fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), {}));
  }
  std::mt19937 random(11);
  int read_back = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string mutated = bytes;
    for (int k = 0; k < 4; ++k) mutated[random() % mutated.size()] = static_cast<char>(random());
    fetcher.files[url] = mutated;
    fetcher.ignore_ranges = round % 2 == 1;
    auto text = fetch_dist_info_file(fetcher, url, std::nullopt, metadata_entry(), {});
    // Whatever comes back intact passed the CRC, so it is the original text.
    if (text) {
      ++read_back;
      CHECK(*text == kMetadata);
    }
  }
  CHECK(read_back > 0);
}

TEST_CASE("wheel zip: ZIP64 archives (more than 65535 entries) over ranges", "[index][zip]") {
  wv::test::TempDir dir;
  std::vector<Member> members;
  for (int i = 0; i < 70000; ++i) members.push_back({wv::str_cat("demo/m", i, ".py"), "", true});
  members.push_back({"demo-1.0.dist-info/METADATA", kMetadata});
  std::string bytes = make_zip(dir.file("big.whl"), members);
  REQUIRE(bytes.find(std::string("PK\x06\x07", 4)) != std::string::npos);  // ZIP64 locator
  wv::test::MemoryFetcher fetcher;
  fetcher.files["https://h/big.whl"] = bytes;
  RangeReadStats stats;
  auto text = fetch_dist_info_file(fetcher, "https://h/big.whl", std::nullopt, metadata_entry(), {}, &stats);
  REQUIRE(text);
  CHECK(*text == kMetadata);
  CHECK_FALSE(stats.whole_file);
  CHECK(stats.requests >= 2);  // the central directory (several MiB) is fetched on its own
  auto local = read_dist_info_file(dir.file("big.whl"), metadata_entry(), {});
  REQUIRE(local);
  CHECK(*local == kMetadata);
}
