// CurlFetcher over real HTTP on loopback, against tests/net/fault_server.py.
#include "src/net/curl_fetcher.h"
#include "src/base/log.h"

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "fault_server.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::FetchRequest;
using wv::FetchResponse;
using wv::Result;
using wv::net::CurlFetcher;
using wv::net::CurlFetcherOptions;

/// Options for tests: short backoff and timeouts, no proxy from the environment, no ~/.netrc.
CurlFetcherOptions test_options() {
  CurlFetcherOptions options;
  options.initial_backoff = std::chrono::milliseconds(10);
  options.max_backoff = std::chrono::milliseconds(50);
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.transfer_timeout = std::chrono::milliseconds(5000);
  options.proxy = wv::net::ProxySettings{};
  options.use_netrc = false;
  options.progress = wv::net::ProgressMode::kNever;
  return options;
}

void write(const wv::test::TempDir& dir, const std::string& name, const std::string& content) {
  wv::RealFileSystem file_system;
  REQUIRE(file_system.write_file_atomic(dir.file(name), content));
}

FetchRequest get(std::string url) { return FetchRequest{std::move(url), {}, std::nullopt}; }

std::string file_url(const std::string& path) { return "file://" + path; }

}  // namespace

TEST_CASE("curl fetcher: a plain GET returns the status, lower-cased headers and the body",
          "[net][curl]") {
  wv::test::TempDir root;
  write(root, "hello.txt", "hello, world\n");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcher fetcher(test_options());

  Result<FetchResponse> response = fetcher.fetch(get(server.url("/hello.txt")));
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == "hello, world\n");
  CHECK(response->headers.at("content-length") == "13");
  CHECK(response->headers.count("etag") == 1);
  CHECK(response->headers.count("last-modified") == 1);
  CHECK(response->effective_url == server.url("/hello.txt"));
  CHECK(server.stat(fetcher, "/hello.txt", "user_agent") == "wvlock/0.1.0");

  // Redirects are followed; effective_url says where the body came from.
  Result<FetchResponse> moved = fetcher.fetch(get(server.url("/old.txt?redirect=/hello.txt")));
  REQUIRE(moved);
  CHECK(moved->status == 200);
  CHECK(moved->body == "hello, world\n");
  CHECK(moved->effective_url == server.url("/hello.txt"));

  // An HTTP error status is a response the caller inspects, not a transport error.
  Result<FetchResponse> missing = fetcher.fetch(get(server.url("/absent.txt")));
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(server.count(fetcher, "/absent.txt", "hits") == 1);
}

TEST_CASE("curl fetcher: a multi-megabyte body arrives whole", "[net][curl]") {
  wv::test::TempDir root;
  std::string content;
  content.reserve(6 << 20);
  for (std::uint32_t i = 0; content.size() < (6u << 20); ++i)
    content += wv::str_cat(i * 2654435761u, ",");
  write(root, "big.whl", content);
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcher fetcher(test_options());
  Result<FetchResponse> response = fetcher.fetch(get(server.url("/big.whl")));
  REQUIRE(response);
  CHECK(response->body.size() == content.size());
  CHECK(response->body == content);
  // A big body that stops short is caught too.
  CurlFetcherOptions once = test_options();
  once.max_attempts = 1;
  CurlFetcher impatient(once);
  Result<FetchResponse> cut = impatient.fetch(get(server.url("/big.whl?truncate=2")));
  REQUIRE_FALSE(cut);
  CHECK_THAT(cut.error().message, Catch::Contains("truncated"));
}

