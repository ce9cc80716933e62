// The one URL module (base/url.h): every layer's question about a URL has its answer here.
#include "src/base/url.h"

#include <catch2/catch.hpp>
#include <random>

#include "src/base/credentials.h"

namespace wv {

TEST_CASE("url: what a text is", "[base][url]") {
  CHECK(is_url("https://pypi.org/simple/"));
  CHECK(is_url("file:///srv/wheels"));
  CHECK(is_url("git+ssh://git@host/repo.git"));
  CHECK_FALSE(is_url("file:/srv/wheels"));  // a scheme but no authority: read as a path
  CHECK_FALSE(is_url("../wheels/a-1.0.whl"));
  CHECK_FALSE(is_url("/abs/dir://x"));  // `://` after a path is no scheme
  CHECK_FALSE(is_url("1a://x"));
  CHECK(is_http_url("HTTPS://x/"));
  CHECK(is_http_url("http://x"));
  CHECK_FALSE(is_http_url("file:///x"));
  CHECK(is_file_url("FILE:///x"));
  CHECK(is_file_url("file:/x"));
  CHECK_FALSE(is_file_url("https://x"));
  CHECK(has_url_scheme("https://x"));
  CHECK_FALSE(has_url_scheme("1a:/x"));
  CHECK_FALSE(has_url_scheme("relative/path:x"));
}

TEST_CASE("url: split_url finds scheme, user info, host, port and path", "[base][url]") {
  auto parts = split_url("HTTPS://user:pw@Files.Example.org:8443/simple/torch/?x=1#frag");
  REQUIRE(parts);
  CHECK(parts->scheme == "https");
  CHECK(parts->userinfo == "user:pw");
  CHECK(parts->host == "files.example.org");
  CHECK(parts->port == 8443);
  CHECK(parts->path == "/simple/torch/?x=1");
  CHECK(effective_port(*parts) == 8443);

  auto plain = split_url("http://example.org");
  REQUIRE(plain);
  CHECK(plain->host == "example.org");
  CHECK(plain->path.empty());
  CHECK_FALSE(plain->port);
  CHECK(effective_port(*plain) == 80);

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

// A link's path is decoded exactly once, so `%2B` in a PyTorch-shaped index's href names the
// file with `+`, and `%252B` the one with `%2B`.
TEST_CASE("url: file URLs map to local paths, decoded once", "[base][url]") {
  CHECK(*file_url_to_path("file:///idx/torch-2.9.0%2Bcpu-cp311-none-any.whl") ==
        "/idx/torch-2.9.0+cpu-cp311-none-any.whl");
  CHECK(*file_url_to_path("file:///idx/a%252Bb.whl") == "/idx/a%2Bb.whl");
  CHECK(*file_url_to_path("FILE://localhost/a%20b/c#sha256=00") == "/a b/c");
  CHECK(*file_url_to_path("file:/a/b?x=1") == "/a/b");
  CHECK(*file_url_to_path("file:/a/b#x") == "/a/b");
  CHECK(*file_url_to_path("file:///tmp/a%20b.whl") == "/tmp/a b.whl");
  CHECK(*file_url_to_path("file://localhost/tmp/x") == "/tmp/x");
  CHECK(*file_url_to_path("file:/tmp/x") == "/tmp/x");
  CHECK(file_url_to_path("file://server/share/x").error().code == ErrorCode::kUnsupported);
  CHECK(file_url_to_path("file://remote.host/tmp/x").error().code == ErrorCode::kUnsupported);
  // A malformed escape is refused, not kept: the stricter of the two old contracts.
  CHECK_FALSE(file_url_to_path("file:///a/%zz"));
  CHECK_FALSE(file_url_to_path("file:///tmp/%00"));
  CHECK_FALSE(file_url_to_path("file:///a%00b"));
  CHECK_FALSE(file_url_to_path("file:relative/a"));
  CHECK_FALSE(file_url_to_path("https://host/a%2Bb"));
  CHECK_FALSE(file_url_to_path("http://example.org/x"));
  CHECK(path_to_file_url("/tmp/a b#c") == "file:///tmp/a%20b%23c");
  CHECK(*file_url_to_path(path_to_file_url("/tmp/a b#c%")) == "/tmp/a b#c%");
}

TEST_CASE("url: percent coding round-trips and refuses malformed escapes", "[base][url]") {
  CHECK(percent_decode(percent_encode("/a b+c%d", "/")) == std::optional<std::string>("/a b+c%d"));
  CHECK(percent_encode("a b/c+d", "/") == "a%20b/c%2Bd");
  CHECK(percent_encode_path("/x/a+b@c d") == "/x/a+b@c%20d");
  CHECK(percent_decode("a%2fb") == std::optional<std::string>("a/b"));
  CHECK(percent_decode("a%2Fb") == std::optional<std::string>("a/b"));
  CHECK_FALSE(percent_decode("%zz%4"));
  CHECK_FALSE(percent_decode("a%2fb%2"));
  CHECK_FALSE(percent_decode("%"));
  CHECK_FALSE(percent_decode("a%00"));
}

TEST_CASE("url: RFC 3986 §5.4.1 normal examples resolve exactly", "[base][url]") {
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

TEST_CASE("url: simple-index hrefs resolve against the project page", "[base][url]") {
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
  // A page's malformed escape is kept as written: the href still names a file.
  CHECK(resolve_url("/srv/a/index.html", "b%zz.whl") == "/srv/a/b%zz.whl");
}

TEST_CASE("url: hash pairs, fragments and file names", "[base][url]") {
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
  CHECK(with_trailing_slash("https://x/simple") == "https://x/simple/");
  CHECK(with_trailing_slash("https://x/simple/") == "https://x/simple/");
}

TEST_CASE("url: url_filename takes the decoded last segment", "[base][url]") {
  CHECK(url_filename("https://h/p/torch-2.0%2Bcpu.whl?x=1#y") == "torch-2.0+cpu.whl");
  CHECK(url_filename("https://h/p/a/torch-2.9.0-cp312-cp312-win_amd64.whl#sha256=ab") ==
        "torch-2.9.0-cp312-cp312-win_amd64.whl");
  CHECK(url_filename("../x/pytorch_triton-3.0.0%2Bcc98-cp39-cp39-linux_x86_64.whl?a=b") ==
        "pytorch_triton-3.0.0+cc98-cp39-cp39-linux_x86_64.whl");
  CHECK(url_filename("torch-2.9.0-variants.json") == "torch-2.9.0-variants.json");
  CHECK(url_filename("a%2") == "a%2");
  CHECK(url_filename("a%zz%") == "a%zz%");
  CHECK(url_filename("dir/") == "");
  CHECK(url_filename("") == "");
}

TEST_CASE("url: user-info is masked whole, by the one credential rule", "[base][url]") {
  // A user name alone can be a token, so it goes too: the rule of redact_credentials.
  CHECK(redact_url("https://alice:s3cret@host/simple/") == "https://****@host/simple/");
  CHECK(redact_url("https://token@host/x") == "https://****@host/x");
  CHECK(redact_url("https://alice:it's@host/x") == "https://****@host/x");
  for (const char* url : {"https://alice:it's@host/x", "http://u:p@[::1]:8080/", "https://host/"}) {
    CHECK(redact_url(url) == redact_credentials(url));
  }
  CHECK(redact_url("https://host/a@b") == "https://host/a@b");
  CHECK(redact_url("not a url") == "not a url");
}

TEST_CASE("url: arbitrary bytes never crash the URL functions", "[base][url][fuzz]") {
  std::mt19937 random(17);
  const std::string alphabet = "ab:/@[]%?#.0123456789fileFHTPhtp \x01\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    std::size_t length = random() % 24;
    for (std::size_t i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    (void)split_url(text);
    (void)file_url_to_path(text);
    (void)percent_decode(text);
    (void)resolve_url("https://h/a/", text);
    (void)url_filename(text);
    (void)is_url(text);
    std::string redacted = redact_url(text);
    CHECK(redact_url(redacted) == redacted);
  }
}

}  // namespace wv
