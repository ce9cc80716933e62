#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"
#include "targets/project_file.h"

namespace {

using wv::test::MemorySource;
using wv::test::MemoryWheel;

constexpr const char* kLinux = "cp312-cp312-manylinux_2_28_x86_64";

using wv::test::contexts;

const char* kCpuAndH100 = R"(
[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
[[tool.wvlock.target]]
name = "h100"
platform = "linux-x86_64"
glibc = "2.28"
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }
)";

wv::pkg::VariantsMetadata cuda_variants(std::vector<std::pair<std::string, std::string>> labels) {
  wv::pkg::VariantsMetadata metadata;
  metadata.schema_url = "https://variants-schema.wheelnext.dev/v0.0.3.json";
  metadata.default_priorities.namespaces = {"nvidia"};
  metadata.providers["nvidia"].requirements = {"nvidia-variant-provider"};
  metadata.variants["null"] = {};
  for (const auto& [label, property] : labels) {
    metadata.variants[label] = {*wv::pkg::parse_variant_property(property)};
  }
  return metadata;
}

wv::lock::ProjectRequirements project(std::vector<std::string> dependencies) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  requirements.dependencies = *wv::lock::parse_requirements(dependencies, "dependencies");
  return requirements;
}

// torch 2.9.0 with a CPU (null) build and a CUDA 12.8 build that needs nvidia-cublas.
void add_torch(MemorySource& source) {
  source.add({.name = "torch", .version = "2.9.0", .tags = kLinux, .label = "null",
              .requires_dist = {"filelock"}});
  source.add({.name = "torch", .version = "2.9.0", .tags = kLinux, .label = "cu128",
              .requires_dist = {"filelock", "nvidia-cublas-cu12==12.8.4.1"}});
  source.add({.name = "torch", .version = "2.9.0", .tags = kLinux, .label = "cu126",
              .requires_dist = {"filelock", "nvidia-cublas-cu12==12.8.4.1"}});
  source.add_variants("torch", "2.9.0",
                      cuda_variants({{"cu128", "nvidia :: cuda_version_lower_bound :: 12.8"},
                                     {"cu126", "nvidia :: cuda_version_lower_bound :: 12.6"}}));
  source.add({.name = "filelock", .version = "3.16.1"});
  source.add({.name = "filelock", .version = "3.15.0"});
  source.add({.name = "nvidia-cublas-cu12", .version = "12.8.4.1",
              .tags = "py3-none-manylinux_2_27_x86_64"});
}

const wv::lock::LockedPackage& package(const wv::lock::Lockfile& lockfile, const char* name) {
  for (const auto& entry : lockfile.packages) {
    if (entry.name.str() == name) return entry;
  }
  FAIL("no package " << name);
  return lockfile.packages.front();
}

}  // namespace

