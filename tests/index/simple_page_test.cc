#include <catch2/catch.hpp>

#include <random>

#include "src/index/simple_page.h"

using namespace wv::index;
using wv::pkg::CoreMetadataAvailability;

TEST_CASE("html: a PEP 503 page with every attribute", "[index][html]") {
  const char* html = R"(<!DOCTYPE html>
<html><head><meta name="pypi:repository-version" content="1.1"><title>Links</title>
<style>a < b { color: red }</style><script>if (a<b) document.write("<a href='x.whl'>x.whl</a>")</script>
</head><body>
<!-- <a href="commented-0.1-py3-none-any.whl">commented</a> -->
<A HREF="../../packages/foo-1.0-py3-none-any.whl#SHA256=ABCDEF" data-requires-python="&gt;=3.8,&lt;4" data-core-metadata="sha256=0123">foo-1.0-py3-none-any.whl</A><br/>
<a href='foo-1.1.tar.gz#md5=aa' data-yanked="broken &amp; bad" data-dist-info-metadata=true >foo-1.1.tar.gz</a>
<a href=foo-1.2-py3-none-any.whl data-yanked data-core-metadata="false">  foo-1.2-py3-none-any.whl </a>
<a href="foo-1.3-py3-none-any.whl" data-yanked="">foo-<b>1.3</b>-py3-none-any.whl</a>
<a href="foo-1.4-py3-none-any.whl" data-requires-python="&#62;=3.9&#x2C;!=3.9.1"></a>
<a>no href</a>
</body></html>)";
  auto page = parse_html_project_page(html, "https://example.org/simple/foo/");
  REQUIRE(page);
  CHECK(page->api_version == "1.1");
  CHECK(page->skipped == 1);
  REQUIRE(page->files.size() == 5);

  const IndexFile& first = page->files[0];
  CHECK(first.filename == "foo-1.0-py3-none-any.whl");
  CHECK(first.url == "https://example.org/packages/foo-1.0-py3-none-any.whl");
  CHECK(first.hashes.at("sha256") == "abcdef");
  CHECK(first.requires_python == ">=3.8,<4");
  CHECK_FALSE(first.yanked);
  CHECK(first.core_metadata == CoreMetadataAvailability::kAvailable);
  CHECK(first.core_metadata_hashes.at("sha256") == "0123");

  const IndexFile& second = page->files[1];
  CHECK(second.url == "https://example.org/simple/foo/foo-1.1.tar.gz");
  CHECK(second.hashes.at("md5") == "aa");
  CHECK(second.yanked);
  CHECK(second.yanked_reason == "broken & bad");
  CHECK(second.core_metadata == CoreMetadataAvailability::kAvailable);
  CHECK(second.core_metadata_hashes.empty());

  CHECK(page->files[2].filename == "foo-1.2-py3-none-any.whl");
  CHECK(page->files[2].yanked);
  CHECK(page->files[2].yanked_reason.empty());
  CHECK(page->files[2].core_metadata == CoreMetadataAvailability::kAbsent);
  CHECK(page->files[3].filename == "foo-1.3-py3-none-any.whl");  // nested tags dropped
  CHECK(page->files[3].core_metadata == CoreMetadataAvailability::kUnknown);
  // Empty anchor text: the name comes from the URL.
  CHECK(page->files[4].filename == "foo-1.4-py3-none-any.whl");
  CHECK(page->files[4].requires_python == ">=3.9,!=3.9.1");
}

TEST_CASE("html: only the anchor's own closing tag ends it", "[index][html]") {
  auto page = parse_html_project_page(
      R"(<a href="a-1.0.tar.gz">a-<abbr>1.0</abbr>.tar.gz</a ><script>x</scripts></script>)"
      R"(<a href="a-2.0.tar.gz">a-2.0.tar.gz</A>)",
      "https://h/simple/a/");
  REQUIRE(page);
  REQUIRE(page->files.size() == 2);
  CHECK(page->files[0].filename == "a-1.0.tar.gz");
  CHECK(page->files[1].filename == "a-2.0.tar.gz");
}

TEST_CASE("html: <base href> changes how hrefs resolve", "[index][html]") {
  auto page = parse_html_project_page(
      R"(<base href="https://cdn.example/files/"><a href="a-1.0.tar.gz">a-1.0.tar.gz</a>)",
      "https://example.org/simple/a/");
  REQUIRE(page);
  REQUIRE(page->files.size() == 1);
  CHECK(page->files[0].url == "https://cdn.example/files/a-1.0.tar.gz");
}

TEST_CASE("html: an api version of another major is refused", "[index][html]") {
  auto page = parse_html_project_page(R"(<meta name="pypi:repository-version" content="2.0">)",
                                      "https://x/simple/a/");
  REQUIRE_FALSE(page);
  CHECK(page.error().code == wv::ErrorCode::kUnsupported);
  CHECK(page.error().message.find("`2.0`") != std::string::npos);
}

TEST_CASE("html: entity decoding", "[index][html]") {
  CHECK(decode_html_entities("&lt;&gt;&amp;&quot;&apos;") == "<>&\"'");
  CHECK(decode_html_entities("&#60;&#x3c;&#X3C;") == "<<<");
  CHECK(decode_html_entities("&#x1F600;") == "\xF0\x9F\x98\x80");
  CHECK(decode_html_entities("&bogus; & &#; &#xZZ; &amp") == "&bogus; & &#; &#xZZ; &amp");
  CHECK(decode_html_entities("&#0;") == "\xEF\xBF\xBD");
  CHECK(decode_html_entities("&#99999999999;") == "&#99999999999;");
}

