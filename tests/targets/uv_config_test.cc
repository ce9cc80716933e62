// uv's `[tool.uv]` read as written (targets/project_file.h): indexes, sources with their
// conditions, settings, constraints and overrides, `conflicts` and `environments`;
// `[tool.wvlock]` winning key by key; uv's other keys as warnings with file:line:col; and the
// targets of a project that declares none (targets/default_targets.h).
#include <catch2/catch.hpp>

#include "targets/default_targets.h"
#include "targets/project_file.h"
#include "tests/support/package_name.h"

namespace wv::targets {
namespace {

const DefaultPythons kPython312 = [](const ProjectConfig&) -> Result<std::vector<MajorMinor>> {
  return std::vector<MajorMinor>{{3, 12}};
};

// A host as detection would describe it: linux x86_64 glibc 2.35, one H100.
Target gpu_host() {
  HostProfile live;
  live.os.set(OsKind::kLinux, FactSource::kOverride);
  live.arch.set("x86_64", FactSource::kOverride);
  live.libc.set(LibcKind::kGlibc, FactSource::kOverride);
  live.libc_version.set({2, 35}, FactSource::kOverride);
  live.cuda_driver_version.set({12, 8}, FactSource::kOverride);
  live.compute_capabilities.set({{9, 0}}, FactSource::kOverride);
  Result<Target> target = host_target(live);
  REQUIRE(target);
  return *target;
}

const DefaultTarget kHost = [](const ProjectConfig&) -> Result<Target> { return gpu_host(); };

ProjectConfig parse(std::string_view text, const DefaultTarget& host = kHost) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml", kPython312, host);
  INFO((config ? "" : config.error().message));
  REQUIRE(config);
  return std::move(*config);
}

std::string parse_error(std::string_view text) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml", kPython312, kHost);
  REQUIRE_FALSE(config);
  return config.error().message;
}

std::vector<std::string> target_names(const ProjectConfig& config) {
  std::vector<std::string> names;
  for (const Target& target : config.targets) names.push_back(target.name);
  return names;
}

constexpr std::string_view kUvProject = R"toml([project]
name = "project"
requires-python = ">=3.12"
dependencies = ["torch>=2.8", "torchvision"]
[project.optional-dependencies]
cpu = ["torch>=2.8"]
cu128 = ["torch>=2.8"]
[dependency-groups]
dev = ["pytest"]
lint = ["ruff"]

[tool.uv]
index-strategy = "unsafe-best-match"
prerelease = "allow"
default-groups = ["dev", "lint"]
constraint-dependencies = ["numpy<2.3"]
override-dependencies = ["triton>=3 ; sys_platform == 'linux'"]
conflicts = [[{ extra = "cpu" }, { extra = "cu128" }]]
managed = true

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu128", extra = "cu128" },
]
torchvision = { index = "pytorch-cpu", marker = "sys_platform != 'linux'" }
mylib = { path = "../mylib", editable = true }
tool = { git = "https://example.org/tool", tag = "v1", subdirectory = "py" }

[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true
format = "simple"

[[tool.uv.index]]
name = "pypi"
url = "https://pypi.org/simple"
default = true
)toml";

}  // namespace