TEST_CASE("resolve: each target gets the build that fits its hardware", "[lock][resolve]") {
  MemorySource source;
  add_torch(source);
  wv::lock::Catalog catalog(source);
  auto targets = contexts(kCpuAndH100);
  auto outcome = wv::lock::resolve_targets(project({"torch>=2.8"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO((outcome->failures.empty() ? "" : outcome->failures[0].explanation));
  REQUIRE(outcome->lockfile);
  const auto& lockfile = *outcome->lockfile;
  const auto& torch = package(lockfile, "torch");
  CHECK(torch.version == "2.9.0");
  // cpu: the null build only; h100: cu128 first, then cu126 (same dependencies), not null.
  REQUIRE(torch.targets.at("cpu").wheels.size() == 1);
  CHECK(torch.targets.at("cpu").wheels[0].find("-null.whl") != std::string::npos);
  const auto& h100 = torch.targets.at("h100").wheels;
  REQUIRE(h100.size() == 2);
  CHECK(h100[0].find("-cu128.whl") != std::string::npos);
  CHECK(h100[1].find("-cu126.whl") != std::string::npos);
  // nvidia-cublas only where the CUDA build needs it
  const auto& cublas = package(lockfile, "nvidia-cublas-cu12");
  CHECK(cublas.targets.count("h100") == 1);
  CHECK(cublas.targets.count("cpu") == 0);
  CHECK(torch.targets.at("h100").dependencies ==
        std::vector<std::string>{"filelock==3.16.1", "nvidia-cublas-cu12==12.8.4.1"});
  CHECK(lockfile.find_target("h100")->roots == std::vector<std::string>{"torch==2.9.0"});
  // the inline variant metadata keeps the labels of listed wheels
  REQUIRE(torch.variants);
  CHECK(torch.variants->variants.count("cu128") == 1);
  // byte-identical on a second run
  wv::lock::Catalog again(source);
  auto second = wv::lock::resolve_targets(project({"torch>=2.8"}), targets, again, {});
  CHECK(wv::lock::write_lockfile(*second->lockfile) == wv::lock::write_lockfile(lockfile));
  // the lockfile reads back and validates
  CHECK(wv::lock::read_lockfile(wv::lock::write_lockfile(lockfile), "pylock.toml"));
}

TEST_CASE("resolve: a target falls back to an older version that has a build for it",
          "[lock][resolve]") {
  MemorySource source;
  // 2.9.0 only ships an SM 9.0 build; 2.8.0 ships an SM 8.0 one.
  source.add({.name = "flash-attn", .version = "2.9.0", .tags = kLinux, .label = "sm90"});
  source.add({.name = "flash-attn", .version = "2.8.0", .tags = kLinux, .label = "sm80"});
  auto sm = [](const char* label, const char* arch) {
    wv::pkg::VariantsMetadata metadata = cuda_variants({{label, arch}});
    metadata.variants.erase("null");
    return metadata;
  };
  source.add_variants("flash-attn", "2.9.0", sm("sm90", "nvidia :: sm_arch :: 90_real"));
  source.add_variants("flash-attn", "2.8.0", sm("sm80", "nvidia :: sm_arch :: 80_real"));
  wv::lock::Catalog catalog(source);
  auto targets = contexts(R"(
[[tool.wvlock.target]]
name = "a100"
platform = "linux-x86_64"
glibc = "2.28"
nvidia = { cuda-driver = "12.8", compute-capability = "8.0" }
[[tool.wvlock.target]]
name = "h100"
platform = "linux-x86_64"
glibc = "2.28"
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }
)");
  auto outcome = wv::lock::resolve_targets(project({"flash-attn"}), targets, catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  // a100 gets 2.8.0 (sm80); h100 gets 2.9.0 (sm90): the preference for a100's 2.8.0 would
  // not cost h100 its hardware class (both are variants), but 2.8.0 has no build for SM 9.0.
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("flash-attn"), "a100")->version == "2.8.0");
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("flash-attn"), "h100")->version == "2.9.0");
}

TEST_CASE("resolve: a CUDA-only package on a CPU target fails with the reason",
          "[lock][resolve]") {
  MemorySource source;
  source.add({.name = "flash-attn", .version = "2.8.3", .tags = kLinux, .label = "sm90"});
  wv::pkg::VariantsMetadata metadata = cuda_variants({{"sm90", "nvidia :: sm_arch :: 90_real"}});
  source.add_variants("flash-attn", "2.8.3", metadata);
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"flash-attn>=2.7"}), contexts(kCpuAndH100),
                                           catalog, {});
  REQUIRE(outcome);
  CHECK_FALSE(outcome->lockfile);
  REQUIRE(outcome->failures.size() == 1);
  CHECK(outcome->failures[0].target == "cpu");
  const std::string& why = outcome->failures[0].explanation;
  INFO(why);
  CHECK(why.find("no wheel for target cpu") != std::string::npos);
  CHECK(why.find("flash-attn") != std::string::npos);
  CHECK(why.find("sm_arch") != std::string::npos);
  CHECK(why.find("version solving failed") != std::string::npos);
}

