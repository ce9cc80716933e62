#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "src/pkg/requirement.h"

namespace {

using wv::pkg::Requirement;

Requirement parse(std::string_view text) {
  wv::Result<Requirement> requirement = wv::pkg::parse_requirement(text);
  INFO(text);
  if (!requirement) INFO(requirement.error().to_string());
  REQUIRE(requirement.has_value());
  return *requirement;
}

std::string normal(std::string_view text) { return parse(text).to_string(); }

}  // namespace

TEST_CASE("pep508: requirement fields", "[pkg][pep508]") {
  const Requirement r = parse("Torch_Vision [test, Cuda,test] >= 2.8 , <3 ; sys_platform == 'linux'");
  CHECK(r.name == "Torch_Vision");
  CHECK(r.normalized_name() == "torch-vision");
  CHECK(r.extras == std::vector<std::string>{"Cuda", "test"});  // sorted, duplicates dropped
  CHECK(r.specifier.to_string() == "<3,>=2.8");
  CHECK_FALSE(r.url.has_value());
  CHECK(r.marker.to_string() == "sys_platform == \"linux\"");
  CHECK(r.to_string() == "Torch_Vision[Cuda,test]<3,>=2.8; sys_platform == \"linux\"");

  const Requirement plain = parse("numpy");
  CHECK(plain.extras.empty());
  CHECK(plain.specifier.empty());
  CHECK(plain.marker.is_empty());
  CHECK(plain.to_string() == "numpy");
}

TEST_CASE("pep508: requirement normal form", "[pkg][pep508]") {
  CHECK(normal("torch (>=2.8)") == "torch>=2.8");
  CHECK(normal("torch( >= 2.8 , < 3 )") == "torch<3,>=2.8");
  CHECK(normal("torch==2.*") == "torch==2.*");
  CHECK(normal("torch ===foobar") == "torch===foobar");
  CHECK(normal("torch>=1.0,") == "torch>=1.0");  // a trailing comma is allowed
  CHECK(normal("torch[]") == "torch");
  CHECK_FALSE(wv::pkg::parse_requirement("torch\n"));  // the end is the end (packaging 26)
  CHECK_FALSE(wv::pkg::parse_marker("os_name == 'a'\n"));
  CHECK(normal("torch;extra=='Dev_Extra'") == "torch; extra == \"dev-extra\"");
  CHECK(normal("torch ; python_version<'3.11' and extra == 'Cuda'") ==
        "torch; python_version < \"3.11\" and extra == \"cuda\"");
  // URL requirements: a space each side of `@`, a space before `;`.
  CHECK(normal("pkg @ https://example.com/pkg-1.0-py3-none-any.whl") ==
        "pkg @ https://example.com/pkg-1.0-py3-none-any.whl");
  CHECK(normal("pkg[x] @ file:///wheels/pkg.whl ; os_name == 'posix'") ==
        "pkg[x] @ file:///wheels/pkg.whl ; os_name == \"posix\"");
  CHECK(normal("pkg @ git+https://github.com/o/r.git@v1 ") == "pkg @ git+https://github.com/o/r.git@v1");
}

TEST_CASE("pep508: a requirement's URL is any run of non-blanks, as packaging 26 reads it",
          "[pkg][pep508]") {
  CHECK(parse("p @ file:///abs/path.whl").url == "file:///abs/path.whl");
  CHECK(parse("p @ file://localhost/abs/path.whl").url == "file://localhost/abs/path.whl");
  CHECK(parse("p @ https://x.org/a;b?c#d").url == "https://x.org/a;b?c#d");
  CHECK(parse("p @ http://[::1]:8080/x.whl").url.has_value());
  // packaging 23.0 refused these (urlsplit checks); 26 takes them as written, and what a URL
  // may point at is judged where it is used.
  CHECK(parse("p @ file:/abs/path.whl").url == "file:/abs/path.whl");
  CHECK(parse("p @ /local/path.whl").url == "/local/path.whl");
  CHECK(parse("p @ https:///nohost").url == "https:///nohost");
  CHECK(parse("p @ http://[::1/x").url == "http://[::1/x");
  CHECK(parse("p @ https://x.org/p.whl ; os_name == 'a'").marker.to_string() ==
        "os_name == \"a\"");
  // The URL runs to the next space: a `;` glued to it is part of the URL, not a marker.
  const Requirement glued = parse("p @ https://x.org/p.whl;os_name=='a'");
  CHECK(glued.url == "https://x.org/p.whl;os_name=='a'");
  CHECK(glued.marker.is_empty());
}

