// Freshness of cached responses (net/http_freshness.h) and the CachingFetcher serving fresh
// or hash-pinned copies without asking the server, over the loopback fault server.
#include "src/net/http_freshness.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "fault_server.h"
#include "src/net/caching_fetcher.h"
#include "src/net/curl_fetcher.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::net::fresh_until;
using wv::net::parse_http_date;

constexpr std::int64_t kNow = 1'700'000'000;  // 2023-11-14T22:13:20Z

wv::net::CurlFetcherOptions quiet_network() {
  wv::net::CurlFetcherOptions options;
  options.max_attempts = 1;
  options.proxy = wv::net::ProxySettings{};
  options.use_netrc = false;
  options.progress = wv::net::ProgressMode::kNever;
  return options;
}

}  // namespace

TEST_CASE("http freshness: the three HTTP date forms parse, anything else does not",
          "[net][freshness]") {
  CHECK(parse_http_date("Tue, 14 Nov 2023 22:13:20 GMT") == kNow);
  CHECK(parse_http_date("Tuesday, 14-Nov-23 22:13:20 GMT") == kNow);
  CHECK(parse_http_date("Tue Nov 14 22:13:20 2023") == kNow);
  CHECK_FALSE(parse_http_date("0"));
  CHECK_FALSE(parse_http_date(""));
  CHECK_FALSE(parse_http_date("Tue, 14 Nov 2023 22:13:20 GMT trailing"));
}

TEST_CASE("http freshness: max-age less Age, immutable, no-cache, Expires against Date",
          "[net][freshness]") {
  using Headers = std::map<std::string, std::string>;
  CHECK(fresh_until(Headers{}, kNow) == kNow);  // no lifetime: revalidated on every use
  CHECK(fresh_until(Headers{{"cache-control", "max-age=600"}}, kNow) == kNow + 600);
  CHECK(fresh_until(Headers{{"cache-control", "public, MAX-AGE=\"60\""}}, kNow) == kNow + 60);
  CHECK(fresh_until(Headers{{"cache-control", "max-age=600"}, {"age", "100"}}, kNow) ==
        kNow + 500);
  CHECK(fresh_until(Headers{{"cache-control", "max-age=60"}, {"age", "100"}}, kNow) == kNow);
  CHECK(fresh_until(Headers{{"cache-control", "max-age=soon"}}, kNow) == kNow);
  CHECK(fresh_until(Headers{{"cache-control", "max-age=600, no-cache"}}, kNow) == kNow);
  CHECK(fresh_until(Headers{{"cache-control", "public, immutable"}}, kNow) ==
        wv::net::kFreshForever);
  CHECK(fresh_until(Headers{{"cache-control", "max-age=600, immutable"}}, kNow) == kNow + 600);
  // max-age wins over Expires; Expires counts from the server's Date, not our clock.
  CHECK(fresh_until(Headers{{"cache-control", "max-age=10"},
                            {"expires", "Tue, 14 Nov 2023 23:13:20 GMT"}},
                    kNow) == kNow + 10);
  CHECK(fresh_until(Headers{{"date", "Tue, 14 Nov 2023 22:00:00 GMT"},
                            {"expires", "Tue, 14 Nov 2023 22:10:00 GMT"}},
                    kNow) == kNow + 600);
  CHECK(fresh_until(Headers{{"expires", "0"}}, kNow) == kNow);
  CHECK(fresh_until(Headers{{"pragma", "no-cache"}, {"expires", "Wed, 15 Nov 2023 00:00:00 GMT"}},
                    kNow) == kNow);
}

TEST_CASE("caching fetcher: a fresh copy is served unasked until max-age runs out, then "
          "revalidated; revalidate and a pinned hash are honoured",
          "[net][cache][freshness]") {
  wv::test::TempDir served;
  wv::test::TempDir cache_dir;
  wv::RealFileSystem file_system;
  REQUIRE(file_system.write_file_atomic(served.file("page.html"), "<a href='x.whl'>x</a>"));
  REQUIRE(file_system.write_file_atomic(served.file("plain.txt"), "plain"));
  wv::test::FaultServer server(served.path());
  REQUIRE(server.ok());
  wv::net::CurlFetcher network(quiet_network());
  std::int64_t clock = kNow;
  wv::net::CacheOptions options{cache_dir.path(), false};
  options.now = [&clock] { return clock; };
  wv::net::CachingFetcher cache(network, file_system, options);
  const std::string url = server.url("/page.html?cache_control=max-age%3D600");
  auto hits = [&](const char* path) { return server.count(network, path, "hits"); };

  REQUIRE(cache.fetch({url}));
  REQUIRE(cache.fetch({url}));
  clock += 599;
  auto fresh = cache.fetch({url});
  REQUIRE(fresh);
  CHECK(fresh->body == "<a href='x.whl'>x</a>");
  CHECK(hits("/page.html") == 1);  // both later uses within max-age: not asked

  clock += 1;  // stale: revalidated, a 304 renews the lifetime from now
  REQUIRE(cache.fetch({url}));
  CHECK(hits("/page.html") == 2);
  CHECK(server.count(network, "/page.html", "not_modified") == 1);
  clock += 300;
  REQUIRE(cache.fetch({url}));
  CHECK(hits("/page.html") == 2);

  wv::FetchRequest forced{url};
  forced.revalidate = true;  // --refresh
  REQUIRE(cache.fetch(forced));
  CHECK(hits("/page.html") == 3);

  // A copy whose sha256 the request pins cannot be out of date: never asked again, while a
  // copy of another hash (the page changed what it pins) is.
  const std::string plain = server.url("/plain.txt");
  REQUIRE(cache.fetch({plain}));
  wv::FetchRequest pinned{plain};
  pinned.expected_sha256 = "a5a2f1c1e1bc1db5c8b3ae6a3a8bee2a7b0f8f0bcd4b3c1d0be0c5c4e6b3fb10";
  REQUIRE(cache.fetch(pinned));
  CHECK(hits("/plain.txt") == 2);
  pinned.expected_sha256 = wv::sha256_hex("plain");
  REQUIRE(cache.fetch(pinned));
  REQUIRE(cache.fetch(pinned));
  CHECK(hits("/plain.txt") == 2);

  // A clock set back before the copy was stored makes it stale, not fresh for longer.
  clock = kNow - 3600;
  REQUIRE(cache.fetch({url}));
  CHECK(hits("/page.html") == 4);
}
