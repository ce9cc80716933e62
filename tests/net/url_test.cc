#include "src/net/url.h"

#include <catch2/catch.hpp>
#include <random>

#include "src/base/credentials.h"

using wv::net::split_url;

TEST_CASE("url: split_url finds scheme, user info, host, port and path", "[net][url]") {
  auto parts = split_url("HTTPS://user:pw@Files.Example.org:8443/simple/torch/?x=1#frag");
  REQUIRE(parts);
  CHECK(parts->scheme == "https");
  CHECK(parts->userinfo == "user:pw");
  CHECK(parts->host == "files.example.org");
  CHECK(parts->port == 8443);
  CHECK(parts->path == "/simple/torch/?x=1");
  CHECK(wv::net::effective_port(*parts) == 8443);

  auto plain = split_url("http://example.org");
  REQUIRE(plain);
  CHECK(plain->host == "example.org");
  CHECK(plain->path.empty());
  CHECK_FALSE(plain->port);
  CHECK(wv::net::effective_port(*plain) == 80);

  auto v6 = split_url("http://[::1]:8080/x");
  REQUIRE(v6);
  CHECK(v6->host == "[::1]");
  CHECK(v6->port == 8080);

  CHECK_FALSE(split_url("no scheme here"));
  CHECK_FALSE(split_url("http://host:99999/"));
  CHECK_FALSE(split_url("http://host:8x/"));
  CHECK_FALSE(split_url("http://[::1/"));
  CHECK(split_url("relative/path").error().message ==
        "invalid URL `relative/path`: expected `scheme://host/path`");
}

TEST_CASE("url: file URLs map to local paths", "[net][url]") {
  CHECK(*wv::net::file_url_to_path("file:///tmp/a%20b.whl") == "/tmp/a b.whl");
  CHECK(*wv::net::file_url_to_path("file://localhost/tmp/x") == "/tmp/x");
  CHECK(*wv::net::file_url_to_path("file:/tmp/x") == "/tmp/x");
  CHECK(wv::net::file_url_to_path("file://server/share/x").error().code ==
        wv::ErrorCode::kUnsupported);
  CHECK_FALSE(wv::net::file_url_to_path("file:///tmp/%zz"));
  CHECK_FALSE(wv::net::file_url_to_path("file:///tmp/%00"));
  CHECK_FALSE(wv::net::file_url_to_path("http://example.org/x"));
  CHECK(wv::net::is_file_url("FILE:///x"));
  CHECK_FALSE(wv::net::is_file_url("https://x"));
}

TEST_CASE("url: user-info is masked whole, by the one credential rule", "[net][url]") {
  // A user name alone can be a token, so it goes too: the rule of redact_credentials.
  CHECK(wv::net::redact_url("https://alice:s3cret@host/simple/") == "https://****@host/simple/");
  CHECK(wv::net::redact_url("https://token@host/x") == "https://****@host/x");
  CHECK(wv::net::redact_url("https://alice:it's@host/x") == "https://****@host/x");
  for (const char* url : {"https://alice:it's@host/x", "http://u:p@[::1]:8080/", "https://host/"}) {
    CHECK(wv::net::redact_url(url) == wv::redact_credentials(url));
  }
  CHECK(wv::net::redact_url("https://host/a@b") == "https://host/a@b");
  CHECK(wv::net::redact_url("not a url") == "not a url");
}

TEST_CASE("url: arbitrary bytes never crash the URL functions", "[net][url][fuzz]") {
  std::mt19937 random(17);
  const std::string alphabet = "ab:/@[]%?#.0123456789fileFHTPhtp \x01\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    std::size_t length = random() % 24;
    for (std::size_t i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    (void)split_url(text);
    (void)wv::net::file_url_to_path(text);
    (void)wv::net::percent_decode(text);
    std::string redacted = wv::net::redact_url(text);
    CHECK(wv::net::redact_url(redacted) == redacted);
  }
}