TEST_CASE("curl fetcher: a body streamed to a file is written and hashed as it arrives, never "
          "held in memory", "[net][curl][stream]") {
  wv::test::TempDir root, out;
  std::string content;
  for (std::uint32_t i = 0; content.size() < (3u << 20); ++i) content += wv::str_cat(i * 40503u, ";");
  write(root, "big.whl", content);
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 3;
  CurlFetcher fetcher(options);
  wv::RealFileSystem file_system;
  auto streamed = [&](const std::string& url, const std::string& path, std::uint64_t bound = 0) {
    FetchRequest request = get(url);
    request.body_path = path;
    request.max_body_bytes = bound;
    return fetcher.fetch(request);
  };

  SECTION("whole") {
    Result<FetchResponse> response = streamed(server.url("/big.whl"), out.file("a"));
    REQUIRE(response);
    CHECK(response->status == 200);
    CHECK(response->streamed);
    CHECK(response->body.empty());
    CHECK(response->streamed_bytes == content.size());
    CHECK(response->streamed_sha256 == wv::sha256_hex(content));
    CHECK(*file_system.read_file(out.file("a")) == content);
  }
  SECTION("a retried attempt starts the file again") {
    Result<FetchResponse> response = streamed(server.url("/big.whl?truncate=1"), out.file("b"));
    REQUIRE(response);
    CHECK(server.count(fetcher, "/big.whl", "hits") == 2);
    CHECK(response->streamed_bytes == content.size());
    CHECK(response->streamed_sha256 == wv::sha256_hex(content));
    CHECK(*file_system.read_file(out.file("b")) == content);
  }
  SECTION("over the bound: cut, and nothing past the bound written") {
    Result<FetchResponse> response = streamed(server.url("/big.whl"), out.file("c"), 100000);
    REQUIRE(response);
    CHECK(response->body_cut);
    CHECK(response->streamed_bytes <= 100000);
    CHECK(file_system.stat(out.file("c"))->size <= 100000);
    CHECK(server.count(fetcher, "/big.whl", "hits") == 1);
  }
  SECTION("a full disk is an I/O error naming the file, not retried") {
    // /dev/full opens, and every write to it fails with ENOSPC.
    Result<FetchResponse> response = streamed(server.url("/big.whl"), "/dev/full");
    REQUIRE_FALSE(response);
    CHECK(response.error().code == wv::ErrorCode::kIo);
    CHECK_THAT(response.error().message, Catch::Contains("cannot write `/dev/full`: No space left on device"));
    CHECK_THAT(response.error().message, Catch::Contains("/big.whl"));
    CHECK(server.count(fetcher, "/big.whl", "hits") == 1);
  }
  SECTION("a file that cannot be created: no request is made") {
    Result<FetchResponse> response = streamed(server.url("/big.whl"), out.file("no/such/folder"));
    REQUIRE_FALSE(response);
    CHECK(response.error().code == wv::ErrorCode::kIo);
    CHECK_THAT(response.error().message, Catch::Contains("No such file or directory"));
    CHECK(server.count(fetcher, "/big.whl", "hits") == 0);
  }
  SECTION("several at once, each into its own file") {
    std::vector<FetchRequest> requests;
    for (int i = 0; i < 6; ++i) {
      FetchRequest request = get(server.url(wv::str_cat("/big.whl?n=", i)));
      request.body_path = out.file(wv::str_cat("many-", i));
      requests.push_back(request);
    }
    std::vector<Result<FetchResponse>> responses = fetcher.fetch_all(requests);
    for (int i = 0; i < 6; ++i) {
      REQUIRE(responses[i]);
      CHECK(responses[i]->streamed_sha256 == wv::sha256_hex(content));
      CHECK(file_system.stat(out.file(wv::str_cat("many-", i)))->size == content.size());
    }
  }
}

