// The format-preserving pyproject.toml edits: exact text before and after, on ugly inputs.
#include <catch2/catch.hpp>

#include <string>

#include "src/pkg/pyproject_edit.h"
#include "src/pkg/toml_scan.h"

namespace {

using wv::pkg::DependencyList;

const DependencyList kProject{};
DependencyList extra(const char* name) { return {DependencyList::Kind::kOptional, name}; }
DependencyList group(const char* name) { return {DependencyList::Kind::kGroup, name}; }

std::string add(const std::string& text, const DependencyList& list, const char* requirement) {
  auto out = wv::pkg::add_dependency(text, "pyproject.toml", list, requirement);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  return *out;
}

std::string remove(const std::string& text, const DependencyList& list, const char* name,
                   std::size_t expected_count = 1) {
  auto out = wv::pkg::remove_dependency(text, "pyproject.toml", list, name);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  CHECK(out->removed == expected_count);
  return out->text;
}

}  // namespace

TEST_CASE("pyproject edit: one item per line keeps sorted order and indentation",
          "[pkg][pyproject_edit]") {
  const std::string before =
      "[project]\n"
      "name = \"demo\"  # the name\n"
      "dependencies = [\n"
      "  # core\n"
      "  \"anyio>=4\",   # async\n"
      "  'flask',\n"
      "  \"torchvision\",\n"
      "]\n"
      "\n"
      "[tool.other]\n"
      "x = 1\n";
  CHECK(add(before, kProject, "numpy>=2") ==
        "[project]\n"
        "name = \"demo\"  # the name\n"
        "dependencies = [\n"
        "  # core\n"
        "  \"anyio>=4\",   # async\n"
        "  'flask',\n"
        "  \"numpy>=2\",\n"
        "  \"torchvision\",\n"
        "]\n"
        "\n"
        "[tool.other]\n"
        "x = 1\n");
  // Before the first item: below the comment that opens the array.
  CHECK(add(before, kProject, "aiohttp") ==
        "[project]\n"
        "name = \"demo\"  # the name\n"
        "dependencies = [\n"
        "  # core\n"
        "  \"aiohttp\",\n"
        "  \"anyio>=4\",   # async\n"
        "  'flask',\n"
        "  \"torchvision\",\n"
        "]\n"
        "\n"
        "[tool.other]\n"
        "x = 1\n");
  // `torch` is not `torchvision`: a new item, sorted before it.
  const std::string with_torch = add(before, kProject, "torch>=2.8");
  CHECK(with_torch.find("  \"torch>=2.8\",\n  \"torchvision\",\n") != std::string::npos);
  // And removing it leaves torchvision alone: the file is back byte for byte.
  CHECK(remove(with_torch, kProject, "torch") == before);
}

TEST_CASE("pyproject edit: unsorted arrays get the item at the end, before closing comments",
          "[pkg][pyproject_edit]") {
  const std::string before =
      "[project]\n"
      "dependencies = [\n"
      "    \"zope.interface\",\n"
      "    \"attrs\",\n"
      "    # \"later\",\n"
      "]\n";
  CHECK(add(before, kProject, "Click") ==
        "[project]\n"
        "dependencies = [\n"
        "    \"zope.interface\",\n"
        "    \"attrs\",\n"
        "    # \"later\",\n"
        "    \"Click\",\n"
        "]\n");
}

TEST_CASE("pyproject edit: inline arrays stay inline, trailing commas as found",
          "[pkg][pyproject_edit]") {
  CHECK(add("[project]\ndependencies = [\"a\", \"c\"]\n", kProject, "b") ==
        "[project]\ndependencies = [\"a\", \"b\", \"c\"]\n");
  CHECK(add("[project]\ndependencies = [\"a\", \"c\"]\n", kProject, "d") ==
        "[project]\ndependencies = [\"a\", \"c\", \"d\"]\n");
  CHECK(add("[project]\ndependencies = [\"b\",]\n", kProject, "c") ==
        "[project]\ndependencies = [\"b\", \"c\",]\n");
  CHECK(add("[project]\ndependencies = [\"b\"]\n", kProject, "a") ==
        "[project]\ndependencies = [\"a\", \"b\"]\n");
  CHECK(remove("[project]\ndependencies = [\"a\", \"b\", \"c\"]\n", kProject, "b") ==
        "[project]\ndependencies = [\"a\", \"c\"]\n");
  CHECK(remove("[project]\ndependencies = [\"a\", \"b\"]\n", kProject, "b") ==
        "[project]\ndependencies = [\"a\"]\n");
  CHECK(remove("[project]\ndependencies = [\"a\"]\n", kProject, "A") ==
        "[project]\ndependencies = []\n");
}

