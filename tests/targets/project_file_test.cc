// Tests for targets/project_file.h and targets/target.h: reading pyproject.toml (DESIGN.md §2),
// every error with its line and column, platform shorthands, and the expansion of a target into
// its marker environment and tag list.
#include "targets/project_file.h"

#include <catch2/catch.hpp>
#include <random>

#include "targets/providers.h"

namespace wv::targets {
namespace {

constexpr std::string_view kDesignExample = R"toml([project]
name = "trainer"
requires-python = ">=3.10"
dependencies = ["torch>=2.8", "numpy>=2", "flash-attn>=2.7 ; sys_platform == 'linux'"]
[project.optional-dependencies]
serve = ["vllm>=0.10"]
[dependency-groups]
dev = ["pytest>=8", {include-group = "lint"}]
lint = ["ruff"]

[tool.wvlock]
python = "3.12"                       # default Python of every target
index-url = "fixtures/index/simple"
find-links = ["wheels/"]
prerelease = "if-necessary-or-explicit"

[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"
macos = "14.0"

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
x86-64-level = "v3"

[[tool.wvlock.target]]
name = "h100"
platform = "linux-x86_64"
glibc = "2.28"
extras = ["serve"]
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }

[[tool.wvlock.target]]
name = "mixed"
platform = "linux-x86_64"
python = "3.11"
nvidia = { cuda-driver = "13.0", compute-capability = ["8.0", "9.0"] }

[[tool.wvlock.target]]
name = "mi300"
platform = "linux-x86_64"
glibc = "2.28"
amd = { rocm = "6.4", gfx = ["gfx942"] }
properties = { blas_lapack = { provider = ["openblas"] } }

[[tool.wvlock.target]]
name = "graviton"
platform = "linux-musl-aarch64"
musl = "1.2"
aarch64-version = "8.2a"

[[tool.wvlock.target]]
name = "win"
platform = "windows-amd64"
intel = { device-ip = "12.55.8" }
)toml";

TEST_CASE("project file: the DESIGN.md example reads completely", "[targets][project_file]") {
  Result<ProjectConfig> config = parse_project_file(kDesignExample, "proj/pyproject.toml");
  REQUIRE(config);
  CHECK(config->name == "trainer");
  CHECK(config->requires_python == ">=3.10");
  CHECK(config->dependencies.size() == 3);
  CHECK(config->dependencies[2] == "flash-attn>=2.7 ; sys_platform == 'linux'");
  CHECK(config->optional_dependencies.at("serve") == std::vector<std::string>{"vllm>=0.10"});
  CHECK(config->dependency_groups.at("dev") ==
        std::vector<DependencyGroupEntry>{{"pytest>=8", ""}, {"", "lint"}});
  CHECK(config->python == std::vector<MajorMinor>{{3, 12}});
  CHECK(config->index_url == "fixtures/index/simple");
  CHECK(resolve_project_path(*config, *config->index_url) == "proj/fixtures/index/simple");
  CHECK(resolve_project_path(*config, "https://x/simple") == "https://x/simple");
  CHECK(config->find_links == std::vector<std::string>{"wheels/"});
  CHECK(config->prerelease == "if-necessary-or-explicit");
  REQUIRE(config->targets.size() == 7);

  const Target& mac = *config->find_target("mac");
  CHECK(*mac.profile.os.value == OsKind::kMacos);
  CHECK(*mac.profile.arch.value == "aarch64");
  CHECK(*mac.profile.macos_version.value == MajorMinor{14, 0});
  CHECK(*mac.profile.python_version.value == MajorMinor{3, 12});
  CHECK(mac.profile.aarch64_version.source == FactSource::kDefault);

  const Target& cpu = *config->find_target("cpu");
  CHECK(*cpu.profile.libc_version.value == MajorMinor{2, 28});
  CHECK(cpu.profile.libc_version.source == FactSource::kDeclared);
  CHECK(*cpu.profile.x86_64_level.value == 3);
  CHECK_FALSE(cpu.profile.cuda_driver_version.known());

  const Target& h100 = *config->find_target("h100");
  CHECK(*h100.profile.cuda_driver_version.value == MajorMinor{12, 8});
  CHECK(*h100.profile.compute_capabilities.value == std::vector<MajorMinor>{{9, 0}});
  CHECK(*h100.profile.x86_64_level.value == 1);
  CHECK(h100.extras == std::vector<std::string>{"serve"});
  CHECK(cpu.extras.empty());
  CHECK(h100.profile.x86_64_level.source == FactSource::kDefault);

  const Target& mixed = *config->find_target("mixed");
  CHECK(*mixed.profile.python_version.value == MajorMinor{3, 11});
  CHECK(*mixed.profile.highest_compute_capability() == MajorMinor{9, 0});
  CHECK(*mixed.profile.libc_version.value == MajorMinor{2, 28});  // the default (uv's)
  CHECK(mixed.profile.libc_version.source == FactSource::kDefault);

  const Target& mi300 = *config->find_target("mi300");
  CHECK(*mi300.profile.rocm_version.value == MajorMinor{6, 4});
  CHECK(*mi300.profile.gfx_archs.value == std::vector<std::string>{"gfx942"});
  CHECK(mi300.profile.properties.at("blas_lapack").at("provider") ==
        std::vector<std::string>{"openblas"});

  const Target& graviton = *config->find_target("graviton");
  CHECK(*graviton.profile.libc.value == LibcKind::kMusl);
  CHECK(*graviton.profile.libc_version.value == MajorMinor{1, 2});
  CHECK(*graviton.profile.aarch64_version.value == "8.2a");

  const Target& win = *config->find_target("win");
  CHECK(*win.profile.intel_device_ips.value == std::vector<std::string>{"12.55.8"});
}

TEST_CASE("project file: targets expand to markers and tags", "[targets][project_file]") {
  Result<ProjectConfig> config = parse_project_file(kDesignExample, "pyproject.toml");
  REQUIRE(config);
  Result<pkg::MarkerEnvironment> mac = marker_environment(config->find_target("mac")->profile);
  REQUIRE(mac);
  CHECK(mac->sys_platform == "darwin");
  CHECK(mac->platform_system == "Darwin");
  CHECK(mac->platform_machine == "arm64");
  CHECK(mac->os_name == "posix");
  CHECK(mac->python_version == "3.12");
  CHECK(mac->python_full_version == "3.12.0");
  CHECK(mac->implementation_name == "cpython");

  Result<pkg::MarkerEnvironment> win = marker_environment(config->find_target("win")->profile);
  REQUIRE(win);
  CHECK(win->sys_platform == "win32");
  CHECK(win->os_name == "nt");
  CHECK(win->platform_machine == "AMD64");

  Result<std::vector<pkg::Tag>> cpu = compatible_tags(config->find_target("cpu")->profile);
  REQUIRE(cpu);
  REQUIRE_FALSE(cpu->empty());
  CHECK(cpu->front().to_string() == "cp312-cp312-manylinux_2_28_x86_64");
  CHECK(cpu->back().to_string() == "py30-none-any");

  Result<std::vector<pkg::Tag>> mac_tags = compatible_tags(config->find_target("mac")->profile);
  REQUIRE(mac_tags);
  CHECK(mac_tags->front().to_string() == "cp312-cp312-macosx_14_0_arm64");

  Result<std::vector<pkg::Tag>> musl = compatible_tags(config->find_target("graviton")->profile);
  REQUIRE(musl);
  CHECK(musl->front().to_string() == "cp312-cp312-musllinux_1_2_aarch64");

  Result<std::vector<pkg::Tag>> windows = compatible_tags(config->find_target("win")->profile);
  REQUIRE(windows);
  CHECK(windows->front().to_string() == "cp312-cp312-win_amd64");

  // A declared GPU target runs the same providers as a live host.
  const HostProfile& h100 = config->find_target("h100")->profile;
  CHECK(nvidia_supported_features(h100)[2].values ==
        std::vector<std::string>{"90_real", "90_virtual"});
  CHECK(x86_64_supported_features(h100)[0].values == std::vector<std::string>{"v1"});
  CHECK(describe(h100) == "linux x86_64 glibc 2.28 python 3.12 x86-64-v1 cuda 12.8 sm 9.0");

  HostProfile empty;
  Result<pkg::MarkerEnvironment> none = marker_environment(empty);
  CHECK_FALSE(none);
  // A live host without a known Python still gets its platform markers (for enable-if).
  HostProfile live;
  live.os.set(OsKind::kLinux, FactSource::kUname);
  live.arch.set("aarch64", FactSource::kUname);
  CHECK_FALSE(marker_environment(live));
  const pkg::MarkerEnvironment partial = partial_marker_environment(live);
  CHECK(partial.platform_system == "Linux");
  CHECK(partial.platform_machine == "aarch64");
  CHECK(partial.python_version.empty());
}

std::string error_of(std::string_view text) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml");
  REQUIRE_FALSE(config);
  return config.error().message;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("project file: every error names the file, line, column and key",
          "[targets][project_file]") {
  const std::string head = "[tool.wvlock]\npython = \"3.12\"\n\n[[tool.wvlock.target]]\n";
  std::string message;

  message = error_of(head + "name = \"x\"\nplatform = \"linux-sparc\"\n");
  CHECK(contains(message, "`pyproject.toml`:6:12:"));
  CHECK(contains(message, "unknown platform `linux-sparc`"));
  CHECK(contains(message, "`linux-x86_64`"));

  message = error_of(head + "name = \"x\"\nplatform = \"linux-x86_64\"\nglibc = \"2.x\"\n");
  CHECK(contains(message, "`pyproject.toml`:7:9:"));
  CHECK(contains(message, "`glibc`"));
  CHECK(contains(message, "`2.x`"));

  message = error_of(head + "name = \"x\"\nplatform = \"linux-x86_64\"\ngpu = \"h100\"\n");
  CHECK(contains(message, "`pyproject.toml`:7:1:"));
  CHECK(contains(message, "unknown key `gpu` in target `x`"));

  message = error_of("[tool.wvlock]\npyton = \"3.12\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:1: unknown key `pyton` in `[tool.wvlock]`"));