TEST_CASE("curl fetcher: fetch_all runs many transfers and keeps request order", "[net][curl]") {
  wv::test::TempDir root;
  constexpr int kCount = 120;
  for (int i = 0; i < kCount; ++i)
    write(root, wv::str_cat("f", i, ".txt"), wv::str_cat("body ", i));
  write(root, "local.txt", "from disk");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_parallel = 8;
  CurlFetcher fetcher(options);

  std::vector<FetchRequest> requests;
  for (int i = 0; i < kCount; ++i) {
    // every tenth one fails twice first, so results finish out of order
    std::string query = i % 10 == 3 ? "?fail=2" : "";
    requests.push_back(get(server.url(wv::str_cat("/f", i, ".txt", query))));
  }
  requests.insert(requests.begin() + 7, get(server.url("/nope.txt")));
  requests.insert(requests.begin() + 50, get(file_url(root.file("local.txt"))));

  std::vector<Result<FetchResponse>> results = fetcher.fetch_all(requests);
  REQUIRE(results.size() == requests.size());
  int next = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    INFO("request " << i << ": " << requests[i].url);
    REQUIRE(results[i]);
    if (i == 7) {
      CHECK(results[i]->status == 404);
    } else if (i == 50) {
      CHECK(results[i]->body == "from disk");
    } else {
      CHECK(results[i]->status == 200);
      CHECK(results[i]->body == wv::str_cat("body ", next));
      ++next;
    }
  }
  CHECK(next == kCount);
  CHECK(server.count(fetcher, "/f3.txt", "hits") == 3);
  CHECK(server.count(fetcher, "/f4.txt", "hits") == 1);
}

TEST_CASE("curl fetcher: 5xx answers are retried, then reported with the attempt count",
          "[net][curl][retry]") {
  wv::test::TempDir root;
  write(root, "flaky.txt", "finally");
  write(root, "broken.txt", "never");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 3;
  CurlFetcher fetcher(options);

  Result<FetchResponse> flaky = fetcher.fetch(get(server.url("/flaky.txt?fail=2")));
  REQUIRE(flaky);
  CHECK(flaky->status == 200);
  CHECK(flaky->body == "finally");
  CHECK(server.count(fetcher, "/flaky.txt", "hits") == 3);

  Result<FetchResponse> broken = fetcher.fetch(get(server.url("/broken.txt?fail=100")));
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == wv::ErrorCode::kNetwork);
  CHECK_THAT(broken.error().message, Catch::Contains(server.url("/broken.txt?fail=100")));
  CHECK_THAT(broken.error().message, Catch::Contains("HTTP 500"));
  CHECK_THAT(broken.error().message, Catch::Contains("after 3 attempts"));
  CHECK(server.count(fetcher, "/broken.txt", "hits") == 3);
}

TEST_CASE("curl fetcher: connection resets and truncated bodies are retried",
          "[net][curl][retry]") {
  wv::test::TempDir root;
  write(root, "reset.txt", "survived a reset");
  write(root, "short.txt", std::string(5000, 'x'));
  write(root, "always-short.txt", "short forever");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 3;
  CurlFetcher fetcher(options);

  Result<FetchResponse> reset = fetcher.fetch(get(server.url("/reset.txt?reset=1")));
  REQUIRE(reset);
  CHECK(reset->body == "survived a reset");
  CHECK(server.count(fetcher, "/reset.txt", "hits") == 2);

  Result<FetchResponse> truncated = fetcher.fetch(get(server.url("/short.txt?truncate=1")));
  REQUIRE(truncated);
  CHECK(truncated->body == std::string(5000, 'x'));
  CHECK(server.count(fetcher, "/short.txt", "hits") == 2);

  // A body that is always cut short never comes back as a response.
  Result<FetchResponse> never = fetcher.fetch(get(server.url("/always-short.txt?truncate=100")));
  REQUIRE_FALSE(never);
  CHECK(never.error().code == wv::ErrorCode::kNetwork);
  CHECK_THAT(never.error().message, Catch::Contains("truncated"));
  CHECK_THAT(never.error().message, Catch::Contains("after 3 attempts"));
  CHECK(server.count(fetcher, "/always-short.txt", "hits") == 3);
}

