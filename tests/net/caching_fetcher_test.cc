// CachingFetcher over a real CurlFetcher and the loopback fault server.
#include "src/net/caching_fetcher.h"

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>

#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "fault_server.h"
#include "src/net/curl_fetcher.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::FetchRequest;
using wv::FetchResponse;
using wv::Result;
using wv::net::CacheOptions;
using wv::net::CachingFetcher;
using wv::net::CurlFetcher;

wv::net::CurlFetcherOptions test_options() {
  wv::net::CurlFetcherOptions options;
  options.max_attempts = 2;
  options.initial_backoff = std::chrono::milliseconds(10);
  options.max_backoff = std::chrono::milliseconds(20);
  options.transfer_timeout = std::chrono::milliseconds(5000);
  options.proxy = wv::net::ProxySettings{};
  options.use_netrc = false;
  options.progress = wv::net::ProgressMode::kNever;
  return options;
}

/// Passes everything to another fetcher and counts the fetch_all() batches it sends.
class CountingFetcher final : public wv::Fetcher {
 public:
  explicit CountingFetcher(wv::Fetcher& inner) : inner_(inner) {}
  Result<FetchResponse> fetch(const FetchRequest& request) override {
    ++batches;
    ++requests;
    return inner_.fetch(request);
  }
  std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& all) override {
    ++batches;
    requests += int(all.size());
    return inner_.fetch_all(all);
  }
  int batches = 0;
  int requests = 0;

 private:
  wv::Fetcher& inner_;
};

/// A served folder, the server, a network fetcher and a cache folder, for one test.
struct Fixture {
  wv::test::TempDir served;
  wv::test::TempDir cache_dir;
  wv::RealFileSystem file_system;
  wv::test::FaultServer server{served.path()};
  CurlFetcher network{test_options()};
  CountingFetcher counting{network};

  void write(const std::string& name, const std::string& content) {
    REQUIRE(file_system.write_file_atomic(served.file(name), content));
  }
  CachingFetcher cache(bool offline = false) {
    return CachingFetcher(counting, file_system, CacheOptions{cache_dir.path(), offline});
  }
  long count(const std::string& path, const std::string& field) {
    return server.count(network, path, field);
  }
};

FetchRequest get(std::string url) { return FetchRequest{std::move(url), {}, std::nullopt}; }

}  // namespace

TEST_CASE("caching fetcher: a second fetch revalidates with ETag and serves the cached body on 304",
          "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("page.html", "<a href='x.whl'>x</a>");
  CachingFetcher cache = fixture.cache();
  const std::string url = fixture.server.url("/page.html");

  Result<FetchResponse> first = cache.fetch(get(url));
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK(fixture.file_system.exists(cache.entry_path(get(url)) + ".body"));
  CHECK(fixture.file_system.exists(cache.entry_path(get(url)) + ".meta"));

  Result<FetchResponse> second = cache.fetch(get(url));
  REQUIRE(second);
  CHECK(second->status == 200);
  CHECK(second->body == "<a href='x.whl'>x</a>");
  CHECK(second->headers.at("etag") == first->headers.at("etag"));
  CHECK(fixture.count("/page.html", "hits") == 2);
  CHECK(fixture.count("/page.html", "conditional") == 1);
  CHECK(fixture.count("/page.html", "not_modified") == 1);

  // The sidecar documents the entry (docs/network.md).
  Result<std::string> sidecar = fixture.file_system.read_file(cache.entry_path(get(url)) + ".meta");
  REQUIRE(sidecar);
  CHECK_THAT(*sidecar, Catch::StartsWith("wvlock-cache-metadata 1\nurl " + url + "\n"));
  CHECK_THAT(*sidecar, Catch::Contains("body-sha256 " + wv::sha256_hex("<a href='x.whl'>x</a>")));
}

TEST_CASE("caching fetcher: Last-Modified alone revalidates too", "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("old.json", "{}");
  CachingFetcher cache = fixture.cache();
  const std::string url = fixture.server.url("/old.json?noetag=1");
  REQUIRE(cache.fetch(get(url)));
  Result<FetchResponse> again = cache.fetch(get(url));
  REQUIRE(again);
  CHECK(again->body == "{}");
  CHECK(fixture.count("/old.json", "not_modified") == 1);
}

