// The lock reader's two TOML parsers give one tree (src/base/toml_tree.h): the subset parser's
// and the full parser's (toml++) trees compared on every lock the project ships and on the
// shapes another tool writes; read_lockfile() reads a lock the same through either.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lock/lockfile.h"
#include "lock/toml_full_tree.h"
#include "src/base/toml_subset.h"

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Both trees of `text`, which the subset parser must accept, as dumps.
void check_same_tree(const std::string& text, const std::string& what) {
  INFO(what);
  std::optional<wv::TomlTree> subset = wv::parse_toml_subset(text);
  REQUIRE(subset);
  wv::Result<wv::TomlTree> full = wv::lock::parse_toml_full(text, what);
  REQUIRE(full);
  CHECK(wv::toml_tree_dump(subset->root()) == wv::toml_tree_dump(full->root()));
}

const char* const kSmallLock =
    "lock-version = \"1.0\"\n"
    "created-by = \"wvlock\"\n"
    "\n"
    "[[packages]]\n"
    "name = \"idna\"\n"
    "version = \"3.10\"\n"
    "wheels = [\n"
    "  { name = \"idna-3.10-py3-none-any.whl\", url = \"https://files.example/idna-3.10-py3-none-any.whl\", "
    "upload-time = 2024-09-15T18:07:37.012345Z, size = 70, hashes = { sha256 = "
    "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" } },\n"
    "]\n";

}  // namespace

TEST_CASE("toml trees: the subset and full parsers agree on every shipped lock",
          "[lock][toml]") {
  const std::filesystem::path source = WV_SOURCE_DIR;
  int checked = 0;
  for (const char* relative : {"fixtures/example/pylock.toml", "fixtures/example-pytorch/pylock.toml",
                               "tests/cli/golden/example.pylock.toml"}) {
    check_same_tree(read_text(source / relative), relative);
    ++checked;
  }
  for (const auto& entry : std::filesystem::directory_iterator(source / "fuzz/seeds/lock_toml")) {
    const std::string text = read_text(entry.path());
    if (wv::parse_toml_subset(text)) {
      check_same_tree(text, entry.path().string());
      ++checked;
    }
  }
  CHECK(checked >= 6);
  check_same_tree(kSmallLock, "small lock");
}

TEST_CASE("toml trees: a lock outside the subset reads the same through toml++", "[lock][toml]") {
  const std::string plain = kSmallLock;
  REQUIRE(wv::parse_toml_subset(plain));
  // The same document as another tool might write it: dotted keys, a literal multi-line
  // comment-free string, and the date-time spelled with a space.
  std::string other = plain;
  other.replace(other.find("created-by = \"wvlock\""), 21, "created-by = '''wvlock'''");
  other.replace(other.find("upload-time = 2024-09-15T18:07:37.012345Z"), 41,
                "upload-time = 2024-09-15 18:07:37.012345Z");
  other += "[packages.tool]\nwvlock.index-name = \"pypi\"\n";
  std::string same = plain + "[packages.tool.wvlock]\nindex-name = \"pypi\"\n";
  REQUIRE_FALSE(wv::parse_toml_subset(other));
  REQUIRE(wv::parse_toml_subset(same));
  auto through_full = wv::lock::read_lockfile(other, "pylock.toml");
  auto through_subset = wv::lock::read_lockfile(same, "pylock.toml");
  REQUIRE(through_full);
  REQUIRE(through_subset);
  CHECK(wv::lock::write_lockfile(*through_full) == wv::lock::write_lockfile(*through_subset));
  CHECK(through_subset->packages.at(0).wheels.at(0).upload_time ==
        through_full->packages.at(0).wheels.at(0).upload_time);
  CHECK(through_subset->packages.at(0).index_name == "pypi");
}

TEST_CASE("toml trees: an error names the same line through either parser", "[lock][toml]") {
  // `size` must be an integer: line 8 either way.
  std::string bad = kSmallLock;
  bad.replace(bad.find("size = 70"), 9, "size = \"70\"");
  REQUIRE(wv::parse_toml_subset(bad));
  auto read = wv::lock::read_lockfile(bad, "pylock.toml");
  REQUIRE_FALSE(read);
  CHECK_THAT(read.error().message, Catch::Contains("pylock.toml:8:"));
  CHECK_THAT(read.error().message, Catch::Contains("non-negative integer"));
  std::string outside = bad + "x.y = 1\n";  // a dotted key: read by toml++
  REQUIRE_FALSE(wv::parse_toml_subset(outside));
  auto again = wv::lock::read_lockfile(outside, "pylock.toml");
  REQUIRE_FALSE(again);
  CHECK(again.error().message == read.error().message);
  // A syntax error is toml++'s, with its column.
  auto syntax = wv::lock::read_lockfile("lock-version = \"1.0\"\nx = [1,,2]\n", "pylock.toml");
  REQUIRE_FALSE(syntax);
  CHECK_THAT(syntax.error().message, Catch::StartsWith("pylock.toml:2:"));
}