TEST_CASE("curl fetcher: a stalled server times out within the bound", "[net][curl][retry]") {
  wv::test::TempDir root;
  write(root, "slow.txt", "too late");
  write(root, "slow-once.txt", "second try");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 2;
  options.transfer_timeout = std::chrono::milliseconds(300);
  CurlFetcher fetcher(options);

  auto started = std::chrono::steady_clock::now();
  Result<FetchResponse> slow = fetcher.fetch(get(server.url("/slow.txt?stall=100&stall_s=3")));
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(slow);
  CHECK(slow.error().code == wv::ErrorCode::kNetwork);
  CHECK_THAT(slow.error().message, Catch::Contains("timed out"));
  CHECK_THAT(slow.error().message, Catch::Contains("after 2 attempts"));
  CHECK(elapsed < std::chrono::milliseconds(2500));

  Result<FetchResponse> once = fetcher.fetch(get(server.url("/slow-once.txt?stall=1&stall_s=3")));
  REQUIRE(once);
  CHECK(once->body == "second try");
}

TEST_CASE("curl fetcher: a trickling server is abandoned; a streamed download has no total "
          "bound", "[net][curl][retry]") {
  wv::test::TempDir root, out;
  write(root, "drip.whl", std::string(6000, 'd'));
  write(root, "slow-but-fine.whl", std::string(40000, 'f'));
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 1;
  options.stall_timeout = std::chrono::milliseconds(1000);
  options.min_speed = 1024;
  options.transfer_timeout = std::chrono::milliseconds(800);
  CurlFetcher fetcher(options);

  // 200 bytes a second: alive, never idle for a second, but far below the minimum speed.
  auto started = std::chrono::steady_clock::now();
  FetchRequest drip = get(server.url("/drip.whl?trickle=200"));
  drip.body_path = out.file("drip");
  Result<FetchResponse> dripped = fetcher.fetch(drip);
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(dripped);
  CHECK(dripped.error().code == wv::ErrorCode::kNetwork);
  CHECK_THAT(dripped.error().message,
             Catch::Contains("the server sent less than 1024 bytes a second for 1 s"));
  CHECK(elapsed < std::chrono::milliseconds(4000));  // the whole body would take 30 s

  // 20 KB a second for 2 s: past the 800 ms bound of an in-memory request, which is cut ...
  Result<FetchResponse> in_memory = fetcher.fetch(get(server.url("/slow-but-fine.whl?trickle=20000")));
  REQUIRE_FALSE(in_memory);
  CHECK_THAT(in_memory.error().message, Catch::Contains("timed out"));
  // ... while a streamed download, bounded by its speed only, arrives whole.
  FetchRequest streamed = get(server.url("/slow-but-fine.whl?trickle=20000"));
  streamed.body_path = out.file("fine");
  Result<FetchResponse> arrived = fetcher.fetch(streamed);
  REQUIRE(arrived);
  CHECK(arrived->streamed_bytes == 40000);
}

TEST_CASE("curl fetcher: an unreachable server is a network error naming the URL", "[net][curl]") {
  CurlFetcherOptions options = test_options();
  options.max_attempts = 2;
  CurlFetcher fetcher(options);
  // Port 1 on loopback refuses connections.
  Result<FetchResponse> response = fetcher.fetch(get("http://127.0.0.1:1/x"));
  REQUIRE_FALSE(response);
  CHECK(response.error().code == wv::ErrorCode::kNetwork);
  CHECK(response.error().message ==
        "cannot fetch `http://127.0.0.1:1/x`: cannot connect to the server (after 2 attempts)");

  Result<FetchResponse> bad_scheme = fetcher.fetch(get("gopher://127.0.0.1:1/x"));
  REQUIRE_FALSE(bad_scheme);
  CHECK_THAT(bad_scheme.error().message, Catch::Contains("not supported"));
}