TEST_CASE("resolve: a re-lock keeps locked versions unless upgraded, but never a lower class",
          "[lock][resolve]") {
  MemorySource source;
  add_torch(source);
  // torch 2.8.0: a CPU build only.
  source.add({.name = "torch", .version = "2.8.0", .tags = kLinux, .label = "null",
              .requires_dist = {"filelock"}});
  source.add_variants("torch", "2.8.0", cuda_variants({}));
  auto targets = contexts(kCpuAndH100);
  wv::lock::Lockfile previous;
  wv::lock::LockedPackage old_torch{.name = "torch"_pkg, .version = "2.8.0"};
  old_torch.targets["cpu"];
  old_torch.targets["h100"];
  wv::lock::LockedPackage old_filelock{.name = "filelock"_pkg, .version = "3.15.0"};
  old_filelock.targets["cpu"];
  previous.packages = {old_torch, old_filelock};

  wv::lock::ResolveOptions options;
  options.previous = &previous;
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"torch"}), targets, catalog, options);
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  const auto& lockfile = *outcome->lockfile;
  // cpu keeps 2.8.0 and filelock 3.15.0 (same class: null); h100 does not take 2.8.0, whose
  // only build for it is the CPU one, while 2.9.0 has a CUDA build.
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu")->version == "2.8.0");
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("filelock"), "cpu")->version == "3.15.0");
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("torch"), "h100")->version == "2.9.0");
  // --upgrade-package filelock moves it to the newest
  options.upgrade_packages = {"filelock"_pkg};
  wv::lock::Catalog fresh(source);
  auto upgraded = wv::lock::resolve_targets(project({"torch"}), targets, fresh, options);
  CHECK(upgraded->lockfile->find_package_for_target(*wv::pkg::parse_package_name("filelock"), "cpu")->version == "3.16.1");
  CHECK(upgraded->lockfile->find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu")->version == "2.8.0");
}

TEST_CASE("resolve: a locked package that cannot be looked up is no reason to fail a re-lock",
          "[lock][resolve]") {
  // The previous lock has rocm-only for h100 (pinned there to an index the cpu target does not
  // ask) and gone-now, which nothing needs any more. Re-locking offline, with neither page
  // cached, the preferences must not fail on them.
  MemorySource source;
  add_torch(source);
  source.unreachable = {"rocm-only", "gone-now"};
  auto targets = contexts(kCpuAndH100);
  wv::lock::Lockfile previous;
  wv::lock::LockedPackage old_torch{.name = "torch"_pkg, .version = "2.9.0"};
  old_torch.targets["cpu"];
  old_torch.targets["h100"];
  wv::lock::LockedPackage rocm_only{.name = "rocm-only"_pkg, .version = "3.5.0"};
  rocm_only.targets["h100"];
  wv::lock::LockedPackage gone{.name = "gone-now"_pkg, .version = "1.0"};
  gone.targets["cpu"];
  previous.packages = {old_torch, rocm_only, gone};
  wv::lock::ResolveOptions options;
  options.previous = &previous;
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"torch"}), targets, catalog, options);
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu")->version == "2.9.0");
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("rocm-only"), "cpu") == nullptr);
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("gone-now"), "cpu") == nullptr);
  // What the solver itself needs still fails the lock, with the lookup's error.
  wv::lock::Catalog again(source);
  auto failed = wv::lock::resolve_targets(project({"torch", "gone-now"}), targets, again, options);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code == wv::ErrorCode::kNetwork);
}

TEST_CASE("resolve: extras become proxy packages pinned to their base", "[lock][resolve]") {
  MemorySource source;
  source.add({.name = "requests", .version = "2.32.3", .requires_dist = {"idna", "pysocks ; extra == 'socks'"},
              .provides_extra = {"socks"}});
  source.add({.name = "requests", .version = "2.31.0", .requires_dist = {"idna"}});
  source.add({.name = "idna", .version = "3.10"});
  source.add({.name = "pysocks", .version = "1.7.1"});
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"requests[socks]"}), contexts(kCpuAndH100),
                                           catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  const auto& requests = package(*outcome->lockfile, "requests");
  CHECK(requests.version == "2.32.3");
  CHECK(requests.targets.at("cpu").dependencies == std::vector<std::string>{"idna==3.10"});
  CHECK(requests.targets.at("cpu").extra_dependencies.at("socks") ==
        std::vector<std::string>{"pysocks==1.7.1"});
  CHECK(outcome->lockfile->find_target("cpu")->roots ==
        std::vector<std::string>{"requests==2.32.3", "requests[socks]==2.32.3"});
  CHECK(outcome->lockfile->closure("cpu", {}, {}).size() == 3);
}

