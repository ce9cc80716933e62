#include "src/net/cache_metadata.h"

#include <catch2/catch.hpp>
#include <random>

using wv::net::CacheMetadata;
using wv::net::parse_cache_metadata;
using wv::net::serialize_cache_metadata;

namespace {

CacheMetadata sample() {
  CacheMetadata metadata;
  metadata.url = "https://example.org/simple/torch/";
  metadata.effective_url = "https://cdn.example.org/simple/torch/";
  metadata.status = 200;
  metadata.body_size = 42;
  metadata.body_sha256 = std::string(64, 'a');
  metadata.headers = {{"etag", "\"abc\""},
                      {"last-modified", "Sun, 29 Nov 2026 10:00:00 GMT"},
                      {"content-type", "application/vnd.pypi.simple.v1+json"}};
  return metadata;
}

}  // namespace

TEST_CASE("cache metadata: the sidecar round-trips", "[net][cache]") {
  CacheMetadata metadata = sample();
  std::string text = serialize_cache_metadata(metadata);
  CHECK(text.rfind("wvlock-cache-metadata 1\nurl https://example.org/simple/torch/\n", 0) == 0);
  auto parsed = parse_cache_metadata(text);
  REQUIRE(parsed);
  CHECK(parsed->url == metadata.url);
  CHECK(parsed->effective_url == metadata.effective_url);
  CHECK(parsed->status == 200);
  CHECK(parsed->body_size == 42);
  CHECK(parsed->body_sha256 == metadata.body_sha256);
  CHECK(parsed->headers == metadata.headers);
}

TEST_CASE("cache metadata: line breaks in values cannot forge fields", "[net][cache]") {
  CacheMetadata metadata = sample();
  metadata.url = "https://example.org/x\nstatus 500";
  metadata.headers["x-evil"] = "a\r\nbody-size 1";
  auto parsed = parse_cache_metadata(serialize_cache_metadata(metadata));
  REQUIRE(parsed);
  CHECK(parsed->status == 200);
  CHECK(parsed->body_size == 42);
  CHECK(parsed->url == "https://example.org/x status 500");
}

TEST_CASE("cache metadata: damaged sidecars are parse errors", "[net][cache]") {
  std::string good = serialize_cache_metadata(sample());
  CHECK(parse_cache_metadata(good.substr(0, good.find("body-size"))).error().code ==
        wv::ErrorCode::kParse);
  CHECK_FALSE(parse_cache_metadata(""));
  CHECK_FALSE(parse_cache_metadata("wvlock-cache-metadata 2\n"));
  CHECK_FALSE(parse_cache_metadata(good + "surprise field\n"));
  std::string bad_status = good;
  bad_status.replace(bad_status.find("status 200"), 10, "status 2x0");
  CHECK_FALSE(parse_cache_metadata(bad_status));
  std::string bad_hash = good;
  bad_hash.replace(bad_hash.find("aaaa"), 4, "zzzz");
  CHECK_FALSE(parse_cache_metadata(bad_hash));
}

TEST_CASE("cache metadata: arbitrary bytes never crash the parser", "[net][cache][fuzz]") {
  std::string good = serialize_cache_metadata(sample());
  std::mt19937 random(4);
  for (int round = 0; round < 5000; ++round) {
    std::string text = good;
    int edits = 1 + int(random() % 4);
    for (int e = 0; e < edits; ++e) {
      std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = char(random());
          break;
        case 1:
          text.erase(at, random() % 8);
          break;
        default:
          text.insert(at, 1, char(random()));
          break;
      }
      if (text.empty()) text = "x";
    }
    auto parsed = parse_cache_metadata(text);
    if (parsed) CHECK(parsed->body_sha256.size() == 64);
  }
}