TEST_CASE("curl fetcher: file URLs are read directly, with ranges", "[net][curl][file]") {
  wv::test::TempDir root;
  write(root, "data.bin", "0123456789");
  write(root, "with space.txt", "spaced");
  CurlFetcher fetcher(test_options());

  Result<FetchResponse> whole = fetcher.fetch(get(file_url(root.file("data.bin"))));
  REQUIRE(whole);
  CHECK(whole->status == 200);
  CHECK(whole->body == "0123456789");

  Result<FetchResponse> spaced = fetcher.fetch(get(file_url(root.path() + "/with%20space.txt")));
  REQUIRE(spaced);
  CHECK(spaced->body == "spaced");

  FetchRequest ranged = get(file_url(root.file("data.bin")));
  ranged.range = std::make_pair(std::int64_t(2), std::int64_t(4));
  Result<FetchResponse> part = fetcher.fetch(ranged);
  REQUIRE(part);
  CHECK(part->status == 206);
  CHECK(part->body == "234");
  CHECK(part->headers.at("content-range") == "bytes 2-4/10");
  ranged.range = std::make_pair(std::int64_t(-3), std::int64_t(0));
  Result<FetchResponse> suffix = fetcher.fetch(ranged);
  REQUIRE(suffix);
  CHECK(suffix->body == "789");

  Result<FetchResponse> missing = fetcher.fetch(get(file_url(root.file("absent.bin"))));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == wv::ErrorCode::kNotFound);
  CHECK(missing.error().message ==
        wv::str_cat("cannot read `", file_url(root.file("absent.bin")), "`: no such file"));

  Result<FetchResponse> remote = fetcher.fetch(get("file://elsewhere/etc/hosts"));
  REQUIRE_FALSE(remote);
  CHECK(remote.error().code == wv::ErrorCode::kUnsupported);
}

TEST_CASE("curl fetcher: range requests give 206, or 200 with the whole body when ignored",
          "[net][curl][range]") {
  wv::test::TempDir root;
  write(root, "data.bin", "abcdefghijklmnopqrstuvwxyz");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcher fetcher(test_options());

  FetchRequest request = get(server.url("/data.bin"));
  request.range = std::make_pair(std::int64_t(3), std::int64_t(6));
  Result<FetchResponse> part = fetcher.fetch(request);
  REQUIRE(part);
  CHECK(part->status == 206);
  CHECK(part->body == "defg");
  CHECK(part->headers.at("content-range") == "bytes 3-6/26");

  request.range = std::make_pair(std::int64_t(-4), std::int64_t(0));
  Result<FetchResponse> tail = fetcher.fetch(request);
  REQUIRE(tail);
  CHECK(tail->status == 206);
  CHECK(tail->body == "wxyz");
  CHECK(server.count(fetcher, "/data.bin", "ranged") == 2);

  // A server that ignores Range answers 200 with everything; the caller sees which it got.
  FetchRequest ignored = get(server.url("/data.bin?norange=1"));
  ignored.range = std::make_pair(std::int64_t(3), std::int64_t(6));
  Result<FetchResponse> whole = fetcher.fetch(ignored);
  REQUIRE(whole);
  CHECK(whole->status == 200);
  CHECK(whole->body == "abcdefghijklmnopqrstuvwxyz");
}