  message = error_of(head + "name = \"m\"\nplatform = \"macos-arm64\"\nglibc = \"2.28\"\n");
  CHECK(contains(message, "`glibc` does not apply to platform `macos-arm64`"));

  message = error_of(head + "name = \"m\"\nplatform = \"macos-arm64\"\nx86-64-level = 3\n");
  CHECK(contains(message, "`x86-64-level` does not apply"));

  message = error_of(head + "name = \"c\"\nplatform = \"linux-x86_64\"\nx86-64-level = 5\n");
  CHECK(contains(message, "invalid `x86-64-level`"));

  message = error_of(head + "name = \"a\"\nplatform = \"linux-aarch64\"\naarch64-version = \"7a\"\n");
  CHECK(contains(message, "invalid `aarch64-version` `7a`"));

  message = error_of(head + "name = \"g\"\nplatform = \"linux-x86_64\"\nnvidia = { cuda-driver = \"12.8\" }\n");
  CHECK(contains(message, "needs both `cuda-driver` and `compute-capability`"));

  message = error_of(head + "name = \"g\"\nplatform = \"linux-x86_64\"\n"
                            "nvidia = { cuda-driver = \"12.8\", compute-capability = [\"9\"] }\n");
  CHECK(contains(message, "`nvidia.compute-capability`"));
  CHECK(contains(message, ":7:"));

