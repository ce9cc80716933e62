#include <catch2/catch.hpp>

#include "src/index/url.h"

using namespace wv::index;

TEST_CASE("url: RFC 3986 §5.4.1 normal examples resolve exactly", "[index][url]") {
  const std::string base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"g:h", "g:h"},           {"g", "http://a/b/c/g"},       {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"}, {"/g", "http://a/g"},          {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"}, {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"}, {";x", "http://a/b/c/;x"},   {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},    {"./", "http://a/b/c/"},       {"..", "http://a/b/"},
      {"../", "http://a/b/"},    {"../g", "http://a/b/g"},      {"../..", "http://a/"},
      {"../../g", "http://a/g"}, {"../../../g", "http://a/g"},  {"/./g", "http://a/g"},
      {"g.", "http://a/b/c/g."}, {"g/../h", "http://a/b/c/h"},  {"g;x=1/../y", "http://a/b/c/y"},
  };
  for (const auto& [reference, expected] : cases) {
    INFO(reference);
    CHECK(resolve_url(base, reference) == expected);
  }
}

TEST_CASE("url: simple-index hrefs resolve against the project page", "[index][url]") {
  CHECK(resolve_url("https://pypi.org/simple/torch/", "../../packages/ab/torch-2.9.0.whl#sha256=00") ==
        "https://pypi.org/packages/ab/torch-2.9.0.whl#sha256=00");
  CHECK(resolve_url("https://x.org/simple/torch/", "/whl/torch.whl") == "https://x.org/whl/torch.whl");
  CHECK(resolve_url("file:///srv/simple/torch/index.html", "torch-1.0-py3-none-any.whl") ==
        "file:///srv/simple/torch/torch-1.0-py3-none-any.whl");
  // Local paths: relative to the page's folder, percent-decoded, `..` kept when it cannot cancel.
  CHECK(resolve_url("idx/simple/a/index.html", "a-1.0.whl#sha256=ff") == "idx/simple/a/a-1.0.whl");
  CHECK(resolve_url("idx/simple/a/index.html", "../../files/a%2B1.whl") == "idx/files/a+1.whl");
  CHECK(resolve_url("../idx/a/index.html", "../../x.whl") == "../x.whl");
  CHECK(resolve_url("/srv/a/index.html", "/abs/x.whl") == "/abs/x.whl");
  CHECK(resolve_url("/srv/a/index.html", "https://cdn/x.whl") == "https://cdn/x.whl");
}

TEST_CASE("url: file URLs convert to paths and back", "[index][url]") {
  CHECK(file_url_to_path("file:///tmp/a%20b/c.whl").value() == "/tmp/a b/c.whl");
  CHECK(file_url_to_path("file://localhost/tmp/x").value() == "/tmp/x");
  CHECK(file_url_to_path("file:/tmp/x").value() == "/tmp/x");
  CHECK_FALSE(file_url_to_path("file://remote.host/tmp/x").has_value());
  CHECK_FALSE(file_url_to_path("https://x/y").has_value());
  CHECK(path_to_file_url("/tmp/a b#c") == "file:///tmp/a%20b%23c");
  CHECK(file_url_to_path(path_to_file_url("/tmp/a b#c%")).value() == "/tmp/a b#c%");
}

TEST_CASE("url: hash pairs, fragments and file names", "[index][url]") {
  auto hash = parse_hash_pair("SHA256=ABCdef01");
  REQUIRE(hash);
  CHECK(hash->first == "sha256");
  CHECK(hash->second == "abcdef01");
  CHECK_FALSE(parse_hash_pair("sha256").has_value());
  CHECK_FALSE(parse_hash_pair("=abc").has_value());
  CHECK_FALSE(parse_hash_pair("sha256=").has_value());
  CHECK_FALSE(parse_hash_pair("sha256=xyz").has_value());
  CHECK(url_fragment("a.whl#sha256=1") == "sha256=1");
  CHECK(strip_fragment("a.whl#sha256=1") == "a.whl");
  CHECK(url_filename("https://h/p/torch-2.0%2Bcpu.whl?x=1#y") == "torch-2.0+cpu.whl");
  CHECK(percent_decode("%zz%4") == "%zz%4");
  CHECK(percent_decode("a%2fb%2") == "a/b%2");
  CHECK(has_url_scheme("https://x"));
  CHECK_FALSE(has_url_scheme("1a:/x"));
  CHECK_FALSE(has_url_scheme("relative/path:x"));
}