TEST_CASE("caching fetcher: a changed page replaces the cached one", "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("moving.html", "version\n");
  const std::string url = fixture.server.url("/moving.html?changing=1");
  {
    CachingFetcher cache = fixture.cache();
    Result<FetchResponse> first = cache.fetch(get(url));
    Result<FetchResponse> second = cache.fetch(get(url));
    REQUIRE(first);
    REQUIRE(second);
    CHECK(first->body == "version\nhit 1\n");
    CHECK(second->body == "version\nhit 2\n");
    CHECK(fixture.count("/moving.html", "conditional") == 1);
    CHECK(fixture.count("/moving.html", "not_modified") == 0);
  }
  Result<FetchResponse> offline = fixture.cache(true).fetch(get(url));
  REQUIRE(offline);
  CHECK(offline->body == "version\nhit 2\n");
}

TEST_CASE("caching fetcher: offline serves a warm cache and names the URL of a cold miss",
          "[net][cache][offline]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("warm.json", "[1, 2]");
  fixture.write("local.txt", "on disk");
  const std::string warm = fixture.server.url("/warm.json");
  REQUIRE(fixture.cache().fetch(get(warm)));
  const int batches = fixture.counting.batches;

  CachingFetcher offline = fixture.cache(true);
  Result<FetchResponse> hit = offline.fetch(get(warm));
  REQUIRE(hit);
  CHECK(hit->status == 200);
  CHECK(hit->body == "[1, 2]");
  CHECK(hit->effective_url == warm);

  const std::string cold = fixture.server.url("/cold.json");
  Result<FetchResponse> miss = offline.fetch(get(cold));
  REQUIRE_FALSE(miss);
  CHECK(miss.error().code == wv::ErrorCode::kNetwork);
  CHECK(miss.error().message ==
        wv::str_cat("offline: `", cold, "` is not in the cache and needs the network"));

  FetchRequest ranged = get(warm);
  ranged.range = std::make_pair(std::int64_t(0), std::int64_t(1));
  CHECK_FALSE(offline.fetch(ranged));
  Result<std::string> verified = offline.fetch_verified(cold, std::string(64, 'a'), std::nullopt);
  REQUIRE_FALSE(verified);
  CHECK_THAT(verified.error().message, Catch::Contains(cold));

  // Local files need no network.
  Result<FetchResponse> local = offline.fetch(get("file://" + fixture.served.file("local.txt")));
  REQUIRE(local);
  CHECK(local->body == "on disk");

  CHECK(fixture.counting.batches == batches + 1);  // only the file: read went upstream
  CHECK(fixture.count("/warm.json", "hits") == 1);
  CHECK(fixture.count("/cold.json", "hits") == 0);
}

TEST_CASE("caching fetcher: misses and revalidations go upstream in one batch, in order",
          "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  std::vector<FetchRequest> requests;
  for (int i = 0; i < 30; ++i) {
    fixture.write(wv::str_cat("p", i), wv::str_cat("page ", i));
    requests.push_back(get(fixture.server.url(wv::str_cat("/p", i))));
  }
  CachingFetcher cache = fixture.cache();
  REQUIRE(cache.fetch(requests[4]));
  REQUIRE(cache.fetch(requests[9]));
  fixture.counting.batches = 0;
  std::vector<Result<FetchResponse>> results = cache.fetch_all(requests);
  CHECK(fixture.counting.batches == 1);
  REQUIRE(results.size() == 30);
  for (int i = 0; i < 30; ++i) {
    REQUIRE(results[i]);
    CHECK(results[i]->body == wv::str_cat("page ", i));
  }
  CHECK(fixture.count("/p4", "not_modified") == 1);
  CHECK(fixture.count("/p5", "conditional") == 0);
}

TEST_CASE("caching fetcher: error answers are not cached", "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  CachingFetcher cache = fixture.cache();
  const std::string url = fixture.server.url("/missing.html");
  Result<FetchResponse> response = cache.fetch(get(url));
  REQUIRE(response);
  CHECK(response->status == 404);
  CHECK_FALSE(fixture.file_system.exists(cache.entry_path(get(url)) + ".meta"));
  CHECK_FALSE(fixture.cache(true).fetch(get(url)));
}

