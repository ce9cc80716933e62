// Tests for the index and source parts of targets/project_file.h (DESIGN.md §2.1):
// `[[tool.wvlock.index]]`, the `index-url` / `extra-index-url` shorthands, the asking order,
// `index-strategy`, `[tool.wvlock.sources]` with targets / marker / extra / group, every error
// with its line and column, and applicable_source().
#include <catch2/catch.hpp>

#include "targets/project_file.h"

#include "src/base/str.h"
#include "tests/support/package_name.h"

namespace wv::targets {
namespace {

ProjectConfig parse(std::string_view text) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml");
  if (!config) FAIL(config.error().message);
  return *config;
}

std::string error_of(std::string_view text) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml");
  REQUIRE_FALSE(config);
  CHECK(config.error().code == ErrorCode::kInvalidInput);
  return config.error().message;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> names_of(const ProjectConfig& config) {
  std::vector<std::string> names;
  for (const IndexConfig& index : config.indexes) names.push_back(index.name);
  return names;
}

TEST_CASE("project sources: indexes are asked in declared order, extra-index-url next, the "
          "default last",
          "[targets][project_sources]") {
  const ProjectConfig config = parse(R"toml([tool.wvlock]
extra-index-url = ["https://extra.example/one", "https://extra.example/two"]

[[tool.wvlock.index]]
name = "pypi"
url = "https://pypi.example/simple"
default = true

[[tool.wvlock.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true

[[tool.wvlock.index]]
name = "local"
url = "fixtures/index/simple"
)toml");
  CHECK(names_of(config) == std::vector<std::string>{"pytorch-cu128", "local", "extra-index-url",
                                                     "extra-index-url-2", "pypi"});
  REQUIRE(config.indexes.size() == 5);
  const IndexConfig& cu128 = config.indexes[0];
  CHECK(cu128.url == "https://download.pytorch.org/whl/cu128");
  CHECK(cu128.explicit_only);
  CHECK_FALSE(cu128.is_default);
  CHECK((cu128.line == 9 && cu128.column == 1));
  const IndexConfig& local = config.indexes[1];
  CHECK(local.url == "fixtures/index/simple");
  CHECK_FALSE(local.explicit_only);
  CHECK_FALSE(local.is_default);
  const IndexConfig& extra = config.indexes[2];
  CHECK(extra.url == "https://extra.example/one");
  CHECK_FALSE(extra.explicit_only);
  CHECK_FALSE(extra.is_default);
  CHECK((extra.line == 2 && extra.column == 20));
  CHECK(config.indexes[3].url == "https://extra.example/two");
  CHECK((config.indexes[3].line == 2 && config.indexes[3].column == 49));
  const IndexConfig& pypi = config.indexes[4];
  CHECK(pypi.url == "https://pypi.example/simple");
  CHECK(pypi.is_default);
  CHECK_FALSE(pypi.explicit_only);
  CHECK((pypi.line == 4 && pypi.column == 1));
  // The shorthand fields stay filled for the code that reads them.
  CHECK_FALSE(config.index_url.has_value());
  CHECK(config.extra_index_urls ==
        std::vector<std::string>{"https://extra.example/one", "https://extra.example/two"});
  CHECK(config.find_index("local") == &config.indexes[1]);
  CHECK(config.find_index("pypi") == &config.indexes[4]);
  CHECK(config.find_index("PyPI") == nullptr);  // names compare exactly
  CHECK(config.find_index("extra-index-url-3") == nullptr);
}

TEST_CASE("project sources: index-url is the default index named `index-url`, asked last",
          "[targets][project_sources]") {
  const ProjectConfig config = parse(R"toml([tool.wvlock]
index-url = "https://pypi.example/simple"
extra-index-url = "https://extra.example/one"

[[tool.wvlock.index]]
name = "cpu"
url = "https://download.pytorch.org/whl/cpu"
)toml");
  CHECK(names_of(config) == std::vector<std::string>{"cpu", "extra-index-url", "index-url"});
  REQUIRE(config.indexes.size() == 3);
  CHECK(config.indexes[2].url == "https://pypi.example/simple");
  CHECK(config.indexes[2].is_default);
  CHECK((config.indexes[2].line == 2 && config.indexes[2].column == 13));
  CHECK((config.indexes[1].line == 3 && config.indexes[1].column == 19));
  CHECK_FALSE(config.indexes[1].is_default);
  CHECK(config.index_url == "https://pypi.example/simple");
  CHECK(config.extra_index_urls == std::vector<std::string>{"https://extra.example/one"});
}

TEST_CASE("project sources: the extra-index-url shorthands are numbered from the second",
          "[targets][project_sources]") {
  const ProjectConfig config = parse(
      "[tool.wvlock]\nindex-url = \"a\"\nextra-index-url = [\"b\", \"c\", \"d\"]\n");
  CHECK(names_of(config) == std::vector<std::string>{"extra-index-url", "extra-index-url-2",
                                                     "extra-index-url-3", "index-url"});
  CHECK(config.find_index("extra-index-url-3")->url == "d");
  CHECK(config.find_index("index-url")->url == "a");

  const ProjectConfig none = parse("[tool.wvlock]\npython = \"3.12\"\n");
  CHECK(none.indexes.empty());
  CHECK(none.sources.empty());
  CHECK_FALSE(none.index_best_match);
}

TEST_CASE("project sources: index-strategy", "[targets][project_sources]") {
  CHECK_FALSE(parse("[tool.wvlock]\nindex-strategy = \"first-index\"\n").index_best_match);
  CHECK(parse("[tool.wvlock]\nindex-strategy = \"unsafe-best-match\"\n").index_best_match);
  const std::string message = error_of("[tool.wvlock]\nindex-strategy = \"best\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:18: invalid `index-strategy` `best`: expected one "
                          "of `first-index`, `unsafe-best-match`"));
  CHECK(contains(error_of("[tool.wvlock]\nindex-strategy = 1\n"),
                 "`pyproject.toml`:2:18: `tool.wvlock.index-strategy` must be a string"));
}

TEST_CASE("project sources: keyring-provider", "[targets][project_sources]") {
  CHECK(parse("[tool.wvlock]\npython = \"3.12\"\n").keyring_provider.empty());
  CHECK(parse("[tool.wvlock]\nkeyring-provider = \"subprocess\"\n").keyring_provider == "subprocess");
  CHECK(parse("[tool.wvlock]\nkeyring-provider = \"disabled\"\n").keyring_provider == "disabled");
  CHECK(contains(error_of("[tool.wvlock]\nkeyring-provider = \"auto\"\n"),
                 "`pyproject.toml`:2:20: invalid `keyring-provider` `auto`: expected one of "
                 "`disabled`, `subprocess`"));
}

TEST_CASE("project sources: every index error names the line, column and what to write",
          "[targets][project_sources]") {
  std::string message;

  message = error_of("[tool.wvlock]\npyton = \"3.12\"\n");
  CHECK(contains(message, "`index`, `index-strategy`, `sources`"));

  message = error_of("[[tool.wvlock.index]]\nurl = \"x\"\n");
  CHECK(contains(message, "`pyproject.toml`:1:1: `[[tool.wvlock.index]]` #1 has no `name`"));

  message = error_of("[[tool.wvlock.index]]\nname = \"py pi\"\nurl = \"x\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:8: invalid index name `py pi`: expected ASCII "
                          "letters, digits, `-`, `_` or `.`"));

  message = error_of("[[tool.wvlock.index]]\nname = \"py\xc3\xa9\"\nurl = \"x\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:8: invalid index name"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\n");
  CHECK(contains(message, "`pyproject.toml`:1:1: index `a` has no `url`"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\nurl = \"\"\n");
  CHECK(contains(message, "`pyproject.toml`:3:7: `url` of index `a` is empty"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\nurl = \"x\"\npriority = 1\n");
  CHECK(contains(message, "`pyproject.toml`:4:1: unknown key `priority` in index `a`: expected "
                          "one of `name`, `url`, `explicit`, `default`"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\nurl = \"x\"\nexplicit = \"yes\"\n");
  CHECK(contains(message, "`pyproject.toml`:4:12: `explicit` must be true or false"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\nurl = \"x\"\n"
                     "[[tool.wvlock.index]]\nname = \"a\"\nurl = \"y\"\n");
  CHECK(contains(message, "`pyproject.toml`:4:1: duplicate index name `a`: line 1 declares it "
                          "already"));

  message = error_of("[tool.wvlock]\nextra-index-url = \"u\"\n"
                     "[[tool.wvlock.index]]\nname = \"extra-index-url\"\nurl = \"y\"\n");
  CHECK(contains(message, "`pyproject.toml`:3:1: duplicate index name `extra-index-url`: line 2"));

  message = error_of("[[tool.wvlock.index]]\nname = \"a\"\nurl = \"x\"\ndefault = true\n"
                     "[[tool.wvlock.index]]\nname = \"b\"\nurl = \"y\"\ndefault = true\n");
  CHECK(contains(message, "`pyproject.toml`:5:1: a second default index: index `b` and index "
                          "`a` (line 1) are both the default; at most one index may be the "
                          "default"));

  message = error_of("[tool.wvlock]\nindex-url = \"u\"\n\n"
                     "[[tool.wvlock.index]]\nname = \"a\"\nurl = \"v\"\ndefault = true\n");
  CHECK(contains(message, "`pyproject.toml`:4:1: a second default index: index `a` and "
                          "`index-url` (line 2) are both the default"));

  message = error_of("[tool.wvlock]\nindex = \"x\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:9: `tool.wvlock.index` must be an array of tables"));

  message = error_of("[tool.wvlock]\nextra-index-url = [\"a\", 2]\n");
  CHECK(contains(message, "`pyproject.toml`:2:25: `tool.wvlock.extra-index-url` must be a string"));
}

// 35 lines; the entries under test start on line 36.
constexpr std::string_view kProject = R"toml([project]
name = "trainer"
[project.optional-dependencies]
Serve_Extra = ["vllm"]
[dependency-groups]
Dev_Tools = ["pytest"]

[tool.wvlock]
python = "3.12"

[[tool.wvlock.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true

[[tool.wvlock.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"

[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"

[[tool.wvlock.target]]
name = "h100"
platform = "linux-x86_64"
extras = ["Serve.Extra"]
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }

[tool.wvlock.sources]
)toml";

std::string with_sources(std::string_view sources) { return str_cat(kProject, sources); }

TEST_CASE("project sources: the test project's sources start on line 36",
          "[targets][project_sources]") {
  const std::string message = error_of(with_sources("torch = 1\n"));
  CHECK(contains(message, "`pyproject.toml`:36:9:"));
}

TEST_CASE("project sources: entries apply by target, marker, extra and group",
          "[targets][project_sources]") {
  const ProjectConfig config = parse(with_sources(R"toml(Torch = [
  { index = "pytorch-cpu", targets = ["cpu", "mac"] },
  { index = "pytorch-cu128", targets = ["h100"] },
]
"flash_attn" = { index = "pytorch-cu128", marker = "sys_platform == 'linux' and platform_machine == 'x86_64'" }
vllm = { index = "pytorch-cu128", extra = "serve_extra" }
pytest = { index = "pytorch-cpu", group = "dev.tools" }
numpy = [
  { index = "pytorch-cpu", marker = "sys_platform == 'darwin'" },
  { index = "pytorch-cu128", marker = "sys_platform == 'linux'" },
]
)toml"));
  // Stored under normalised names.
  std::vector<std::string> packages;
  for (const auto& [name, entries] : config.sources) packages.push_back(name.str());
  CHECK(packages == std::vector<std::string>{"flash-attn", "numpy", "pytest", "torch", "vllm"});

  const std::vector<SourceEntry>& torch = config.sources.at("torch"_pkg);
  REQUIRE(torch.size() == 2);
  CHECK(torch[0].index == "pytorch-cpu");
  CHECK(torch[0].targets == std::vector<std::string>{"cpu", "mac"});
  CHECK((torch[0].line == 37 && torch[0].column == 3));
  CHECK((torch[1].line == 38 && torch[1].column == 3));
  CHECK(config.sources.at("flash-attn"_pkg)[0].marker ==
        "sys_platform == 'linux' and platform_machine == 'x86_64'");
  CHECK((config.sources.at("flash-attn"_pkg)[0].line == 40 &&
         config.sources.at("flash-attn"_pkg)[0].column == 16));
  CHECK(config.sources.at("vllm"_pkg)[0].extra == "serve-extra");  // PEP 685 normalised
  CHECK(config.sources.at("pytest"_pkg)[0].group == "dev-tools");

  const Target& cpu = *config.find_target("cpu");
  const Target& mac = *config.find_target("mac");
  const Target& h100 = *config.find_target("h100");
  // targets
  CHECK(applicable_source(config, "torch"_pkg, cpu) == &torch[0]);
  CHECK(applicable_source(config, "torch"_pkg, mac) == &torch[0]);
  CHECK(applicable_source(config, "torch"_pkg, h100) == &torch[1]);
  CHECK(applicable_source(config, "Torch"_pkg, h100) == &torch[1]);  // any spelling finds it
  // marker, evaluated in each target's marker environment
  CHECK(applicable_source(config, "flash-attn"_pkg, cpu) == &config.sources.at("flash-attn"_pkg)[0]);
  CHECK(applicable_source(config, "flash-attn"_pkg, mac) == nullptr);
  const std::vector<SourceEntry>& numpy = config.sources.at("numpy"_pkg);
  CHECK(applicable_source(config, "numpy"_pkg, mac) == &numpy[0]);
  CHECK(applicable_source(config, "numpy"_pkg, cpu) == &numpy[1]);
  CHECK(applicable_source(config, "numpy"_pkg, h100) == &numpy[1]);
  // extra: only the target that locks it (`Serve.Extra` there, `serve_extra` here)
  CHECK(applicable_source(config, "vllm"_pkg, h100) == &config.sources.at("vllm"_pkg)[0]);
  CHECK(applicable_source(config, "vllm"_pkg, cpu) == nullptr);
  CHECK(applicable_source(config, "vllm"_pkg, mac) == nullptr);
  // group: every target
  for (const Target* target : {&cpu, &mac, &h100}) {
    CHECK(applicable_source(config, "pytest"_pkg, *target) == &config.sources.at("pytest"_pkg)[0]);
  }
  // no entry
  CHECK(applicable_source(config, "requests"_pkg, cpu) == nullptr);
}

TEST_CASE("project sources: every source error names the line, column and what to write",
          "[targets][project_sources]") {
  std::string message;

  message = error_of(with_sources("torch = { index = \"pytorch-rocm\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:19: source of `torch` names index "
                          "`pytorch-rocm`, which is not declared: declared indexes are "
                          "`pytorch-cpu`, `pytorch-cu128`"));

  message = error_of("[tool.wvlock.sources]\ntorch = { index = \"cpu\" }\n");
  CHECK(contains(message, "`pyproject.toml`:2:19: source of `torch` names index `cpu`, which is "
                          "not declared: no index is declared"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", targets = [\"a100\"] }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:44: source of `torch` names target `a100`, which "
                          "is not declared: declared targets are `cpu`, `mac`, `h100`"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", targets = [] }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:44: `targets = []` in source of `torch` applies "
                          "to no target"));

  message = error_of(with_sources("mylib = { index = \"pytorch-cpu\", path = \"../mylib\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:34: source of `mylib` has two kinds of source, "
                          "`index` and `path`: an entry takes exactly one of `index`, `path`, "
                          "`url`, `git`, `workspace`"));

  message = error_of(with_sources("asset = { url = \"ftp://a.example/a-1-py3-none-any.whl\" }\n"));
  CHECK(contains(message, "`url` of source of `asset` must be an http(s):// or file:// URL"));

  message = error_of(with_sources("lib = { workspace = false }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:21: `workspace = false` in source of `lib` names "
                          "no source"));
  message = error_of(with_sources("lib = { workspace = true, editable = true }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:27: source of `lib`: `editable` does not apply "
                          "to a `workspace` source"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", editable = true }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:34: source of `torch`: `editable` does not apply "
                          "to a `index` source (only `path` folders install editable)"));

  message = error_of(with_sources("tool = { git = \"https://g.example/tool\", tag = \"v1\", "
                                  "rev = \"abc\" }\n"));
  CHECK(contains(message, "names more than one of `tag`, `branch` and `rev`"));

  message = error_of(with_sources("tool = { url = \"https://a.example/t-1.tar.gz\", tag = \"v1\" }\n"));
  CHECK(contains(message, "`tag` does not apply to a `url` source"));

  message = error_of(with_sources("torch = { rev = \"abc\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:11: source of `torch`: `rev` does not apply to an "
                          "entry without a source"));

  message = error_of(with_sources("torch = { targets = [\"cpu\"] }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:9: source of `torch` names no source: give one of "
                          "`index = \"NAME\"`, `path`, `url` or `git`"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", priority = 1 }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:34: unknown key `priority` in source of `torch`: "
                          "expected one of `index`, `path`, `url`, `git`, `workspace`, "
                          "`targets`, `marker`, `extra`, `group`"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", marker = \"sys_platform =\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:43: invalid `marker` in source of `torch`:"));

  // Parses, but `~=` between strings cannot be evaluated (packaging raises).
  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", marker = \"sys_platform ~= 'linux'\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:43: the `marker` of source of `torch` cannot be "
                          "evaluated for target `cpu`:"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", extra = \"gpu\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:42: source of `torch` names extra `gpu`, which "
                          "`[project.optional-dependencies]` does not declare: declared extras "
                          "are `serve-extra`"));

  message = error_of(with_sources("torch = { index = \"pytorch-cpu\", group = \"lint\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:42: source of `torch` names group `lint`, which "
                          "`[dependency-groups]` does not declare: declared groups are "
                          "`dev-tools`"));

  message = error_of(with_sources(
      "torch = { index = \"pytorch-cpu\", extra = \"serve-extra\", group = \"dev-tools\" }\n"));
  CHECK(contains(message, "source of `torch` has both `extra` and `group`"));

  // The later spelling in the file is reported, though toml++ sorts `TORCH` first.
  message = error_of(with_sources("torch = { index = \"pytorch-cpu\" }\n"
                                  "TORCH = { index = \"pytorch-cu128\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:37:1: `TORCH` and `torch` in `[tool.wvlock.sources]` "
                          "name one package `torch`"));

  message = error_of(with_sources("\"-torch\" = { index = \"pytorch-cpu\" }\n"));
  CHECK(contains(message, "`pyproject.toml`:36:1: invalid package name `-torch`"));

  message = error_of(with_sources("torch = []\n"));
  CHECK(contains(message, "`pyproject.toml`:36:9: `tool.wvlock.sources.torch` is an empty list"));

  message = error_of(with_sources("torch = \"pytorch-cpu\"\n"));
  CHECK(contains(message, "`pyproject.toml`:36:9: `tool.wvlock.sources.torch` must be an inline "
                          "table like `{ index = \"NAME\" }` or an array of them"));

  message = error_of(with_sources("torch = [\"pytorch-cpu\"]\n"));
  CHECK(contains(message, "`pyproject.toml`:36:10: entries of `tool.wvlock.sources.torch` must "
                          "be inline tables"));

  message = error_of("[tool.wvlock]\nsources = [\"torch\"]\n");
  CHECK(contains(message, "`pyproject.toml`:2:11: `tool.wvlock.sources` must be a table"));
}

TEST_CASE("project sources: two entries of one package that apply to one target are refused",
          "[targets][project_sources]") {
  std::string message;

  // By target list: `h100` is in both.
  message = error_of(with_sources(R"toml(torch = [
  { index = "pytorch-cpu", targets = ["cpu", "h100"] },
  { index = "pytorch-cu128", targets = ["h100"] },
]
)toml"));
  CHECK(contains(message, "`pyproject.toml`:38:3: two sources of `torch` apply to target `h100`: "
                          "the entries at lines 37 and 38; give them disjoint `targets`, "
                          "`marker` or `extra`"));

  // A marker true on linux overlaps a target list naming a linux target.
  message = error_of(with_sources(R"toml(torch = [
  { index = "pytorch-cpu", marker = "sys_platform == 'linux'" },
  { index = "pytorch-cu128", targets = ["h100"] },
]
)toml"));
  CHECK(contains(message, "`pyproject.toml`:38:3: two sources of `torch` apply to target `h100`"));

  // A group entry applies everywhere.
  message = error_of(with_sources(R"toml(torch = [
  { index = "pytorch-cpu", group = "dev-tools" },
  { index = "pytorch-cu128", targets = ["mac"] },
]
)toml"));
  CHECK(contains(message, "`pyproject.toml`:38:3: two sources of `torch` apply to target `mac`: "
                          "the entries at lines 37 and 38"));

  // An extra entry applies where the extra is locked.
  message = error_of(with_sources(R"toml(torch = [
  { index = "pytorch-cpu", targets = ["h100"] },
  { index = "pytorch-cu128", extra = "serve-extra" },
]
)toml"));
  CHECK(contains(message, "`pyproject.toml`:38:3: two sources of `torch` apply to target `h100`"));

  // Without declared targets, two entries without conditions still clash.
  message = error_of(R"toml([[tool.wvlock.index]]
name = "a"
url = "x"
[tool.wvlock.sources]
torch = [{ index = "a" }, { index = "a" }]
)toml");
  CHECK(contains(message, "`pyproject.toml`:5:27: two sources of `torch` apply to every target: "
                          "the entries at 5:10 and 5:27"));

  // Disjoint entries pass: the same index by marker for one target set and by target list
  // for another.
  const ProjectConfig config = parse(with_sources(R"toml(torch = [
  { index = "pytorch-cpu", marker = "sys_platform == 'darwin'" },
  { index = "pytorch-cpu", targets = ["cpu"] },
  { index = "pytorch-cu128", extra = "serve-extra" },
]
)toml"));
  const std::vector<SourceEntry>& torch = config.sources.at("torch"_pkg);
  CHECK(applicable_source(config, "torch"_pkg, *config.find_target("mac")) == &torch[0]);
  CHECK(applicable_source(config, "torch"_pkg, *config.find_target("cpu")) == &torch[1]);
  CHECK(applicable_source(config, "torch"_pkg, *config.find_target("h100")) == &torch[2]);
}

}  // namespace
}  // namespace wv::targets