TEST_CASE("html: garbage and truncated pages never crash", "[index][html]") {
  const std::string page = R"(<html><a href="x-1.0-py3-none-any.whl#sha256=ab" data-yanked='y' )"
                           R"(data-requires-python="&gt;=3">x-1.0-py3-none-any.whl</a><!-- c -->)"
                           R"(<script>s</script><base href=/q><meta name=a content=b></html>)";
  for (std::size_t cut = 0; cut <= page.size(); ++cut) {
    auto parsed = parse_html_project_page(std::string_view(page).substr(0, cut), "https://h/s/x/");
    CHECK(parsed);
  }
  std::mt19937 random(42);
  const std::string alphabet = "<>/=\"' a&#;!-xhrefbasemtcripyl\n";
  for (int round = 0; round < 2000; ++round) {
    std::string junk;
    int length = static_cast<int>(random() % 200);
    for (int i = 0; i < length; ++i) {
      junk.push_back(round % 2 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()]);
    }
    auto parsed = parse_html_project_page(junk, "https://h/s/x/");
    if (parsed) {
      for (const IndexFile& file : parsed->files) CHECK_FALSE(file.filename.empty());
    }
  }
}

TEST_CASE("json: a PEP 691 project page", "[index][json]") {
  const char* json = R"({
    "meta": {"api-version": "1.1", "_unknown": 1},
    "name": "foo",
    "files": [
      {"filename": "foo-1.0-py3-none-any.whl", "url": "../../f/foo-1.0-py3-none-any.whl",
       "hashes": {"SHA256": "ABCD", "blake2b": "ff"}, "requires-python": ">=3.8",
       "core-metadata": {"sha256": "12"}, "size": 1234, "yanked": false, "upload-time": "x"},
      {"filename": "foo-1.1.tar.gz", "url": "https://cdn/foo-1.1.tar.gz", "hashes": {},
       "yanked": "security issue", "dist-info-metadata": true,
       "upload-time": "2024-02-06T01:26:44.091450+01:00"},
      {"filename": "foo-1.2.tar.gz", "url": "foo-1.2.tar.gz", "hashes": {}, "yanked": true,
       "data-dist-info-metadata": false, "size": -1},
      {"filename": 3, "url": "x"},
      {"url": "y"},
      "junk"
    ],
    "versions": ["1.0", "1.1", "1.2", "2.0"]
  })";
  auto page = parse_json_project_page(json, "https://example.org/simple/foo/");
  REQUIRE(page);
  CHECK(page->api_version == "1.1");
  CHECK(page->name == "foo");
  CHECK(page->skipped == 3);
  REQUIRE(page->files.size() == 3);
  CHECK(page->files[0].url == "https://example.org/f/foo-1.0-py3-none-any.whl");
  CHECK(page->files[0].hashes.at("sha256") == "abcd");
  CHECK(page->files[0].hashes.at("blake2b") == "ff");
  CHECK(page->files[0].size.value() == 1234);
  CHECK(page->files[0].upload_time.empty());  // malformed: left out, the file still listed
  CHECK(page->files[1].upload_time == "2024-02-06T00:26:44.09145Z");  // PEP 700, in UTC
  CHECK(page->files[0].core_metadata == CoreMetadataAvailability::kAvailable);
  CHECK(page->files[0].core_metadata_hashes.at("sha256") == "12");
  CHECK(page->files[1].yanked);
  CHECK(page->files[1].yanked_reason == "security issue");
  CHECK(page->files[1].core_metadata == CoreMetadataAvailability::kAvailable);
  CHECK(page->files[2].yanked);
  CHECK(page->files[2].yanked_reason.empty());
  CHECK(page->files[2].core_metadata == CoreMetadataAvailability::kAbsent);
  CHECK_FALSE(page->files[2].size.has_value());
}

TEST_CASE("json: malformed pages are errors naming the page", "[index][json]") {
  for (const char* bad : {"", "{", "[]", R"({"files": 3})", R"({"meta": {"api-version": "2.0"}, "files": []})"}) {
    INFO(bad);
    auto page = parse_json_project_page(bad, "https://x/simple/a/");
    REQUIRE_FALSE(page);
    CHECK(page.error().message.find("`https://x/simple/a/`") != std::string::npos);
  }
  std::string deep(100000, '[');
  auto page = parse_json_project_page(deep, "https://x/simple/a/");
  REQUIRE_FALSE(page);
  CHECK(page.error().code == wv::ErrorCode::kLimit);
}

TEST_CASE("json: truncations of a valid page never crash", "[index][json]") {
  const std::string json =
      R"({"meta":{"api-version":"1.0"},"name":"a","files":[{"filename":"a-1.0.tar.gz",)"
      R"("url":"a-1.0.tar.gz","hashes":{"sha256":"00"},"yanked":"r","core-metadata":{"sha256":"1"}}]})";
  int parsed = 0;
  for (std::size_t cut = 0; cut <= json.size(); ++cut) {
    if (parse_json_project_page(std::string_view(json).substr(0, cut), "p")) ++parsed;
  }
  CHECK(parsed == 1);  // only the whole document
}