TEST_CASE("uv config: [tool.uv] indexes, sources and settings are read as written",
          "[targets][uv]") {
  const ProjectConfig config = parse(kUvProject);
  REQUIRE(config.indexes.size() == 3);
  CHECK(config.indexes[0].name == "pytorch-cpu");
  CHECK(config.indexes[0].explicit_only);
  CHECK(config.indexes[2].name == "pypi");
  CHECK(config.indexes[2].is_default);
  CHECK(config.index_best_match);
  CHECK(config.prerelease == "allow");
  CHECK(config.default_group_names() == std::vector<std::string>{"dev", "lint"});
  CHECK(config.constraint_dependencies == std::vector<std::string>{"numpy<2.3"});
  CHECK(config.override_dependencies ==
        std::vector<std::string>{"triton>=3 ; sys_platform == 'linux'"});
  REQUIRE(config.sources.count("torch"_pkg));
  CHECK(config.sources.at("torch"_pkg).size() == 2);
  CHECK(config.sources.at("torch"_pkg)[1].extra == "cu128");
  CHECK(config.sources.at("torchvision"_pkg)[0].marker == "sys_platform != 'linux'");
  CHECK(config.sources.at("mylib"_pkg)[0].kind == SourceEntry::Kind::kPath);
  CHECK(config.sources.at("mylib"_pkg)[0].editable);
  CHECK(config.sources.at("tool"_pkg)[0].kind == SourceEntry::Kind::kGit);
  CHECK(config.sources.at("tool"_pkg)[0].tag == "v1");
  CHECK(config.sources.at("tool"_pkg)[0].subdirectory == "py");
  // uv's settings wvlock does not act on are warnings naming file:line:col.
  REQUIRE(config.warnings.size() == 2);
  CHECK(config.warnings[0] == "`pyproject.toml`:19:1: wvlock does not act on `managed` in "
                              "`[tool.uv]`: ignored");
  CHECK(config.warnings[1].find("`pyproject.toml`:39:1: wvlock does not act on `format`") == 0);
}

TEST_CASE("uv config: conflicting extras split the default target", "[targets][uv]") {
  const ProjectConfig config = parse(kUvProject);
  CHECK(config.targets_origin == ProjectConfig::TargetOrigin::kHost);
  CHECK(target_names(config) == std::vector<std::string>{"host-cpu", "host-cu128"});
  CHECK(config.targets[0].extras == std::vector<std::string>{"cpu"});
  CHECK(config.targets[1].extras == std::vector<std::string>{"cu128"});
  // The source entries with `extra` apply to the target that locks it.
  const SourceEntry* cpu = applicable_source(config, "torch"_pkg, config.targets[0]);
  const SourceEntry* cuda = applicable_source(config, "torch"_pkg, config.targets[1]);
  REQUIRE(cpu != nullptr);
  REQUIRE(cuda != nullptr);
  CHECK(cpu->index == "pytorch-cpu");
  CHECK(cuda->index == "pytorch-cu128");
}

TEST_CASE("uv config: the host target carries the detected platform and GPU", "[targets][uv]") {
  const ProjectConfig config = parse(R"toml([project]
name = "p"
requires-python = ">=3.12"
)toml");
  REQUIRE(target_names(config) == std::vector<std::string>{"host"});
  const std::map<std::string, std::string> facts = declared_facts(config.targets[0]);
  CHECK(facts.at("platform") == "linux-x86_64");
  CHECK(facts.at("glibc") == "2.35");
  CHECK(facts.at("cuda-driver") == "12.8");
  CHECK(facts.at("compute-capability") == "9.0");
  CHECK(facts.at("python") == "3.12");
  // Without a host answer, a project with no target has none (the caller says so).
  CHECK(parse("[project]\nname = \"p\"\n", DefaultTarget{}).targets.empty());
}

TEST_CASE("uv config: environments name the platforms to lock for", "[targets][uv]") {
  const ProjectConfig config = parse(R"toml([project]
name = "p"
[project.optional-dependencies]
a = []
[tool.uv]
environments = [
  "sys_platform == 'linux' and platform_machine == 'x86_64'",
  "sys_platform == 'linux' and platform_machine == 'aarch64'",
  "sys_platform == 'darwin'",
  "python_version >= '3.12' and implementation_name == 'pypy'",
]
required-environments = ["sys_platform == 'win32' and platform_machine == 'AMD64'"]
)toml");
  CHECK(config.targets_origin == ProjectConfig::TargetOrigin::kEnvironments);
  CHECK(target_names(config) == std::vector<std::string>{"linux-x86_64", "linux-aarch64",
                                                         "macos-arm64", "windows-amd64"});
  // A target that declares no version gets uv's defaults: glibc 2.28 and macOS 13.0.
  CHECK(config.targets[0].profile.libc_version.value == MajorMinor{2, 28});
  CHECK(config.targets[2].profile.macos_version.value == MajorMinor{13, 0});
  CHECK(config.targets[0].extras == std::vector<std::string>{"a"});  // every extra, no conflict
  REQUIRE(config.warnings.size() == 1);
  CHECK(config.warnings[0].find(":10:3: the environment `python_version >= '3.12' and "
                                "implementation_name == 'pypy'` names no platform") !=
        std::string::npos);
}