TEST_CASE("caching fetcher: a body that does not match its sidecar is never served",
          "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("index.html", "the real page");
  CachingFetcher cache = fixture.cache();
  const std::string url = fixture.server.url("/index.html");
  REQUIRE(cache.fetch(get(url)));
  const std::string body_path = cache.entry_path(get(url)) + ".body";
  REQUIRE(fixture.file_system.write_file_atomic(body_path, "the real"));  // cut short

  // Offline, the damaged entry is a miss, not a short page.
  CHECK_FALSE(fixture.cache(true).fetch(get(url)));
  // Online, the page is fetched whole again (not revalidated against the damaged copy).
  Result<FetchResponse> again = cache.fetch(get(url));
  REQUIRE(again);
  CHECK(again->body == "the real page");
  CHECK(fixture.count("/index.html", "conditional") == 0);
  CHECK(fixture.count("/index.html", "hits") == 2);
  Result<FetchResponse> served = fixture.cache(true).fetch(get(url));
  REQUIRE(served);
  CHECK(served->body == "the real page");
}

TEST_CASE("caching fetcher: a killed write leaves only a temporary file, which is ignored",
          "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  const std::string content = std::string(4000, 'w');
  fixture.write("pkg-1.0-py3-none-any.whl", content);
  fixture.write("page.html", "page");
  const std::string sha = wv::sha256_hex(content);
  const std::string wheel_url = fixture.server.url("/pkg-1.0-py3-none-any.whl");
  const std::string page_url = fixture.server.url("/page.html");
  CachingFetcher cache = fixture.cache();

  // What a process killed mid-write leaves: half a file under a temporary name.
  const std::string wheel_path = cache.verified_path(sha);
  const std::string entry = cache.entry_path(get(page_url));
  REQUIRE(fixture.file_system.create_directories(wv::path_parent(wheel_path)));
  REQUIRE(fixture.file_system.create_directories(wv::path_parent(entry)));
  REQUIRE(
      fixture.file_system.write_file_atomic(wheel_path + ".tmp.999999.0", content.substr(0, 100)));
  REQUIRE(fixture.file_system.write_file_atomic(entry + ".body.tmp.999999.0", "pa"));
  REQUIRE(fixture.file_system.write_file_atomic(entry + ".meta.tmp.999999.1",
                                                "wvlock-cache-metadata 1\n"));

  CachingFetcher offline = fixture.cache(true);
  CHECK_FALSE(offline.fetch(get(page_url)));
  CHECK_FALSE(offline.fetch_verified(wheel_url, sha, content.size()));

  Result<std::string> path = cache.fetch_verified(wheel_url, sha, content.size());
  REQUIRE(path);
  CHECK(*path == wheel_path);
  CHECK(*fixture.file_system.read_file(*path) == content);
  Result<FetchResponse> page = cache.fetch(get(page_url));
  REQUIRE(page);
  CHECK(page->body == "page");
}