  message = error_of(head + "name = \"g\"\nplatform = \"linux-x86_64\"\n"
                            "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\", x = 1 }\n");
  CHECK(contains(message, "unknown key `x` in `nvidia` of target `g`"));

  message = error_of(head + "name = \"g\"\nplatform = \"macos-arm64\"\n"
                            "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\n");
  CHECK(contains(message, "`nvidia` does not apply"));

  message = error_of(head + "name = \"r\"\nplatform = \"linux-x86_64\"\namd = { rocm = \"6.4\", gfx = [\"942\"] }\n");
  CHECK(contains(message, "invalid gfx target `942`"));

  message = error_of(head + "name = \"r\"\nplatform = \"linux-x86_64\"\namd = { gfx = [\"gfx942\"] }\n");
  CHECK(contains(message, "needs `rocm`"));

  message = error_of(head + "name = \"i\"\nplatform = \"linux-x86_64\"\nintel = { device-ip = \"12.55\" }\n");
  CHECK(contains(message, "invalid device IP `12.55`"));

  message = error_of(head + "name = \"p\"\nplatform = \"linux-x86_64\"\n"
                            "properties = { blas = { provider = [\"Open BLAS\"] } }\n");
  CHECK(contains(message, "invalid variant value `Open BLAS`"));

  message = error_of(head + "name = \"p\"\nplatform = \"linux-x86_64\"\n"
                            "properties = { Blas = { provider = [\"x\"] } }\n");
  CHECK(contains(message, "invalid variant namespace `Blas`"));

