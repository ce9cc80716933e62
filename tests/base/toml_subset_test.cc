// The subset TOML parser (src/base/toml_subset.h): what it reads, and that it declines rather
// than guesses. tests/lock/toml_trees_test.cc compares its trees with the full parser's.
#include <catch2/catch.hpp>

#include <string>

#include "src/base/toml_subset.h"

namespace {

const wv::TomlNode& at(const wv::TomlNode& node, std::initializer_list<std::string_view> keys) {
  const wv::TomlNode* found = node.get_path(keys);
  REQUIRE(found != nullptr);
  return *found;
}

bool declines(std::string_view text) { return !wv::parse_toml_subset(text).has_value(); }

}  // namespace

TEST_CASE("toml subset: values, keys and lines", "[base][toml]") {
  const std::string text =
      "# a comment\n"
      "s = \"a \\\"q\\\" \\\\ \\t \\u00e9\"  # trailing\n"
      "lit = 'C:\\dir'\n"
      "n = -42\n"
      "zero = 0\n"
      "yes = true\n"
      "when = 2025-01-25T11:30:10.164985Z\n"
      "there = 1979-05-27T00:32:00-07:00\n"
      "\"quoted key\" = \"v\"\n"
      "list = [\n"
      "  \"one\", # first\n"
      "  { name = \"x\", hashes = { sha256 = \"ab\" } },\n"
      "]\n";
  auto tree = wv::parse_toml_subset(text);
  REQUIRE(tree);
  const wv::TomlNode& root = tree->root();
  CHECK(at(root, {"s"}).text == "a \"q\" \\ \t \xc3\xa9");
  CHECK(at(root, {"s"}).line == 2);
  CHECK(at(root, {"lit"}).text == "C:\\dir");
  CHECK(at(root, {"n"}).integer == -42);
  CHECK(at(root, {"zero"}).is_integer());
  CHECK(at(root, {"yes"}).boolean);
  CHECK(at(root, {"when"}).kind == wv::TomlKind::kOffsetDateTime);
  CHECK(at(root, {"when"}).text == "2025-01-25T11:30:10.164985000+00:00");
  CHECK(at(root, {"there"}).text == "1979-05-27T00:32:00.000000000-07:00");
  CHECK(at(root, {"quoted key"}).text == "v");
  const wv::TomlNode& list = at(root, {"list"});
  REQUIRE(list.is_array());
  REQUIRE(list.items.size() == 2);
  CHECK(list.line == 10);
  CHECK(list.items[0]->text == "one");
  CHECK(list.items[1]->line == 12);
  CHECK(at(*list.items[1], {"hashes", "sha256"}).text == "ab");
}

TEST_CASE("toml subset: sections and arrays of tables", "[base][toml]") {
  const std::string text =
      "[a.b.c]\n"
      "x = 1\n"
      "[a]\n"           // defines the table [a.b.c] made on its way
      "y = 2\n"
      "[[p]]\n"
      "name = \"first\"\n"
      "[p.tool.w]\n"   // a sub-table of the last [[p]]
      "k = 1\n"
      "[[p]]\n"
      "name = \"second\"\r\n";
  auto tree = wv::parse_toml_subset(text);
  REQUIRE(tree);
  const wv::TomlNode& root = tree->root();
  CHECK(at(root, {"a", "b", "c", "x"}).integer == 1);
  CHECK(at(root, {"a", "y"}).integer == 2);
  CHECK(at(root, {"a"}).line == 3);          // its header's line once defined
  CHECK(at(root, {"a", "b"}).line == 1);     // made by [a.b.c]
  const wv::TomlNode& packages = at(root, {"p"});
  REQUIRE(packages.items.size() == 2);
  CHECK(packages.line == 5);
  CHECK(packages.items[1]->line == 9);
  CHECK(at(*packages.items[0], {"tool", "w", "k"}).integer == 1);
  CHECK(packages.items[1]->get("tool") == nullptr);
  CHECK(at(*packages.items[1], {"name"}).text == "second");
  // Members are sorted for lookup whatever the document's order.
  REQUIRE(root.members.size() == 2);
  CHECK(root.members[0].first == "a");
}

TEST_CASE("toml subset: declines what it does not read", "[base][toml]") {
  // Outside the subset: the full parser reads these.
  CHECK(declines("a.b = 1\n"));
  CHECK(declines("s = \"\"\"multi\"\"\"\n"));
  CHECK(declines("s = '''multi'''\n"));
  CHECK(declines("f = 1.5\n"));
  CHECK(declines("f = 1e5\n"));
  CHECK(declines("n = +1\n"));
  CHECK(declines("n = 0x1f\n"));
  CHECK(declines("n = 1_000\n"));
  CHECK(declines("n = 1234567890123456789\n"));
  CHECK(declines("d = 1979-05-27\n"));
  CHECK(declines("d = 1979-05-27T07:32:00\n"));
  CHECK(declines("d = 1979-05-27 07:32:00Z\n"));
  CHECK(declines("s = \"caf\xc3\xa9\"\n"));
  CHECK(declines("[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q]\n"));
  CHECK(declines("x = " + std::string(17, '[') + std::string(17, ']') + "\n"));
  std::string wide = "[t]\n";
  for (int i = 0; i < 257; ++i) wide += "k" + std::to_string(i) + " = 1\n";
  CHECK(declines(wide));
  // Errors: the full parser reports them.
  CHECK(declines("a = 1\na = 2\n"));
  CHECK(declines("a = 1\n\"a\" = 2\n"));
  CHECK(declines("[t]\n[t]\n"));
  CHECK(declines("[[t]]\n[t]\n"));
  CHECK(declines("[t]\n[[t]]\n"));
  CHECK(declines("t = {}\n[t.u]\n"));
  CHECK(declines("t = []\n[[t]]\n"));
  CHECK(declines("t = { a = 1, }\n"));
  CHECK(declines("t = { a = 1,\n b = 2 }\n"));
  CHECK(declines("s = \"\\q\"\n"));
  CHECK(declines("s = \"\\ud800\"\n"));
  CHECK(declines("s = \"tab\x01\"\n"));
  CHECK(declines("s = \"open\n"));
  CHECK(declines("a = 1\rb = 2\n"));
  CHECK(declines("\"\" = 1\n"));
  CHECK(declines("n = 01\n"));
  CHECK(declines("n = 1 2\n"));
  CHECK(declines("d = 2023-02-29T00:00:00Z\n"));
  CHECK(declines("d = 2023-01-01T24:00:00Z\n"));
  CHECK(declines("d = 2023-01-01T00:00:00.1234567891Z\n"));
  CHECK(declines("b = truex\n"));
  CHECK(declines("a = [1,,2]\n"));
  CHECK(declines("# bad \x7f comment\n"));
  CHECK(declines("a =\n"));
  // And what it keeps: a leap day, an empty string, a comment at the end without a newline.
  CHECK_FALSE(declines("d = 2024-02-29T00:00:00Z\ns = \"\"\n# end"));
}