TEST_CASE("curl fetcher: credentials come from a netrc file or the URL", "[net][curl][auth]") {
  wv::test::TempDir root;
  write(root, "private.txt", "secret body");
  write(root, "netrc", "machine 127.0.0.1\n  login alice\n  password s3cret\n");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  const std::string path = "/private.txt?auth=alice:s3cret";

  CurlFetcherOptions options = test_options();
  CurlFetcher anonymous(options);
  Result<FetchResponse> refused = anonymous.fetch(get(server.url(path)));
  REQUIRE(refused);
  CHECK(refused->status == 401);

  options.use_netrc = true;
  options.netrc_path = root.file("netrc");
  CurlFetcher with_netrc(options);
  Result<FetchResponse> allowed = with_netrc.fetch(get(server.url(path)));
  REQUIRE(allowed);
  CHECK(allowed->status == 200);
  CHECK(allowed->body == "secret body");

  Result<FetchResponse> in_url =
      anonymous.fetch(get(wv::str_cat("http://alice:s3cret@127.0.0.1:", server.port(), path)));
  REQUIRE(in_url);
  CHECK(in_url->status == 200);
  CHECK(server.count(anonymous, "/private.txt", "authorized") == 2);

  // A password in the URL never appears in an error message.
  Result<FetchResponse> failed = anonymous.fetch(get("http://alice:s3cret@127.0.0.1:1/x"));
  REQUIRE_FALSE(failed);
  CHECK_THAT(failed.error().message, !Catch::Contains("s3cret"));
  CHECK_THAT(failed.error().message, !Catch::Contains("alice"));
  CHECK_THAT(failed.error().message, Catch::Contains("http://****@127.0.0.1:1"));
}

TEST_CASE("curl fetcher: HTTP_PROXY routes requests through the proxy and NO_PROXY bypasses it",
          "[net][curl][proxy]") {
  wv::test::TempDir root;
  write(root, "via.txt", "through the proxy");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 1;

  // The fault server also answers absolute-form requests, as a forward proxy does.
  options.proxy = wv::net::ProxySettings::from_environment(
      [&](const std::string& name) -> std::optional<std::string> {
        if (name == "HTTP_PROXY") return server.url("");
        return std::nullopt;
      });
  CurlFetcher proxied(options);
  Result<FetchResponse> response = proxied.fetch(get("http://packages.example.invalid/via.txt"));
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == "through the proxy");
  CHECK(server.count(proxied, "/via.txt", "proxied") == 1);

  // A dead proxy: NO_PROXY sends loopback directly, everything else fails at the proxy.
  options.proxy = wv::net::ProxySettings{"http://127.0.0.1:1", "", "", "localhost,127.0.0.1"};
  CurlFetcher bypassing(options);
  Result<FetchResponse> direct = bypassing.fetch(get(server.url("/via.txt")));
  REQUIRE(direct);
  CHECK(direct->body == "through the proxy");
  CHECK(server.count(bypassing, "/via.txt", "proxied") == 1);
  options.proxy->no_proxy = "";
  CurlFetcher not_bypassing(options);
  CHECK_FALSE(not_bypassing.fetch(get(server.url("/via.txt"))));
}

TEST_CASE("curl fetcher: connections are pooled across calls and bounded in parallel",
          "[net][curl][pool]") {
  wv::test::TempDir root;
  for (int i = 0; i < 40; ++i) write(root, wv::str_cat("c", i), "x");
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_parallel = 4;
  CurlFetcher fetcher(options);

  for (int i = 0; i < 10; ++i) REQUIRE(fetcher.fetch(get(server.url(wv::str_cat("/c", i)))));
  // Ten sequential fetches (and this stats request) share one keep-alive connection.
  CHECK(server.count(fetcher, "/__server", "connections") == 1);

  std::vector<FetchRequest> requests;
  for (int i = 0; i < 40; ++i) requests.push_back(get(server.url(wv::str_cat("/c", i))));
  for (const Result<FetchResponse>& result : fetcher.fetch_all(requests)) REQUIRE(result);
  long connections = server.count(fetcher, "/__server", "connections");
  CHECK(connections >= 1);
  CHECK(connections <= 4);  // never more than max_parallel at once, the pooled one reused
}

