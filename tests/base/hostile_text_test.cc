// Hostile input: TOML nesting bounded before the parser (class 6) and credentials kept out
// of what is stored and printed (class 8).
#include <catch2/catch.hpp>

#include <string>

#include "src/base/credentials.h"
#include "src/base/limits.h"
#include "src/base/toml_guard.h"

TEST_CASE("toml guard: the nesting depth of real shapes", "[base][hostile]") {
  CHECK(wv::toml_nesting_depth("a = 1\n") == 1);
  CHECK(wv::toml_nesting_depth("[tool.wvlock]\npython = \"3.12\"\n") == 3);
  CHECK(wv::toml_nesting_depth("[[tool.wvlock.target]]\nnvidia = { cuda-driver = \"12.8\" }\n") == 5);
  CHECK(wv::toml_nesting_depth("a.b.c = 1\n") == 3);
  CHECK(wv::toml_nesting_depth("x = [[[1]]]\n") == 3);
  // An empty inline table closes (it once stayed open, so 64 of them made a file "too deep").
  std::string empties;
  for (int i = 0; i < 100; ++i) empties += "e" + std::to_string(i) + " = {}\n";
  CHECK(wv::toml_nesting_depth(empties + "[t]\nc = 1\n") == 2);
  CHECK(wv::toml_nesting_depth("t = { a = 1, }\n[u.v]\nw = 1\n") == 3);
  // Dots in values, strings and comments are not nesting.
  CHECK(wv::toml_nesting_depth("v = [1.5, 2.5, 3.5, 4.5, 5.5]\n") == 1);
  CHECK(wv::toml_nesting_depth("s = \"a.b.c.d.e.f\" # x.y.z.w\n") == 1);
  CHECK(wv::toml_nesting_depth("s = '''\n[a.b.c.d]\n'''\n") == 1);
}

TEST_CASE("toml guard: hostile depth is refused by the limit, whatever the shape",
          "[base][hostile]") {
  const std::uint64_t limit = wv::limit_value(wv::Limit::kTomlDepth);
  std::string dotted, header = "[", inline_tables = "x = ", arrays = "x = ";
  for (int i = 0; i < 100000; ++i) dotted += i ? ".a" : "a";
  dotted += " = 1\n";
  for (int i = 0; i < 100000; ++i) header += i ? ".a" : "a";
  header += "]\n";
  for (int i = 0; i < 100000; ++i) inline_tables += "{ a = ";
  for (int i = 0; i < 100000; ++i) arrays += "[";
  for (const std::string* text : {&dotted, &header, &inline_tables, &arrays}) {
    auto checked = wv::check_toml_nesting(*text, limit, "the test file");
    REQUIRE_FALSE(checked.has_value());
    CHECK(checked.error().code == wv::ErrorCode::kLimit);
    CHECK(checked.error().message.find("toml-depth") != std::string::npos);
  }
  CHECK(wv::check_toml_nesting("a.b.c = 1\n", limit, "x").has_value());
}

TEST_CASE("credentials: masked in messages, stripped from what is stored", "[base][hostile]") {
  CHECK(wv::redact_credentials("fetching `https://alice:s3cret@index.example/simple/torch/`: 401") ==
        "fetching `https://****@index.example/simple/torch/`: 401");
  CHECK(wv::redact_credentials("http://token@h/x and https://u:p@h2:8080?q") ==
        "http://****@h/x and https://****@h2:8080?q");
  CHECK(wv::redact_credentials("no url here, user@example.org") == "no url here, user@example.org");
  CHECK(wv::redact_credentials("https://index.example/simple/a@b") ==
        "https://index.example/simple/a@b");  // an @ in the path is not user-info
  CHECK(wv::strip_credentials("https://alice:s3cret@index.example/simple") ==
        "https://index.example/simple");
  CHECK(wv::strip_credentials("https://user:p%40ss@h/x#sha256=1") == "https://h/x#sha256=1");
  CHECK(wv::strip_credentials("../generated/simple") == "../generated/simple");
}
