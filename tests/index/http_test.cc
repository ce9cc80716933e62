// IndexSource over a real HTTP server on loopback (tests/index/range_server.py) through the real
// curl Fetcher (and its on-disk cache) of wv_net: content negotiation, PEP 658, range requests,
// a server that ignores ranges, 406, and the cold/warm figures of reading every METADATA.
#include <catch2/catch.hpp>

#ifdef WV_HAVE_NET

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>

#include "src/base/file_system.h"
#include "src/index/sources.h"
#include "index_test_support.h"
#include "src/net/caching_fetcher.h"
#include "src/net/curl_fetcher.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;
using wv::pkg::Distribution;
using wv::pkg::DistributionKind;
namespace fs = std::filesystem;

namespace {

wv::pkg::PackageName name(std::string_view text) { return *wv::pkg::parse_package_name(text); }

wv::net::CurlFetcherOptions quiet_options() {
  wv::net::CurlFetcherOptions options;
  options.progress = wv::net::ProgressMode::kNever;
  options.max_attempts = 1;
  options.use_netrc = false;
  options.proxy = wv::net::ProxySettings{};
  return options;
}

const Distribution* find_file(const std::vector<Distribution>& files, std::string_view filename) {
  for (const Distribution& file : files) {
    if (file.filename == filename) return &file;
  }
  return nullptr;
}

struct Sweep {
  int projects = 0;
  int wheels = 0;
  double ms = 0;
};

// Lists every project of the fixture index and reads the METADATA of all its wheels.
Sweep read_everything(IndexSource& source, const std::string& ecosystem) {
  Sweep sweep;
  auto start = std::chrono::steady_clock::now();
  for (const auto& entry : fs::directory_iterator(ecosystem + "/simple")) {
    if (!entry.is_directory()) continue;
    auto files = source.distributions(name(entry.path().filename().string()));
    REQUIRE(files);
    ++sweep.projects;
    std::vector<Distribution> wheels;
    for (const Distribution& file : *files) {
      if (file.kind == DistributionKind::kWheel) wheels.push_back(file);
    }
    for (auto& metadata : source.wheel_metadata_batch(wheels)) {
      if (!metadata) FAIL(metadata.error().to_string());
      CHECK(metadata->rfind("Metadata-Version:", 0) == 0);
      ++sweep.wheels;
    }
  }
  sweep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return sweep;
}

#define NEED_SERVER()                                                     \
  auto ecosystem = wv::test::fixture_ecosystem();                         \
  if (!ecosystem) {                                                       \
    WARN("fixture ecosystem not generated (build wv_fixtures); skipped"); \
    return;                                                               \
  }                                                                       \
  wv::test::RangeServer server(*ecosystem);                               \
  REQUIRE(server.ok());                                                   \
  wv::net::CurlFetcher fetcher(quiet_options());                          \
  wv::RealFileSystem file_system

}  // namespace