TEST_CASE("caching fetcher: verified downloads are stored by sha256 and re-checked on every use",
          "[net][cache][verified]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  const std::string content = "PK\x03\x04 pretend this is a wheel";
  fixture.write("demo-1.0-py3-none-any.whl", content);
  const std::string sha = wv::sha256_hex(content);
  const std::string url = fixture.server.url("/demo-1.0-py3-none-any.whl");
  CachingFetcher cache = fixture.cache();

  Result<std::string> first = cache.fetch_verified(url, sha, content.size());
  REQUIRE(first);
  CHECK(*first == cache.verified_path(sha));
  CHECK(*fixture.file_system.read_file(*first) == content);
  // Upper-case hex and an unknown size are fine; the second use comes from the store.
  std::string upper = sha;
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  Result<std::string> second = cache.fetch_verified(url, upper, std::nullopt);
  REQUIRE(second);
  CHECK(*second == *first);
  CHECK(fixture.count("/demo-1.0-py3-none-any.whl", "hits") == 1);
  Result<std::string> offline = fixture.cache(true).fetch_verified(url, sha, content.size());
  REQUIRE(offline);

  // A corrupted store entry is discarded and downloaded again, never handed out.
  REQUIRE(fixture.file_system.write_file_atomic(*first, "PK\x03\x04 pretend this is a wheeL"));
  CHECK_FALSE(fixture.cache(true).fetch_verified(url, sha, content.size()));
  CHECK_FALSE(fixture.file_system.exists(*first));
  REQUIRE(fixture.file_system.write_file_atomic(*first, "short"));
  Result<std::string> refetched = cache.fetch_verified(url, sha, content.size());
  REQUIRE(refetched);
  CHECK(*fixture.file_system.read_file(*refetched) == content);
  CHECK(fixture.count("/demo-1.0-py3-none-any.whl", "hits") == 2);

  CHECK(cache.fetch_verified(url, "abc", std::nullopt).error().code ==
        wv::ErrorCode::kInvalidInput);
}

TEST_CASE("caching fetcher: tampered, truncated or missing downloads are rejected and not stored",
          "[net][cache][verified]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  const std::string content(3000, 'z');
  fixture.write("evil-1.0-py3-none-any.whl", content);
  fixture.write("short-1.0-py3-none-any.whl", content);
  const std::string sha = wv::sha256_hex(content);
  CachingFetcher cache = fixture.cache();

  const std::string tampered = fixture.server.url("/evil-1.0-py3-none-any.whl?tamper=1");
  Result<std::string> wrong_hash = cache.fetch_verified(tampered, sha, content.size());
  REQUIRE_FALSE(wrong_hash);
  CHECK(wrong_hash.error().code == wv::ErrorCode::kIntegrity);
  CHECK_THAT(wrong_hash.error().message, Catch::Contains(tampered));
  CHECK_THAT(wrong_hash.error().message, Catch::Contains("expected `" + sha + "`"));
  CHECK_FALSE(fixture.file_system.exists(cache.verified_path(sha)));

  Result<std::string> wrong_size = cache.fetch_verified(tampered, sha, content.size() + 1);
  REQUIRE_FALSE(wrong_size);
  CHECK(wrong_size.error().code == wv::ErrorCode::kIntegrity);
  CHECK_THAT(wrong_size.error().message, Catch::Contains("3000 bytes, expected 3001"));

  const std::string truncated = fixture.server.url("/short-1.0-py3-none-any.whl?truncate=100");
  Result<std::string> cut = cache.fetch_verified(truncated, sha, content.size());
  REQUIRE_FALSE(cut);
  CHECK(cut.error().code == wv::ErrorCode::kNetwork);
  CHECK_THAT(cut.error().message, Catch::Contains("truncated"));
  CHECK_FALSE(fixture.file_system.exists(cache.verified_path(sha)));

  Result<std::string> missing =
      cache.fetch_verified(fixture.server.url("/absent.whl"), sha, std::nullopt);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == wv::ErrorCode::kNotFound);
  CHECK_THAT(missing.error().message, Catch::Contains("HTTP 404"));

  // Nothing of it reached the cache, not even the streamed temporaries.
  CHECK_FALSE(fixture.cache(true).fetch_verified(tampered, sha, content.size()));
  for (const auto& entry : std::filesystem::recursive_directory_iterator(fixture.cache_dir.path())) {
    INFO(entry.path());
    CHECK_FALSE(entry.is_regular_file());
  }
}

