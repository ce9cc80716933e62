// Hostile input, class 2: a project page served over http(s) may link only to http(s). A
// `file://` href, `<base href>` or PEP 691 `url` would make the lock read a file of this
// machine on a remote index's say and record it as a project path.
#include <catch2/catch.hpp>

#include "tests/index/index_test_support.h"
#include "src/index/sources.h"

namespace {

using wv::ErrorCode;
using wv::index::IndexSource;
using wv::index::LocationKind;

const char* kIndex = "https://index.example/simple/";
const char* kPage = "https://index.example/simple/demo/";

wv::Result<std::vector<wv::pkg::Distribution>> list(const std::string& body,
                                                    const std::string& type = "text/html") {
  static wv::RealFileSystem file_system;
  wv::test::MemoryFetcher fetcher;
  fetcher.files[kPage] = body;
  fetcher.content_types[kPage] = type;
  IndexSource source({{LocationKind::kSimpleIndex, kIndex}}, file_system, &fetcher);
  return source.distributions(*wv::pkg::parse_package_name("demo"));
}

std::string anchor_page(const std::string& href, const std::string& base = "") {
  return "<!DOCTYPE html><html><head>" + (base.empty() ? "" : "<base href=\"" + base + "\">") +
         "</head><body><a href=\"" + href + "\">demo-1.0-py3-none-any.whl</a></body></html>";
}

std::string json_page(const std::string& url) {
  return "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": \"demo\", \"files\": [{\"filename\": "
         "\"demo-1.0-py3-none-any.whl\", \"url\": \"" + url + "\", \"hashes\": {}}]}";
}

void expect_refused(const wv::Result<std::vector<wv::pkg::Distribution>>& listed,
                    const std::string& target) {
  REQUIRE_FALSE(listed.has_value());
  CHECK(listed.error().code == ErrorCode::kInvalidInput);
  CHECK(listed.error().message.find(std::string("project page `") + kPage + "`") != std::string::npos);
  CHECK(listed.error().message.find(target) != std::string::npos);
  CHECK(listed.error().message.find("may only link to http(s)") != std::string::npos);
}

}  // namespace

TEST_CASE("remote links: an http(s) page linking outside http(s) is refused, naming the page",
          "[index][hostile]") {
  SECTION("an absolute file:// href") {
    expect_refused(list(anchor_page("file:///etc/passwd#sha256=00")), "file:///etc/passwd");
  }
  SECTION("a file:// href to a local wheel") {
    expect_refused(list(anchor_page("file:///tmp/demo-1.0-py3-none-any.whl")),
                   "file:///tmp/demo-1.0-py3-none-any.whl");
  }
  SECTION("a <base href> of file:// with a relative link") {
    expect_refused(list(anchor_page("demo-1.0-py3-none-any.whl", "file:///home/user/")),
                   "file:///home/user/demo-1.0-py3-none-any.whl");
  }
  SECTION("a PEP 691 url of file://") {
    expect_refused(list(json_page("file:///root/demo-1.0-py3-none-any.whl"),
                        "application/vnd.pypi.simple.v1+json"),
                   "file:///root/demo-1.0-py3-none-any.whl");
  }
  for (const char* other : {"ftp://mirror.example/demo-1.0-py3-none-any.whl",
                            "javascript:alert(1)", "data:application/zip;base64,UEsFBg==",
                            "gopher://x/demo-1.0-py3-none-any.whl"}) {
    SECTION(std::string("another scheme: ") + other) {
      auto listed = list(anchor_page(other));
      REQUIRE_FALSE(listed.has_value());
      CHECK(listed.error().code == ErrorCode::kInvalidInput);
      CHECK(listed.error().message.find("may only link to http(s)") != std::string::npos);
    }
  }
}

TEST_CASE("remote links: http and https links, relative or absolute, are kept",
          "[index][hostile]") {
  for (const std::string& href :
       {std::string("../../files/demo-1.0-py3-none-any.whl"),
        std::string("https://files.example/demo-1.0-py3-none-any.whl"),
        std::string("http://mirror.example/demo-1.0-py3-none-any.whl")}) {
    INFO(href);
    auto listed = list(anchor_page(href));
    REQUIRE(listed.has_value());
    REQUIRE(listed->size() == 1);
    CHECK(listed->front().url.rfind("http", 0) == 0);
  }
}