TEST_CASE("http: PEP 691 JSON is negotiated, HTML is the fallback", "[index][http]") {
  NEED_SERVER();
  for (const char* prefix : {"/simple", "/htmlonly/simple", "/strict/simple"}) {
    INFO(prefix);
    IndexSource source({{LocationKind::kSimpleIndex, server.url(prefix)}}, file_system, &fetcher);
    auto files = source.distributions(name("Requests"));
    REQUIRE(files);
    const Distribution* wheel = find_file(*files, "requests-2.32.0-py3-none-any.whl");
    REQUIRE(wheel != nullptr);
    CHECK(wheel->url == server.url(std::string(prefix) + "/requests/requests-2.32.0-py3-none-any.whl"));
    CHECK(wheel->yanked);
    CHECK(wheel->requires_python == ">=3.8");
    CHECK(wheel->sha256().size() == 64);
    // Only the JSON page carries sizes (PEP 700).
    CHECK(wheel->size.has_value() == (std::string_view(prefix) == "/simple"));
    auto metadata = source.wheel_metadata(*wheel);
    REQUIRE(metadata);
    CHECK(metadata->find("Version: 2.32.0") != std::string::npos);
    CHECK(source.stats().metadata_pep658 == 1);
  }
  IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &fetcher);
  auto absent = source.distributions(name("no-such-project"));
  REQUIRE_FALSE(absent);
  CHECK(absent.error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("http: a page or metadata file over its limit stops the transfer and names the limit",
          "[index][http][limits]") {
  NEED_SERVER();
  wv::index::SourceLimits limits;
  limits.max_page_bytes = 200;
  IndexSource small_pages({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system,
                          &fetcher, limits);
  auto page = small_pages.distributions(name("requests"));
  REQUIRE_FALSE(page);
  CHECK(page.error().code == wv::ErrorCode::kLimit);
  CHECK_THAT(page.error().message, Catch::Contains("is over the page-bytes limit of 200 bytes") ||
                                       Catch::Contains("bytes, over the page-bytes limit of 200"));
  CHECK_THAT(page.error().to_string(), Catch::Contains("--limit page-bytes=N"));
  // Only the bound (plus one byte) was read, not the page.
  CHECK(small_pages.stats().bytes_fetched <= 201);

  limits = {};
  limits.max_metadata_bytes = 100;
  IndexSource small_metadata({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system,
                             &fetcher, limits);
  auto files = small_metadata.distributions(name("requests"));
  REQUIRE(files);
  const Distribution* wheel = find_file(*files, "requests-2.32.0-py3-none-any.whl");
  REQUIRE(wheel != nullptr);
  auto metadata = small_metadata.wheel_metadata(*wheel);
  REQUIRE_FALSE(metadata);
  CHECK(metadata.error().code == wv::ErrorCode::kLimit);
  CHECK_THAT(metadata.error().message, Catch::Contains("metadata-bytes limit of 100 bytes"));
}

TEST_CASE("http: without PEP 658, METADATA comes from range requests or the whole wheel",
          "[index][http]") {
  NEED_SERVER();
  IndexSource with658({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &fetcher);
  IndexSource ranged({{LocationKind::kSimpleIndex, server.url("/no658/simple")}}, file_system, &fetcher);
  IndexSource whole({{LocationKind::kSimpleIndex, server.url("/norange/no658/simple")}}, file_system,
                    &fetcher);
  for (const char* project : {"torch", "numpy", "requests"}) {
    auto reference = with658.distributions(name(project));
    auto listed = ranged.distributions(name(project));
    auto listed_whole = whole.distributions(name(project));
    REQUIRE(reference);
    REQUIRE(listed);
    REQUIRE(listed_whole);
    REQUIRE(listed->size() == reference->size());
    for (std::size_t i = 0; i < listed->size(); ++i) {
      if ((*listed)[i].kind != DistributionKind::kWheel) continue;
      CHECK((*listed)[i].core_metadata == wv::pkg::CoreMetadataAvailability::kUnknown);
      auto expected = with658.wheel_metadata((*reference)[i]);
      auto by_range = ranged.wheel_metadata((*listed)[i]);
      auto by_download = whole.wheel_metadata((*listed_whole)[i]);
      REQUIRE(expected);
      REQUIRE(by_range);
      REQUIRE(by_download);
      CHECK(*by_range == *expected);
      CHECK(*by_download == *expected);
    }
  }
  CHECK(ranged.stats().metadata_range > 0);
  CHECK(ranged.stats().metadata_whole_wheel == 0);
  CHECK(whole.stats().metadata_whole_wheel == whole.stats().metadata_range);
  std::cout << "  range reads: " << ranged.stats().metadata_range << " wheels in "
            << ranged.stats().range_requests << " requests\n";

  // In-wheel variant.json over ranges agrees with the index-level variants file.
  auto torch = ranged.distributions(name("torch"));
  REQUIRE(torch);
  int compared = 0;
  for (const Distribution& file : *torch) {
    if (file.variant_label.empty() || compared >= 4) continue;
    auto in_wheel = ranged.wheel_variant_metadata(file);
    auto index_level = ranged.variants_metadata(file.name, file.version);
    REQUIRE(in_wheel);
    REQUIRE(index_level);
    CHECK(*in_wheel->find_variant(file.variant_label) == *index_level->find_variant(file.variant_label));
    ++compared;
  }
  CHECK(compared == 4);
}

TEST_CASE("http: dist-info read by range requests is kept under the wheel's sha256 and serves an "
          "offline run", "[index][http][cache]") {
  NEED_SERVER();
  wv::test::TempDir cache_dir;
  const std::string url = server.url("/no658/simple");
  std::map<std::string, std::string> first_read;  // filename -> METADATA
  {
    wv::net::CachingFetcher cache(fetcher, file_system, {cache_dir.path(), false});
    IndexSource online({{LocationKind::kSimpleIndex, url}}, file_system, &cache);
    online.set_derived_cache(&cache);
    for (const char* project : {"requests", "numpy"}) {
      auto files = online.distributions(name(project));
      REQUIRE(files);
      for (const Distribution& file : *files) {
        if (file.kind != DistributionKind::kWheel) continue;
        auto metadata = online.wheel_metadata(file);
        REQUIRE(metadata);
        first_read[file.filename] = *metadata;
      }
    }
    REQUIRE(first_read.size() > 2);
    CHECK(online.stats().metadata_range == int(first_read.size()));
    CHECK(online.stats().dist_info_reused == 0);
  }
  // Offline, from the same cache folder: the pages are cached responses, METADATA the kept
  // dist-info; not one range request.
  wv::net::CachingFetcher offline_cache(fetcher, file_system, {cache_dir.path(), true});
  IndexSource offline({{LocationKind::kSimpleIndex, url}}, file_system, &offline_cache);
  offline.set_derived_cache(&offline_cache);
  std::vector<Distribution> wheels;
  for (const char* project : {"requests", "numpy"}) {
    auto files = offline.distributions(name(project));
    REQUIRE(files);
    for (const Distribution& file : *files) {
      if (file.kind == DistributionKind::kWheel) wheels.push_back(file);
    }
  }
  for (const Distribution& wheel : wheels) {
    auto metadata = offline.wheel_metadata(wheel);
    REQUIRE(metadata);
    CHECK(*metadata == first_read[wheel.filename]);
  }
  CHECK(offline.stats().dist_info_reused == int(wheels.size()));
  CHECK(offline.stats().metadata_range == 0);
  CHECK(offline.stats().range_requests == 0);

  // A damaged kept file is dropped, and offline that wheel is then a clear cache miss.
  const Distribution& victim = wheels.front();
  const std::string kept = offline_cache.derived_path(dist_info_cache_key(victim, "METADATA"));
  std::string text = *file_system.read_file(kept);
  text[text.size() / 2] ^= 0x20;
  REQUIRE(file_system.write_file_atomic(kept, text));
  IndexSource after_damage({{LocationKind::kSimpleIndex, url}}, file_system, &offline_cache);
  after_damage.set_derived_cache(&offline_cache);
  auto missed = after_damage.wheel_metadata(victim);
  REQUIRE_FALSE(missed);
  CHECK_THAT(missed.error().to_string(), Catch::Contains("is not in the cache"));
  CHECK_FALSE(file_system.exists(kept));
}

TEST_CASE("http: figures for reading every METADATA over loopback, cold and warm",
          "[index][http][figures]") {
  NEED_SERVER();
  Sweep direct, ranges, one_by_one;
  {
    // wheel_metadata() one wheel at a time, no parallel batch.
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &fetcher);
    auto start = std::chrono::steady_clock::now();
    for (const auto& entry : fs::directory_iterator(*ecosystem + "/simple")) {
      if (!entry.is_directory()) continue;
      auto files = source.distributions(name(entry.path().filename().string()));
      REQUIRE(files);
      for (const Distribution& file : *files) {
        if (file.kind != DistributionKind::kWheel) continue;
        REQUIRE(source.wheel_metadata(file));
        ++one_by_one.wheels;
      }
    }
    one_by_one.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  {
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &fetcher);
    direct = read_everything(source, *ecosystem);
  }
  {
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/no658/simple")}}, file_system, &fetcher);
    ranges = read_everything(source, *ecosystem);
  }
  wv::test::TempDir cache_dir;
  Sweep cold, warm, offline;
  {
    wv::net::CachingFetcher cache(fetcher, file_system, {cache_dir.path(), false});
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &cache);
    cold = read_everything(source, *ecosystem);
  }
  {
    wv::net::CachingFetcher cache(fetcher, file_system, {cache_dir.path(), false});
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &cache);
    warm = read_everything(source, *ecosystem);
  }
  {
    wv::net::CachingFetcher cache(fetcher, file_system, {cache_dir.path(), true});
    IndexSource source({{LocationKind::kSimpleIndex, server.url("/simple")}}, file_system, &cache);
    offline = read_everything(source, *ecosystem);
  }
  CHECK(direct.wheels == cold.wheels);
  CHECK(warm.wheels == cold.wheels);
  CHECK(offline.wheels == cold.wheels);
  CHECK(ranges.wheels == cold.wheels);
  CHECK(one_by_one.wheels == cold.wheels);
  std::cout << "  figures: " << direct.projects << " projects, " << direct.wheels << " wheels\n"
            << "    loopback, PEP 658, no cache:        " << direct.ms << " ms\n"
            << "    loopback, PEP 658, one by one:      " << one_by_one.ms << " ms\n"
            << "    loopback, range requests, no cache: " << ranges.ms << " ms\n"
            << "    loopback, PEP 658, cold cache:      " << cold.ms << " ms\n"
            << "    loopback, PEP 658, warm cache:      " << warm.ms << " ms (revalidated)\n"
            << "    offline from the cache:             " << offline.ms << " ms\n";
}

#endif  // WV_HAVE_NET