TEST_CASE("curl fetcher: concurrent callers on several threads share one fetcher",
          "[net][curl][pool]") {
  wv::test::TempDir root;
  for (int i = 0; i < 24; ++i) write(root, wv::str_cat("t", i), wv::str_cat("thread file ", i));
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcher fetcher(test_options());
  std::vector<std::vector<Result<FetchResponse>>> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<FetchRequest> requests;
      for (int i = t; i < 24; i += 4) requests.push_back(get(server.url(wv::str_cat("/t", i))));
      results[t] = fetcher.fetch_all(requests);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    REQUIRE(results[t].size() == 6);
    for (int k = 0; k < 6; ++k) {
      REQUIRE(results[t][k]);
      CHECK(results[t][k]->body == wv::str_cat("thread file ", t + 4 * k));
    }
  }
}

TEST_CASE("curl fetcher: TLS certificates are always verified", "[net][curl][tls]") {
  wv::test::TempDir root;
  write(root, "secure.txt", "over tls");
  const std::string cert = root.file("cert.pem");
  const std::string key = root.file("key.pem");
  std::string command = wv::str_cat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '",
      key, "' -out '", cert, "' >/dev/null 2>&1");
  if (std::system(command.c_str()) != 0) {
    WV_SKIP("the `openssl` command is not available to make a test certificate");
  }
  wv::test::FaultServer server(root.path(), {"--tls", cert, key});
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.max_attempts = 3;

  // A self-signed certificate fails verification; that is not retried.
  CurlFetcher strict(options);
  Result<FetchResponse> refused = strict.fetch(get(server.url("/secure.txt")));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == wv::ErrorCode::kNetwork);
  CHECK(refused.error().message == wv::str_cat("cannot fetch `", server.url("/secure.txt"),
                                               "`: the server's TLS certificate did not verify"));
  // The hint names the variables wvlock reads and what it trusts now.
  const std::string text = refused.error().to_string();
  INFO(text);
  CHECK(text.find("wvlock trusts the system's CA certificates") != std::string::npos);
  CHECK(text.find("set SSL_CERT_FILE to your organisation's CA bundle") != std::string::npos);
  CHECK(text.find("SSL_CERT_DIR") != std::string::npos);

  // Trusting the certificate explicitly makes it work.
  options.ca_bundle = cert;
  CurlFetcher trusting(options);
  Result<FetchResponse> response = trusting.fetch(get(server.url("/secure.txt")));
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == "over tls");

  // So does a folder of hashed certificates (CURLOPT_CAPATH, the CLI's SSL_CERT_DIR).
  const std::string folder = root.file("certs");
  std::filesystem::create_directory(folder);
  std::filesystem::copy_file(cert, folder + "/server.pem");
  REQUIRE(std::system(wv::str_cat("openssl rehash '", folder, "' >/dev/null 2>&1").c_str()) == 0);
  options.ca_bundle = root.file("unrelated.pem");  // a bundle that trusts another server only
  std::system(wv::str_cat("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                          "-nodes -days 2 -subj /CN=other -keyout '", root.file("other.key"),
                          "' -out '", options.ca_bundle, "' >/dev/null 2>&1").c_str());
  CurlFetcher other_bundle(options);
  REQUIRE_FALSE(other_bundle.fetch(get(server.url("/secure.txt"))));
  options.ca_path = folder;
  CurlFetcher with_folder(options);
  Result<FetchResponse> from_folder = with_folder.fetch(get(server.url("/secure.txt")));
  REQUIRE(from_folder);
  CHECK(from_folder->body == "over tls");

  // A bundle that cannot be read says so, with the same hint.
  options.ca_path.clear();
  options.ca_bundle = root.file("absent.pem");
  CurlFetcher unreadable(options);
  Result<FetchResponse> bad = unreadable.fetch(get(server.url("/secure.txt")));
  REQUIRE_FALSE(bad);
  INFO(bad.error().to_string());
  CHECK(bad.error().message.find("the trusted CA certificates cannot be read") != std::string::npos);
  CHECK(bad.error().to_string().find("the bundle `" + options.ca_bundle + "`") != std::string::npos);
}