TEST_CASE("pyproject edit: an empty array, and no dependencies key at all",
          "[pkg][pyproject_edit]") {
  CHECK(add("[project]\nname = \"x\"\ndependencies = []\n", kProject, "numpy") ==
        "[project]\nname = \"x\"\ndependencies = [\n    \"numpy\",\n]\n");
  CHECK(add("[project]\nname = \"x\"\n\n[tool.wvlock]\n", kProject, "numpy") ==
        "[project]\nname = \"x\"\ndependencies = [\n    \"numpy\",\n]\n\n[tool.wvlock]\n");
  CHECK(add("[project]\nname = \"x\"", kProject, "numpy") ==
        "[project]\nname = \"x\"\ndependencies = [\n    \"numpy\",\n]\n");
  CHECK(add("[project]\ndependencies = [\n  # nothing yet\n]\n", kProject, "numpy") ==
        "[project]\ndependencies = [\n  # nothing yet\n    \"numpy\",\n]\n");
  auto no_project = wv::pkg::add_dependency("[tool.x]\n", "pyproject.toml", kProject, "numpy");
  REQUIRE_FALSE(no_project);
  CHECK(no_project.error().message.find("no `[project]` table") != std::string::npos);
}

TEST_CASE("pyproject edit: a closing bracket and a comment marker inside strings",
          "[pkg][pyproject_edit]") {
  const std::string before =
      "[project]\n"
      "dependencies = [\n"
      "    \"weird ; extra == ']' # not a comment\",\n"
      "    'b[x]',\n"
      "]\n";
  CHECK(add(before, kProject, "c") ==
        "[project]\n"
        "dependencies = [\n"
        "    \"weird ; extra == ']' # not a comment\",\n"
        "    'b[x]',\n"
        "    \"c\",\n"
        "]\n");
  CHECK(remove(before, kProject, "weird") ==
        "[project]\n"
        "dependencies = [\n"
        "    'b[x]',\n"
        "]\n");
}

TEST_CASE("pyproject edit: a duplicate add replaces the item in place, in its quotes",
          "[pkg][pyproject_edit]") {
  const std::string before = "[project]\ndependencies = [\n  'Numpy>=1',  # pinned\n  \"zlib\",\n]\n";
  CHECK(add(before, kProject, "numpy>=2") ==
        "[project]\ndependencies = [\n  'numpy>=2',  # pinned\n  \"zlib\",\n]\n");
  // A bare name keeps what is written.
  CHECK(add(before, kProject, "numpy") == before);
}

TEST_CASE("pyproject edit: removal keeps comments and the no-trailing-comma style",
          "[pkg][pyproject_edit]") {
  CHECK(remove("[project]\ndependencies = [\n    \"a\",\n    \"b\", # about b\n    \"c\",\n]\n",
               kProject, "b") ==
        "[project]\ndependencies = [\n    \"a\",\n    # about b\n    \"c\",\n]\n");
  CHECK(remove("[project]\ndependencies = [\n    \"a\",\n    \"b\"\n]\n", kProject, "b") ==
        "[project]\ndependencies = [\n    \"a\"\n]\n");
  CHECK(add("[project]\ndependencies = [\n    \"a\",\n    \"b\"\n]\n", kProject, "c") ==
        "[project]\ndependencies = [\n    \"a\",\n    \"b\",\n    \"c\"\n]\n");
  // Every item of the package goes (two markers), and a name that is absent changes nothing.
  const std::string two = "[project]\ndependencies = [\n  \"x; os_name == 'nt'\",\n  \"x>=1; os_name != 'nt'\",\n  \"y\",\n]\n";
  CHECK(remove(two, kProject, "X", 2) == "[project]\ndependencies = [\n  \"y\",\n]\n");
  CHECK(remove(two, kProject, "z", 0) == two);
}