  message = error_of(head + "platform = \"linux-x86_64\"\n");
  CHECK(contains(message, "has no `name`"));
  CHECK(contains(message, ":4:1:"));

  message = error_of(head + "name = \"bad name\"\nplatform = \"linux-x86_64\"\n");
  CHECK(contains(message, "invalid target name `bad name`"));

  message = error_of(head + "name = \"x\"\n");
  CHECK(contains(message, "target `x` has no `platform`"));

  message = error_of(head + "name = \"x\"\nplatform = \"linux-x86_64\"\n" +
                     "[[tool.wvlock.target]]\nname = \"x\"\nplatform = \"linux-aarch64\"\n");
  CHECK(contains(message, "duplicate target name `x`"));
  CHECK(contains(message, ":7:1:"));

  message = error_of("[[tool.wvlock.target]]\nname = \"x\"\nplatform = \"linux-x86_64\"\n");
  CHECK(contains(message, "has no Python version"));

  message = error_of("[tool.wvlock]\nprerelease = \"sometimes\"\n");
  CHECK(contains(message, "invalid `prerelease` `sometimes`"));

  message = error_of("[tool.wvlock]\npython = \"three\"\n");
  CHECK(contains(message, "`pyproject.toml`:2:10:"));

  message = error_of("[project]\ndependencies = \"torch\"\n");
  CHECK(contains(message, "`project.dependencies` must be an array of strings"));

  message = error_of("[dependency-groups]\ndev = [{ include = \"x\" }]\n");
  CHECK(contains(message, "include-group"));

  message = error_of("[tool.wvlock]\npython = \"3.12\n");
  CHECK(contains(message, "`pyproject.toml`:2:"));
  CHECK(contains(message, "invalid TOML"));
}

TEST_CASE("project file: no tool.wvlock table is an empty configuration",
          "[targets][project_file]") {
  Result<ProjectConfig> config = parse_project_file("[project]\nname = \"x\"\n", "a/pyproject.toml");
  REQUIRE(config);
  CHECK(config->targets.empty());
  CHECK(config->project_dir == "a");
  for (std::string_view shorthand : kPlatformShorthands) CHECK(parse_platform(shorthand));
  CHECK_FALSE(parse_platform("Linux-x86_64"));
}