namespace {

/// Points file descriptor 2 somewhere else for one scope.
class StderrRedirect {
 public:
  explicit StderrRedirect(int fd) : saved_(::dup(STDERR_FILENO)) {
    std::fflush(stderr);
    ::dup2(fd, STDERR_FILENO);
  }
  ~StderrRedirect() {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }

 private:
  int saved_;
};

std::string drain(int fd) {
  std::string out;
  char buffer[4096];
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  ssize_t got;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, std::size_t(got));
  return out;
}

}  // namespace

TEST_CASE("curl fetcher: the progress bar is drawn only when stderr is a terminal",
          "[net][curl][progress]") {
  wv::test::TempDir root;
  write(root, "slow.bin", std::string(2048, 'p'));
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcherOptions options = test_options();
  options.progress = wv::net::ProgressMode::kAuto;
  options.progress_delay = std::chrono::milliseconds(0);
  CurlFetcher fetcher(options);
  const std::vector<FetchRequest> requests = {get(server.url("/slow.bin?latency_ms=700")),
                                              get(server.url("/slow.bin"))};

  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  {
    StderrRedirect redirect(pipe_ends[1]);
    for (const Result<FetchResponse>& result : fetcher.fetch_all(requests)) REQUIRE(result);
  }
  ::close(pipe_ends[1]);
  CHECK(drain(pipe_ends[0]).empty());
  ::close(pipe_ends[0]);

  int terminal = -1, device = -1;
  if (::openpty(&terminal, &device, nullptr, nullptr, nullptr) != 0) {
    WARN("skipped the terminal half: no pseudo-terminal available");
    return;
  }
  {
    StderrRedirect redirect(device);
    for (const Result<FetchResponse>& result : fetcher.fetch_all(requests)) REQUIRE(result);
  }
  std::string drawn = drain(terminal);
  ::close(device);
  ::close(terminal);
  CHECK_THAT(drawn, Catch::Contains("\rdownloading "));
  CHECK_THAT(drawn, Catch::Contains("(1/2 files)"));
  CHECK(drawn.back() == '\r');  // the line is erased at the end

  // `-q` draws nothing, even on a terminal.
  REQUIRE(::openpty(&terminal, &device, nullptr, nullptr, nullptr) == 0);
  wv::set_verbosity(wv::Verbosity::kQuiet);
  {
    StderrRedirect redirect(device);
    for (const Result<FetchResponse>& result : fetcher.fetch_all(requests)) REQUIRE(result);
  }
  wv::set_verbosity(wv::Verbosity::kNormal);
  ::close(device);
  CHECK(drain(terminal).empty());
  ::close(terminal);
}

TEST_CASE("curl fetcher: 200 small fetches, parallel against sequential", "[.][bench][net]") {
  wv::test::TempDir root;
  constexpr int kCount = 200;
  for (int i = 0; i < kCount; ++i) write(root, wv::str_cat("p", i, ".txt"), std::string(512, 'a'));
  wv::test::FaultServer server(root.path());
  REQUIRE(server.ok());
  CurlFetcher fetcher(test_options());
  using Clock = std::chrono::steady_clock;
  for (const char* query : {"", "?latency_ms=20"}) {
    std::vector<FetchRequest> requests;
    for (int i = 0; i < kCount; ++i) {
      requests.push_back(get(server.url(wv::str_cat("/p", i, ".txt", query))));
    }
    (void)fetcher.fetch_all(std::vector<FetchRequest>(requests.begin(), requests.begin() + 16));
    auto started = Clock::now();
    for (const FetchRequest& request : requests) REQUIRE(fetcher.fetch(request));
    double sequential = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    started = Clock::now();
    for (const Result<FetchResponse>& result : fetcher.fetch_all(requests)) REQUIRE(result);
    double parallel = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    std::printf("%d fetches of 512 B over loopback%s: sequential %.0f ms, fetch_all %.0f ms\n",
                kCount, *query ? " with 20 ms latency" : "", sequential, parallel);
  }
}