TEST_CASE("caching fetcher: fetch_verified_all downloads in parallel and keeps order",
          "[net][cache][verified]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  std::vector<wv::net::VerifiedDownload> downloads;
  for (int i = 0; i < 12; ++i) {
    std::string content = wv::str_cat("wheel number ", i);
    fixture.write(wv::str_cat("w", i, ".whl"), content);
    downloads.push_back({fixture.server.url(wv::str_cat("/w", i, ".whl")), wv::sha256_hex(content),
                         content.size()});
  }
  downloads[5].sha256 = std::string(64, '0');
  CachingFetcher cache = fixture.cache();
  fixture.counting.batches = 0;
  std::vector<Result<std::string>> paths = cache.fetch_verified_all(downloads);
  CHECK(fixture.counting.batches == 1);
  REQUIRE(paths.size() == 12);
  for (int i = 0; i < 12; ++i) {
    if (i == 5) {
      CHECK_FALSE(paths[i]);
      continue;
    }
    REQUIRE(paths[i]);
    CHECK(*fixture.file_system.read_file(*paths[i]) == wv::str_cat("wheel number ", i));
  }

  // Bodies are held in memory, so a bound on the bytes per batch splits the downloads; a
  // download of unknown size goes alone.
  wv::test::TempDir small_cache;
  CacheOptions options{small_cache.path(), false};
  options.max_batch_bytes = 30;  // two 14-15 byte wheels per batch
  CachingFetcher batched(fixture.counting, fixture.file_system, options);
  downloads[5].sha256 = wv::sha256_hex("wheel number 5");
  downloads[7].size = std::nullopt;
  fixture.counting.batches = 0;
  fixture.counting.requests = 0;
  paths = batched.fetch_verified_all(downloads);
  CHECK(fixture.counting.requests == 12);
  CHECK(fixture.counting.batches == 7);  // {0,1} {2,3} {4,5} {6} {7} {8,9} {10,11}
  for (int i = 0; i < 12; ++i) {
    REQUIRE(paths[i]);
    CHECK(*fixture.file_system.read_file(*paths[i]) == wv::str_cat("wheel number ", i));
  }
}