TEST_CASE("pep508: requirement parse errors point at the problem", "[pkg][pep508]") {
  struct Case {
    std::string_view text;
    std::size_t column;
    std::string_view phrase;
  };
  const Case cases[] = {
      {"", 0, "package name"},
      {"_bad", 0, "package name"},
      {"bad-", 3, "`;` after the name"},
      {"torch >=", 6, "`;` after the name"},
      {"torch[a b]", 8, "comma between extra names"},
      {"torch[a,]", 8, "extra name after `,`"},
      {"torch[a", 7, "expected `]`"},
      {"torch (>=1.0", 12, "expected `)`"},
      {"torch >3.3rc3+local", 6, "`;` after the version specifier"},
      {"torch @ ", 8, "URL after `@`"},
      {"torch; os_name == 'a' xyz", 22, "end of the dependency specifier"},
      {"torch; os_name ==", 17, "marker variable or a quoted string"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    wv::Result<Requirement> requirement = wv::pkg::parse_requirement(c.text);
    REQUIRE_FALSE(requirement.has_value());
    const wv::Error& error = requirement.error();
    CHECK(error.code == wv::ErrorCode::kParse);
    CHECK(error.message.find(c.phrase) != std::string::npos);
    REQUIRE(error.notes.size() == 2);
    CHECK(error.notes[1].find('^') - 4 == c.column);
  }
  // An invalid specifier clause that the token rule lets through is reported too.
  wv::Result<Requirement> bad = wv::pkg::parse_requirement("torch ~=1.0.*");
  CHECK_FALSE(bad.has_value());
}

TEST_CASE("pep508: requirement markers evaluate", "[pkg][pep508]") {
  wv::pkg::MarkerEnvironment env;
  env.sys_platform = "linux";
  env.python_version = "3.12";
  const Requirement r = parse("flash-attn>=2.7 ; sys_platform == 'linux' and python_version >= '3.10'");
  CHECK(*r.marker.evaluate(env));
  env.sys_platform = "darwin";
  CHECK_FALSE(*r.marker.evaluate(env));
  CHECK(*parse("x; extra == 'gpu'").marker.evaluate(env, "GPU"));
}

TEST_CASE("pep508: arbitrary bytes never crash the requirement parser", "[pkg][pep508]") {
  const std::string alphabet = "abcXYZ019_-.[],()@;:/ =<>!~*+'\"\t\nfile://https";
  std::uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const std::size_t length = next() % 48;
    for (std::size_t k = 0; k < length; ++k) {
      text.push_back(next() % 5 == 0 ? static_cast<char>(next() & 0xff)
                                     : alphabet[next() % alphabet.size()]);
    }
    wv::Result<Requirement> requirement = wv::pkg::parse_requirement(text);
    if (requirement) {
      ++valid;
      // The normal form is itself a valid requirement with the same normal form.
      const std::string printed = requirement->to_string();
      wv::Result<Requirement> again = wv::pkg::parse_requirement(printed);
      if (printed.find_first_of("\\\"'\n") == std::string::npos) {
        INFO(text);
        REQUIRE(again.has_value());
        CHECK(again->to_string() == printed);
      }
    }
  }
  CHECK(valid > 0);  // the alphabet does produce valid names, so the round trip is exercised
}

TEST_CASE("requirement: its name as a package name", "[pkg][requirement]") {
  for (const char* text : {"Foo_Bar>=1", "foo_ >=1", "foo. ; python_version > '3'", "a_", "a-",
                           "a.b-c_d[x]", "foo_ @ https://example.org/foo.whl", "x__ (>=1)"}) {
    INFO(text);
    auto requirement = wv::pkg::parse_requirement(text);
    if (!requirement) continue;  // refused: nothing to name
    // packaging's identifier may end in `_`, which no project name does: that one is an error.
    auto name = requirement->package_name();
    CHECK(name.has_value() == wv::pkg::is_valid_name(requirement->name));
    if (name) CHECK(name->str() == wv::pkg::normalize_name(requirement->name));
  }
  CHECK_FALSE(wv::pkg::parse_requirement("foo_ >=1")->package_name());
  CHECK(*wv::pkg::parse_requirement("Foo_Bar>=1")->package_name() ==
        *wv::pkg::parse_package_name("foo-bar"));
}