TEST_CASE("pyproject edit: optional dependencies as a table, inline and dotted",
          "[pkg][pyproject_edit]") {
  // Inline `{...}`: the new extra goes inside the braces; arrays there stay inline.
  const std::string inline_table =
      "[project]\nname = \"x\"\noptional-dependencies = { cuda = [\"flash-attn\"] }\n";
  CHECK(add(inline_table, extra("cuda"), "triton") ==
        "[project]\nname = \"x\"\noptional-dependencies = { cuda = [\"flash-attn\", \"triton\"] }\n");
  CHECK(add(inline_table, extra("jax"), "jax>=0.7") ==
        "[project]\nname = \"x\"\noptional-dependencies = { cuda = [\"flash-attn\"], jax = "
        "[\"jax>=0.7\"] }\n");
  CHECK(remove(inline_table, extra("cuda"), "flash_attn") ==
        "[project]\nname = \"x\"\noptional-dependencies = { cuda = [] }\n");
  // Dotted keys in [project].
  const std::string dotted = "[project]\nname = \"x\"\noptional-dependencies.cuda = [\"a\"]\n\n[tool.y]\n";
  CHECK(add(dotted, extra("serve"), "vllm") ==
        "[project]\nname = \"x\"\noptional-dependencies.cuda = [\"a\"]\n"
        "optional-dependencies.serve = [\n    \"vllm\",\n]\n\n[tool.y]\n");
  // No table yet: created after [project], before the next table.
  CHECK(add("[project]\nname = \"x\"\n\n[tool.y]\nz = 1\n", extra("serve"), "vllm") ==
        "[project]\nname = \"x\"\n\n[project.optional-dependencies]\nserve = [\n    \"vllm\",\n]\n"
        "\n[tool.y]\nz = 1\n");
  // The table exists: a new key at the end of its keys, the extra's spelling found as written.
  const std::string table =
      "[project]\n[project.optional-dependencies]\nSer_ve = ['a']\n# end\n\n[x]\n";
  CHECK(add(table, extra("ser-ve"), "b") ==
        "[project]\n[project.optional-dependencies]\nSer_ve = ['a', \"b\"]\n# end\n\n[x]\n");
  CHECK(add(table, extra("gpu"), "b") ==
        "[project]\n[project.optional-dependencies]\nSer_ve = ['a']\ngpu = [\n    \"b\",\n]\n"
        "# end\n\n[x]\n");
}

TEST_CASE("pyproject edit: dependency groups, include-group tables stay last",
          "[pkg][pyproject_edit]") {
  const std::string before =
      "[project]\nname = \"x\"\n\n[dependency-groups]\ndev = [\n  \"pytest\",\n  { include-group = "
      "\"lint\" },\n]\nlint = [\"ruff\"]\n";
  CHECK(add(before, group("dev"), "requests") ==
        "[project]\nname = \"x\"\n\n[dependency-groups]\ndev = [\n  \"pytest\",\n  \"requests\",\n"
        "  { include-group = \"lint\" },\n]\nlint = [\"ruff\"]\n");
  CHECK(add("[project]\nname = \"x\"\n", group("dev"), "pytest") ==
        "[project]\nname = \"x\"\n\n[dependency-groups]\ndev = [\n    \"pytest\",\n]\n");
  auto lists = wv::pkg::lists_naming(before, "pyproject.toml", "RUFF");
  REQUIRE(lists);
  REQUIRE(lists->size() == 1);
  CHECK((*lists)[0] == group("lint"));
  CHECK((*lists)[0].describe() == "dependency-groups.lint");
}

TEST_CASE("pyproject edit: CRLF line endings are kept", "[pkg][pyproject_edit]") {
  const std::string before = "[project]\r\ndependencies = [\r\n    \"a\",\r\n    \"c\", # c\r\n]\r\n";
  const std::string added = add(before, kProject, "b");
  CHECK(added == "[project]\r\ndependencies = [\r\n    \"a\",\r\n    \"b\",\r\n    \"c\", # c\r\n]\r\n");
  CHECK(remove(added, kProject, "b") == before);
  CHECK(add("[project]\r\nname = \"x\"\r\n", group("dev"), "p") ==
        "[project]\r\nname = \"x\"\r\n\r\n[dependency-groups]\r\ndev = [\r\n    \"p\",\r\n]\r\n");
}