TEST_CASE("caching fetcher: the default folder follows XDG_CACHE_HOME, then HOME", "[net][cache]") {
  auto from = [](std::map<std::string, std::string> environment) {
    return wv::net::default_cache_directory(
        [=](const std::string& name) -> std::optional<std::string> {
          auto it = environment.find(name);
          if (it == environment.end()) return std::nullopt;
          return it->second;
        });
  };
  CHECK(*from({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}}) == "/xdg/wvlock");
  CHECK(*from({{"WVLOCK_CACHE_DIR", "/own"}, {"XDG_CACHE_HOME", "/xdg"}}) == "/own");
  CHECK(*from({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/home/u"}}) == "/home/u/.cache/wvlock");
  CHECK(*from({{"XDG_CACHE_HOME", ""}, {"HOME", "/home/u"}}) == "/home/u/.cache/wvlock");
  CHECK(from({}).error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("caching fetcher: a body over the request's bound is cut, not retried, never stored",
          "[net][cache][limits]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  // An "endless" page: far more than the caller will accept.
  fixture.write("huge.html", std::string(4 << 20, 'x'));
  CachingFetcher cache = fixture.cache();
  FetchRequest request = get(fixture.server.url("/huge.html"));
  request.max_body_bytes = 1000;

  Result<FetchResponse> cut = cache.fetch(request);
  REQUIRE(cut);
  CHECK(cut->status == 200);
  CHECK(cut->body_cut);
  CHECK(cut->body.size() == 1001);  // one byte past the bound: "larger than allowed"
  CHECK(fixture.count("/huge.html", "hits") == 1);  // a final answer, not a failure to retry

  // Nothing was stored: the next fetch goes upstream again (no conditional request).
  Result<FetchResponse> again = cache.fetch(request);
  REQUIRE(again);
  CHECK(again->body_cut);
  CHECK(fixture.count("/huge.html", "hits") == 2);
  CHECK(fixture.count("/huge.html", "conditional") == 0);

  // Within the bound the body is whole and cached as usual.
  request.max_body_bytes = 8 << 20;
  Result<FetchResponse> whole = cache.fetch(request);
  REQUIRE(whole);
  CHECK_FALSE(whole->body_cut);
  CHECK(whole->body.size() == (4u << 20));

  // A verified download is bounded by its expected size: a bigger body is an integrity error
  // found without reading it all, and nothing lands in the store.
  const std::string expected = wv::sha256_hex(std::string(1000, 'x'));
  auto download = cache.fetch_verified(fixture.server.url("/huge.html"), expected, 1000);
  REQUIRE_FALSE(download);
  CHECK(download.error().code == wv::ErrorCode::kIntegrity);
  CHECK_THAT(download.error().message, Catch::Contains("is larger than the expected 1000 bytes"));
}

TEST_CASE("caching fetcher: derived values are kept by key, checked on every load, served offline",
          "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  CachingFetcher cache = fixture.cache();
  const std::string key = "wheel-dist-info/" + std::string(64, 'a') + "/pkg/METADATA";
  CHECK_FALSE(cache.load_derived(key));
  cache.store_derived(key, "Metadata-Version: 2.4\nName: pkg\n");
  CHECK(cache.load_derived(key) == "Metadata-Version: 2.4\nName: pkg\n");
  // Offline, with nothing upstream: the value is still there. An empty value is a value.
  CachingFetcher offline = fixture.cache(true);
  CHECK(offline.load_derived(key) == "Metadata-Version: 2.4\nName: pkg\n");
  cache.store_derived("empty", "");
  CHECK(offline.load_derived("empty") == "");
  CHECK(fixture.counting.requests == 0);
  // Keys with slashes, spaces or `..` are hashed: the path stays inside the cache folder.
  CHECK(cache.derived_path("../../etc/passwd").rfind(fixture.cache_dir.path() + "/derived-v1/", 0) == 0);

  const std::string path = cache.derived_path(key);
  SECTION("a changed byte in the value is a miss, and the entry is dropped") {
    std::string text = *fixture.file_system.read_file(path);
    text.back() ^= 1;
    REQUIRE(fixture.file_system.write_file_atomic(path, text));
    CHECK_FALSE(offline.load_derived(key));
    CHECK_FALSE(fixture.file_system.exists(path));
  }
  SECTION("a truncated entry or a foreign file is a miss") {
    std::string text = *fixture.file_system.read_file(path);
    for (std::string damaged : {text.substr(0, text.size() - 3), text.substr(0, 40), std::string(),
                                std::string("Metadata-Version: 2.4\nName: pkg\n")}) {
      REQUIRE(fixture.file_system.write_file_atomic(path, damaged));
      CHECK_FALSE(offline.load_derived(key));
    }
  }
  SECTION("a value that cannot be stored is only not kept") {
    // The cache folder's place is taken by a file: every write fails (ENOTDIR).
    wv::test::TempDir other;
    REQUIRE(fixture.file_system.write_file_atomic(other.file("blocker"), "x"));
    CachingFetcher blocked(fixture.counting, fixture.file_system,
                           CacheOptions{other.file("blocker") + "/cache", false});
    blocked.store_derived(key, "value");
    blocked.store_derived(key, "value");
    CHECK_FALSE(blocked.load_derived(key));
  }
}

namespace {

/// Passes requests on without their body_path: the body comes back in memory (how every
/// download worked before streaming), the baseline of the figure below.
class InMemoryFetcher final : public wv::Fetcher {
 public:
  explicit InMemoryFetcher(wv::Fetcher& inner) : inner_(inner) {}
  Result<FetchResponse> fetch(const FetchRequest& request) override {
    FetchRequest copy = request;
    copy.body_path.clear();
    return inner_.fetch(copy);
  }

 private:
  wv::Fetcher& inner_;
};

long peak_rss_kib() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

TEST_CASE("caching fetcher: figures for the peak memory of a 256 MiB verified download, streamed "
          "and in memory", "[.][bench][net]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  // Written a MiB at a time, so this process's peak does not already hold the file.
  wv::Sha256 hasher;
  {
    std::FILE* file = std::fopen(fixture.served.file("big-1.0-py3-none-any.whl").c_str(), "wb");
    REQUIRE(file != nullptr);
    std::string chunk(1u << 20, '\0');
    for (int mib = 0; mib < 256; ++mib) {
      for (std::size_t i = 0; i < chunk.size(); i += 4096) chunk[i] = char(mib + i / 4096);
      hasher.update(chunk);
      REQUIRE(std::fwrite(chunk.data(), 1, chunk.size(), file) == chunk.size());
    }
    std::fclose(file);
  }
  const std::string sha = hasher.finish_hex();
  const std::string url = fixture.server.url("/big-1.0-py3-none-any.whl");
  auto measure = [&](wv::Fetcher& upstream, const std::string& folder) {
    CachingFetcher cache(upstream, fixture.file_system, CacheOptions{folder, false});
    const long before = peak_rss_kib();
    auto start = std::chrono::steady_clock::now();
    REQUIRE(cache.fetch_verified(url, sha, 256u << 20));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::pair<long, double>((peak_rss_kib() - before) / 1024, ms);
  };
  // Streamed first: the peak only grows, so the in-memory run must come second.
  wv::test::TempDir streamed_cache, memory_cache;
  auto [streamed_mib, streamed_ms] = measure(fixture.network, streamed_cache.path());
  InMemoryFetcher in_memory(fixture.network);
  auto [memory_mib, memory_ms] = measure(in_memory, memory_cache.path());
  std::printf("  256 MiB verified download: streamed +%ld MiB peak in %.0f ms; in memory +%ld MiB "
              "peak in %.0f ms\n",
              streamed_mib, streamed_ms, memory_mib, memory_ms);
  CHECK(streamed_mib < 64);
}

TEST_CASE("caching fetcher: a download's temporary file left by a killed process is removed once "
          "abandoned, a fresh one is kept", "[net][cache][verified]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  const std::string content(2000, 'k');
  fixture.write("pkg-1.0-py3-none-any.whl", content);
  const std::string sha = wv::sha256_hex(content);
  CachingFetcher cache = fixture.cache();
  const std::string folder = wv::path_parent(cache.verified_path(sha));
  REQUIRE(fixture.file_system.create_directories(folder));
  // Two partial downloads in the same store folder: one last written an hour ago (its process
  // died), one a moment ago (its process may still be writing it).
  const std::string abandoned = folder + "/" + std::string(64, 'f').replace(0, 2, sha.substr(0, 2)) + ".tmp.4242.d0";
  const std::string fresh = cache.verified_path(sha) + ".tmp.4343.d1";
  REQUIRE(fixture.file_system.write_file_atomic(abandoned, "partial"));
  REQUIRE(fixture.file_system.write_file_atomic(fresh, "partial"));
  std::filesystem::last_write_time(abandoned,
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));

  Result<std::string> path = cache.fetch_verified(fixture.server.url("/pkg-1.0-py3-none-any.whl"), sha,
                                                  content.size());
  REQUIRE(path);
  CHECK_FALSE(fixture.file_system.exists(abandoned));
  CHECK(fixture.file_system.exists(fresh));
  CHECK(*fixture.file_system.read_file(*path) == content);
}

TEST_CASE("caching fetcher: a rejected answer asked for again (no-cache) is replaced by the new "
          "one; no-store keeps nothing", "[net][cache]") {
  Fixture fixture;
  REQUIRE(fixture.server.ok());
  fixture.write("page.html", "first");
  const std::string url = fixture.server.url("/page.html");
  CachingFetcher cache = fixture.cache();
  REQUIRE(cache.fetch(get(url))->body == "first");
  fixture.write("page.html", "second");

  FetchRequest refetch = get(url);
  refetch.headers.emplace_back("Cache-Control", "no-cache");
  const long conditional = fixture.count("/page.html", "conditional");
  Result<FetchResponse> again = cache.fetch(refetch);
  REQUIRE(again);
  CHECK(again->body == "second");
  // Asked without validators: the rejected copy's ETag must not bring it back as a 304.
  CHECK(fixture.count("/page.html", "conditional") == conditional);
  // The new answer took the old one's place; offline serves it.
  CHECK(fixture.cache(true).fetch(get(url))->body == "second");

  FetchRequest unstored = get(url);
  unstored.headers.emplace_back("Cache-Control", "no-store");
  REQUIRE(cache.fetch(unstored)->body == "second");
  CHECK_FALSE(fixture.cache(true).fetch(get(url)));
  // Offline, a refetch is a miss and the copy is dropped all the same.
  REQUIRE(cache.fetch(get(url)));
  CHECK_FALSE(fixture.cache(true).fetch(refetch));
  CHECK_FALSE(fixture.cache(true).fetch(get(url)));
}