TEST_CASE("uv config: [tool.wvlock] wins key by key", "[targets][uv]") {
  const ProjectConfig config = parse(R"toml([project]
name = "p"
[tool.wvlock]
prerelease = "disallow"
constraint-dependencies = ["numpy<2"]
[[tool.wvlock.index]]
name = "mine"
url = "simple"
default = true
[tool.wvlock.sources]
torch = { index = "mine" }
[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"

[tool.uv]
prerelease = "allow"
index-strategy = "unsafe-best-match"
constraint-dependencies = ["numpy<3"]
override-dependencies = ["six>1"]
[tool.uv.sources]
torch = { index = "theirs" }
torchvision = { index = "mine" }
[[tool.uv.index]]
name = "theirs"
url = "https://example.org/simple"
)toml");
  REQUIRE(config.indexes.size() == 1);
  CHECK(config.indexes[0].name == "mine");
  CHECK(config.prerelease == "disallow");
  CHECK(config.index_best_match);  // only uv gives it
  CHECK(config.constraint_dependencies == std::vector<std::string>{"numpy<2"});
  CHECK(config.override_dependencies == std::vector<std::string>{"six>1"});
  CHECK(config.sources.at("torch"_pkg)[0].index == "mine");
  CHECK(config.sources.at("torchvision"_pkg)[0].index == "mine");
  CHECK(target_names(config) == std::vector<std::string>{"cpu"});
  CHECK(config.targets_origin == ProjectConfig::TargetOrigin::kDeclared);
  // glibc defaults to 2.28 (uv's x86_64-unknown-linux-gnu).
  CHECK(config.targets[0].profile.libc_version.value == MajorMinor{2, 28});
}

TEST_CASE("uv config: conflicts are validated", "[targets][uv]") {
  const std::string head = R"toml([project]
name = "p"
[project.optional-dependencies]
cpu = []
cu128 = []
[dependency-groups]
dev = []
)toml";
  CHECK(parse_error(head + "[tool.uv]\nconflicts = [[{ extra = \"cpu\" }, { extra = \"rocm\" }]]\n")
            .find("pyproject.toml`:9:44: `tool.uv.conflicts` names extra `rocm`") != std::string::npos);
  CHECK(parse_error(head + "[tool.uv]\nconflicts = [[{ extra = \"cpu\" }]]\n")
            .find("at least two") != std::string::npos);
  // A declared target may not lock two conflicting extras.
  CHECK(parse_error(head + "[tool.uv]\nconflicts = [[{ extra = \"cpu\" }, { extra = \"cu128\" }]]\n"
                           "[[tool.wvlock.target]]\nname = \"both\"\nplatform = \"linux-x86_64\"\n"
                           "extras = [\"cpu\", \"cu128\"]\n")
            .find("target `both` locks extras `cpu`, `cu128`") != std::string::npos);
  // A group conflict is read and warned about: every group is locked in every target.
  const ProjectConfig config =
      parse(head + "[tool.uv]\nconflicts = [[{ group = \"dev\" }, { extra = \"cpu\" }]]\n");
  REQUIRE(config.warnings.size() == 1);
  CHECK(config.warnings[0].find("group `dev`") != std::string::npos);
}

TEST_CASE("uv config: split_conflicting_extras keeps every conflict set apart", "[targets][uv]") {
  Target base;
  base.name = "host";
  const auto names = [](const std::vector<Target>& targets) {
    std::vector<std::string> out;
    for (const Target& target : targets) out.push_back(target.name);
    return out;
  };
  CHECK(names(split_conflicting_extras(base, {"a", "b", "c"}, {})) ==
        std::vector<std::string>{"host"});
  const auto split = split_conflicting_extras(base, {"a", "b", "c", "x"}, {{"a", "b"}, {"b", "c"}});
  CHECK(names(split) == std::vector<std::string>{"host-a-c", "host-b"});
  CHECK(split[0].extras == std::vector<std::string>{"x", "a", "c"});
  CHECK(split[1].extras == std::vector<std::string>{"x", "b"});
}

}  // namespace wv::targets