TEST_CASE("resolve: requires-python and yanked versions", "[lock][resolve]") {
  MemorySource source;
  source.add({.name = "a", .version = "3.0", .requires_python = ">=3.13"});
  source.add({.name = "a", .version = "2.0", .yanked = true});
  source.add({.name = "a", .version = "1.0"});
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"a"}), contexts(kCpuAndH100), catalog, {});
  REQUIRE(outcome->lockfile);
  CHECK(package(*outcome->lockfile, "a").version == "1.0");
  wv::lock::Catalog pinned_catalog(source);
  auto pinned = wv::lock::resolve_targets(project({"a==2.0"}), contexts(kCpuAndH100),
                                          pinned_catalog, {});
  REQUIRE(pinned->lockfile);
  CHECK(package(*pinned->lockfile, "a").version == "2.0");
  wv::lock::Catalog too_new_catalog(source);
  auto too_new = wv::lock::resolve_targets(project({"a>=3"}), contexts(kCpuAndH100),
                                           too_new_catalog, {});
  REQUIRE(too_new->failures.size() == 2);
  INFO(too_new->failures[0].explanation);
  CHECK(too_new->failures[0].explanation.find("requires Python >=3.13") != std::string::npos);
}

TEST_CASE("resolve: exact ROCm versions, x86-64 levels and PEP 825 ties", "[lock][resolve]") {
  MemorySource source;
  wv::pkg::VariantsMetadata rocm;
  rocm.default_priorities.namespaces = {"amd"};
  rocm.variants["null"] = {};
  for (const char* version : {"6.3", "6.4"}) {
    rocm.variants[std::string("rocm") + version] = {
        *wv::pkg::parse_variant_property("amd :: gfx_arch :: gfx942"),
        *wv::pkg::parse_variant_property(std::string("amd :: rocm_version :: ") + version)};
    source.add({.name = "torch", .version = "2.9.0", .tags = kLinux,
                .label = std::string("rocm") + version});
  }
  source.add({.name = "torch", .version = "2.9.0", .tags = kLinux, .label = "null"});
  source.add_variants("torch", "2.9.0", rocm);

  wv::pkg::VariantsMetadata levels;
  levels.default_priorities.namespaces = {"x86_64"};
  levels.variants["null"] = {};
  for (const char* level : {"v1", "v2", "v3", "v4"}) {
    levels.variants[std::string("x86_64_") + level] = {
        *wv::pkg::parse_variant_property(std::string("x86_64 :: level :: ") + level)};
    source.add({.name = "numpy", .version = "2.3.3", .tags = kLinux,
                .label = std::string("x86_64_") + level});
  }
  // Two labels with the same property: PEP 825 breaks the tie by label.
  levels.variants["b_v3"] = {*wv::pkg::parse_variant_property("x86_64 :: level :: v3")};
  source.add({.name = "numpy", .version = "2.3.3", .tags = kLinux, .label = "b_v3"});
  source.add_variants("numpy", "2.3.3", levels);

  wv::lock::Catalog catalog(source);
  auto targets = contexts(R"(
[[tool.wvlock.target]]
name = "mi300"
platform = "linux-x86_64"
glibc = "2.28"
x86-64-level = 3
amd = { rocm = "6.4", gfx = ["gfx942"] }
[[tool.wvlock.target]]
name = "mi250"
platform = "linux-x86_64"
glibc = "2.28"
amd = { rocm = "6.3", gfx = ["gfx942"] }
)");
  auto outcome = wv::lock::resolve_targets(project({"torch", "numpy"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO((outcome->failures.empty() ? "" : outcome->failures[0].explanation));
  REQUIRE(outcome->lockfile);
  const auto& torch = package(*outcome->lockfile, "torch");
  // exact ROCm versions: each target gets its own build first
  CHECK(torch.targets.at("mi300").wheels.front().find("-rocm6.4.whl") != std::string::npos);
  CHECK(torch.targets.at("mi250").wheels.front().find("-rocm6.3.whl") != std::string::npos);
  // x86-64 level 3: the v3 builds first (b_v3 before x86_64_v3: equal properties, so label
  // order), then v2, then v1; the v4 build (same dependencies, not supported by the declared level) is kept last for
  // hosts that have it.
  const auto& numpy = package(*outcome->lockfile, "numpy").targets.at("mi300").wheels;
  std::vector<std::string> labels;
  for (const std::string& wheel : numpy) {
    labels.push_back(wheel.substr(wheel.rfind('-') + 1, wheel.size() - wheel.rfind('-') - 5));
  }
  CHECK(labels == std::vector<std::string>{"b_v3", "x86_64_v3", "x86_64_v2", "x86_64_v1",
                                           "x86_64_v4"});
  // no level declared: the psABI baseline v1
  const auto& baseline = package(*outcome->lockfile, "numpy").targets.at("mi250").wheels;
  CHECK(baseline.front().find("x86_64_v1") != std::string::npos);
}

TEST_CASE("resolve: markers on values that are not versions evaluate as packaging 26 does",
          "[lock][resolve]") {
  // A declared target knows no platform_release (""); a live Linux host reports
  // `6.1.0-18-amd64`. Neither is a version, so `platform_release >= "5"` is simply false, as
  // pip evaluates it (packaging 23.0 raised InvalidVersion and the lock failed). Other
  // variables compare as strings: `sys_platform >= "linux"` means equal.
  MemorySource source;
  source.add({.name = "app", .version = "1.0",
              .requires_dist = {"kernel-helper ; platform_release >= '5'",
                                "linux-only ; sys_platform >= 'linux'",
                                "never ; sys_platform > 'darwin'"}});
  source.add({.name = "kernel-helper", .version = "1.0"});
  source.add({.name = "linux-only", .version = "1.0"});
  source.add({.name = "never", .version = "1.0"});
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project({"app"}), contexts(kCpuAndH100), catalog, {});
  REQUIRE(outcome);
  INFO((outcome->failures.empty() ? "" : outcome->failures[0].explanation));
  REQUIRE(outcome->lockfile);
  CHECK(package(*outcome->lockfile, "app").targets.at("cpu").dependencies ==
        std::vector<std::string>{"linux-only==1.0"});
}

TEST_CASE("resolve: the lock records default-groups; only a non-default choice enters the hash",
          "[lock][resolve]") {
  MemorySource source;
  source.add({.name = "idna", .version = "3.10"});
  source.add({.name = "pytest", .version = "8.4.2"});
  wv::lock::ProjectRequirements requirements = project({"idna"});
  requirements.dependency_groups["dev"_pkg] = *wv::lock::parse_requirements({"pytest"}, "dev");
  requirements.dependency_groups["lint"_pkg] = {};
  const auto targets = contexts(kCpuAndH100);
  // uv's default (`dev`, when declared) adds nothing to the hash: the hash of a project that
  // does not set `default-groups` is the one it had before the setting existed.
  requirements.default_groups = {"dev"_pkg};
  const std::string implied = wv::lock::input_hash(requirements, targets, {});
  requirements.dependency_groups.erase("dev"_pkg);
  requirements.default_groups.clear();
  const std::string without_dev = wv::lock::input_hash(requirements, targets, {});
  requirements.dependency_groups["dev"_pkg] = *wv::lock::parse_requirements({"pytest"}, "dev");
  requirements.default_groups = {"dev"_pkg};
  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(requirements, targets, catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  CHECK(outcome->lockfile->default_groups == std::vector<std::string>{"dev"});
  CHECK(wv::lock::write_lockfile(*outcome->lockfile).find("default-groups = [\"dev\"]\n") !=
        std::string::npos);
  requirements.default_groups = {"lint"_pkg};
  CHECK(wv::lock::input_hash(requirements, targets, {}) != implied);
  requirements.default_groups.clear();
  CHECK(wv::lock::input_hash(requirements, targets, {}) != implied);
  CHECK(without_dev != implied);  // the group itself is an input
}