TEST_CASE("pyproject edit: sources entries are set, replaced and removed",
          "[pkg][pyproject_edit]") {
  const std::string base = "[project]\nname = \"x\"\n\n[tool.wvlock]\nindex-url = \"i\"\n\n"
                           "[[tool.wvlock.target]]\nname = \"cpu\"\n";
  auto added = wv::pkg::set_source(base, "pyproject.toml", "Torch", "{ index = \"pt\" }");
  REQUIRE(added);
  CHECK(*added == "[project]\nname = \"x\"\n\n[tool.wvlock]\nindex-url = \"i\"\n\n"
                  "[tool.wvlock.sources]\nTorch = { index = \"pt\" }\n\n"
                  "[[tool.wvlock.target]]\nname = \"cpu\"\n");
  auto replaced = wv::pkg::set_source(*added, "pyproject.toml", "torch", "{ index = \"cu\" }");
  REQUIRE(replaced);
  CHECK(replaced->find("Torch = { index = \"cu\" }\n") != std::string::npos);
  auto second = wv::pkg::set_source(*added, "pyproject.toml", "zope.interface", "{ index = \"z\" }");
  REQUIRE(second);
  CHECK(second->find("Torch = { index = \"pt\" }\n\"zope.interface\" = { index = \"z\" }\n") !=
        std::string::npos);
  auto removed = wv::pkg::remove_source(*added, "pyproject.toml", "torch");
  REQUIRE(removed);
  CHECK(removed->removed == 1);
  CHECK(removed->text == "[project]\nname = \"x\"\n\n[tool.wvlock]\nindex-url = \"i\"\n\n"
                         "[tool.wvlock.sources]\n\n[[tool.wvlock.target]]\nname = \"cpu\"\n");
  // An inline sources table, and a multi-line entry.
  auto inline_removed = wv::pkg::remove_source(
      "[tool.wvlock]\nsources = { a = { index = \"x\" }, b = { index = \"y\" } }\n",
      "pyproject.toml", "a");
  REQUIRE(inline_removed);
  CHECK(inline_removed->text == "[tool.wvlock]\nsources = { b = { index = \"y\" } }\n");
  auto multi = wv::pkg::remove_source(
      "[tool.wvlock.sources]\ntorch = [\n  { index = \"a\", targets = [\"x\"] },\n  { index = \"b\" "
      "},\n]\nnumpy = { index = \"a\" }\n",
      "pyproject.toml", "torch");
  REQUIRE(multi);
  CHECK(multi->text == "[tool.wvlock.sources]\nnumpy = { index = \"a\" }\n");
  // Without [tool.wvlock]: the table goes at the end.
  auto fresh = wv::pkg::set_source("[project]\nname = \"x\"\n", "pyproject.toml", "a", "{ index = \"b\" }");
  REQUIRE(fresh);
  CHECK(*fresh == "[project]\nname = \"x\"\n\n[tool.wvlock.sources]\na = { index = \"b\" }\n");
}

TEST_CASE("pyproject edit: uv's sources table is edited when asked for, and found",
          "[pkg][pyproject_edit]") {
  const std::string base = "[project]\nname = \"x\"\n\n[tool.uv.sources]\ncore = { workspace = true }\n\n"
                           "[tool.wvlock]\nindex-url = \"i\"\n";
  auto uv = wv::pkg::has_sources_table(base, "pyproject.toml", "uv");
  REQUIRE(uv);
  CHECK(*uv);
  auto wvlock = wv::pkg::has_sources_table(base, "pyproject.toml", "wvlock");
  REQUIRE(wvlock);
  CHECK_FALSE(*wvlock);
  auto dotted = wv::pkg::has_sources_table("[tool.uv]\nsources.a = { path = \"a\" }\n", "p", "uv");
  REQUIRE(dotted);
  CHECK(*dotted);
  auto added = wv::pkg::set_source(base, "pyproject.toml", "svc", "{ workspace = true }", "uv");
  REQUIRE(added);
  CHECK(*added == "[project]\nname = \"x\"\n\n[tool.uv.sources]\ncore = { workspace = true }\n"
                  "svc = { workspace = true }\n\n[tool.wvlock]\nindex-url = \"i\"\n");
  // The wvlock table is not uv's: removing from it leaves uv's entry.
  auto other = wv::pkg::remove_source(*added, "pyproject.toml", "svc");
  REQUIRE(other);
  CHECK(other->removed == 0);
  auto removed = wv::pkg::remove_source(*added, "pyproject.toml", "SVC", "uv");
  REQUIRE(removed);
  CHECK(removed->removed == 1);
  CHECK(removed->text == base);
}

TEST_CASE("pyproject edit: strings of every kind, and layout errors with a position",
          "[pkg][pyproject_edit]") {
  const std::string before =
      "a = '''x ] \" '''\n"
      "b = \"\"\"y\n\"\"\" # ]\n"
      "c = \"\"\"\"quoted\"\"\"\"\n"
      "d = 1979-05-27 07:32:00Z\n"
      "\"quoted key\".x = true\n"
      "[project]\n"
      "dependencies = ['a']\n";
  CHECK(add(before, kProject, "b") == before.substr(0, before.size() - 2) + ", \"b\"]\n");
  auto doc = wv::pkg::toml_scan::scan(before, "p.toml");
  REQUIRE(doc);
  CHECK(doc->values[4].path == std::vector<std::string>{"quoted key", "x"});
  auto bad = wv::pkg::add_dependency("[project]\ndependencies = [\"a\",\n", "p.toml", kProject, "b");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("`p.toml`:2:16: unterminated array") != std::string::npos);
  auto not_array = wv::pkg::add_dependency("[project]\ndependencies = \"a\"\n", "p.toml", kProject, "b");
  REQUIRE_FALSE(not_array);
  CHECK(not_array.error().message.find("not an array") != std::string::npos);
  // Hostile nesting is refused, never a stack overflow.
  const std::string deep = "[project]\ndependencies = " + std::string(100000, '[');
  auto nested = wv::pkg::add_dependency(deep, "p.toml", kProject, "b");
  REQUIRE_FALSE(nested);
  CHECK(nested.error().message.find("nested too deeply") != std::string::npos);
}