TEST_CASE("project file: default-groups, uv's setting", "[targets][project_file]") {
  const std::string groups = "[dependency-groups]\ndev = [\"pytest\"]\nLint = [\"ruff\"]\n";
  auto read = [&](const std::string& tool) {
    return parse_project_file(groups + "[tool.wvlock]\n" + tool, "pyproject.toml");
  };
  Result<ProjectConfig> absent = read("");
  REQUIRE(absent);
  CHECK_FALSE(absent->default_groups.has_value());
  CHECK(absent->default_group_names() == std::vector<std::string>{"dev"});
  Result<ProjectConfig> listed = read("default-groups = [\"lint\"]\n");
  REQUIRE(listed);
  CHECK(listed->default_group_names() == std::vector<std::string>{"lint"});
  Result<ProjectConfig> none = read("default-groups = []\n");
  REQUIRE(none);
  CHECK(none->default_group_names().empty());
  Result<ProjectConfig> all = read("default-groups = \"all\"\n");
  REQUIRE(all);
  CHECK(all->default_group_names() == std::vector<std::string>{"dev", "lint"});
  Result<ProjectConfig> unknown = read("default-groups = [\"docs\"]\n");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message ==
        "`pyproject.toml`:5:18: `tool.wvlock.default-groups` names group `docs`, which "
        "`[dependency-groups]` does not declare: declared groups are `dev`, `lint`");
  Result<ProjectConfig> word = read("default-groups = \"most\"\n");
  REQUIRE_FALSE(word);
  CHECK(word.error().message.find("must be a list of dependency groups or \"all\"") !=
        std::string::npos);
  Result<ProjectConfig> no_dev = parse_project_file("[dependency-groups]\nlint = []\n", "p.toml");
  REQUIRE(no_dev);
  CHECK(no_dev->default_group_names().empty());
}

TEST_CASE("project file: arbitrary bytes never crash the reader", "[targets][project_file]") {
  std::mt19937 random(1234);
  const std::string base(kDesignExample);
  int parsed = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text = base.substr(0, random() % (base.size() + 1));
    const int flips = static_cast<int>(random() % 4);
    for (int i = 0; i < flips && !text.empty(); ++i) {
      text[random() % text.size()] = static_cast<char>(random() % 256);
    }
    Result<ProjectConfig> config = parse_project_file(text, "fuzz.toml");
    if (config) ++parsed;
  }
  CHECK(parsed > 0);
}


TEST_CASE("project file: compute-capability takes a version, a list or a range; cpu-fallback",
          "[targets][project_file][range]") {
  auto read = [](const std::string& capability) {
    return parse_project_file(
        "[tool.wvlock]\npython = \"3.12\"\ncpu-fallback = true\n[[tool.wvlock.target]]\n"
        "name = \"g\"\nplatform = \"linux-x86_64\"\n"
        "nvidia = { cuda-driver = \"12.8\", compute-capability = " + capability + " }\n",
        "pyproject.toml");
  };
  Result<ProjectConfig> range = read("\">=9.0\"");
  REQUIRE(range);
  CHECK(range->cpu_fallback);
  const HostProfile& profile = range->targets.at(0).profile;
  CHECK(*profile.compute_capabilities.value == std::vector<MajorMinor>{{9, 0}});
  CHECK(*profile.compute_capability_from.value == MajorMinor{9, 0});
  // The lock-time providers see the range's lowest capability.
  CHECK(profile.highest_compute_capability() == MajorMinor{9, 0});
  // The lockfile's facts say the same and read back to the same target.
  auto facts = declared_facts(range->targets.at(0));
  CHECK(facts.at("compute-capability") == ">=9.0");
  auto again = target_from_facts("g", facts);
  REQUIRE(again);
  CHECK(again->profile.compute_capability_from == profile.compute_capability_from);
  CHECK(again->profile.compute_capabilities == profile.compute_capabilities);

  Result<ProjectConfig> list = read("[\"8.0\", \"9.0\", \"10.0\"]");
  REQUIRE(list);
  CHECK(list->targets.at(0).profile.compute_capabilities.value->size() == 3);
  CHECK_FALSE(list->targets.at(0).profile.compute_capability_from.known());

  Result<ProjectConfig> mixed = read("[\"7.5\", \">=9.0\"]");
  REQUIRE(mixed);
  CHECK(declared_facts(mixed->targets.at(0)).at("compute-capability") == "7.5,>=9.0");

  for (const char* bad : {"\"<9.0\"", "\">9.0\"", "[\">=8.0\", \">=9.0\"]", "\">=\""}) {
    INFO(bad);
    Result<ProjectConfig> refused = read(bad);
    REQUIRE_FALSE(refused);
    CHECK(contains(refused.error().message, "`nvidia.compute-capability`"));
  }
}

}  // namespace
}  // namespace wv::targets
