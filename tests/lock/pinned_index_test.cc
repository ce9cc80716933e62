// Packages pinned to a named index per target (DESIGN.md §2.1, `[tool.wvlock.sources]`): the
// pinned index alone lists the package for that target, the pin is per package, the lock keeps
// one entry per (name, version, index) with the index's name, and a pinned index that lacks a
// fitting version fails the target with a note, never falling back to the default source.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lock/resolve.h"
#include "memory_source.h"
#include "target_contexts.h"
#include "tests/support/package_name.h"

namespace {

using wv::lock::LockedPackage;
using wv::lock::Lockfile;
using wv::test::MemorySource;

constexpr const char* kLinux = "cp312-cp312-manylinux_2_28_x86_64";
constexpr const char* kDefaultIndex = "https://pypi.example.org/simple";
constexpr const char* kCpuIndex = "https://download.example.org/whl/cpu";

const char* kCpuAndGpu = R"(
[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
[[tool.wvlock.target]]
name = "gpu"
platform = "linux-x86_64"
glibc = "2.28"
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }
)";

// `default`: PyPI-shaped, its Linux torch the CUDA build.
MemorySource default_source() {
  MemorySource source(kDefaultIndex, "default", "https://files.pypi.example.org/");
  source.add({.name = "torch", .version = "2.9.0", .tags = kLinux,
              .requires_dist = {"numpy", "nvidia-cublas-cu12==12.8.4.1"}});
  source.add({.name = "numpy", .version = "2.1.0", .tags = kLinux});
  source.add({.name = "nvidia-cublas-cu12", .version = "12.8.4.1",
              .tags = "py3-none-manylinux_2_27_x86_64"});
  return source;
}

// `cpu-index`: download.pytorch.org/whl/cpu-shaped, with a local-version torch and an old numpy.
MemorySource cpu_source(const char* torch_version = "2.9.0+cpu") {
  MemorySource source(kCpuIndex, "cpu-index", "https://download.example.org/whl/cpu/files/");
  source.add({.name = "torch", .version = torch_version, .tags = kLinux, .requires_dist = {"numpy"}});
  source.add({.name = "numpy", .version = "1.26.4", .tags = kLinux});
  return source;
}

wv::lock::ProjectRequirements project(std::vector<std::string> dependencies) {
  wv::lock::ProjectRequirements requirements;
  requirements.name = "demo";
  requirements.dependencies = *wv::lock::parse_requirements(dependencies, "dependencies");
  return requirements;
}

// The targets with torch pinned to `cpu-index` on `cpu`.
std::vector<wv::lock::TargetContext> pinned_targets(const char* index = "cpu-index") {
  auto targets = wv::test::contexts(kCpuAndGpu);
  REQUIRE(targets.size() == 2);
  REQUIRE(targets[0].name == "cpu");
  targets[0].pinned_indexes = {{"torch"_pkg, index}};
  return targets;
}

std::vector<const LockedPackage*> entries(const Lockfile& lockfile, std::string_view name) {
  std::vector<const LockedPackage*> out;
  for (const LockedPackage& package : lockfile.packages) {
    if (package.name.str() == name) out.push_back(&package);
  }
  return out;
}

std::string failures_text(const wv::lock::ResolveOutcome& outcome) {
  std::string text;
  for (const auto& failure : outcome.failures) text += failure.target + ": " + failure.explanation + "\n";
  return text;
}

}  // namespace

TEST_CASE("pinned index: a target's pinned package comes from its index, the rest from the default",
          "[lock][pinned]") {
  MemorySource pypi = default_source();
  MemorySource cpu = cpu_source();
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets();
  auto outcome = wv::lock::resolve_targets(project({"torch", "numpy"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO(failures_text(*outcome));
  REQUIRE(outcome->lockfile);
  const Lockfile& lockfile = *outcome->lockfile;

  // cpu: the +cpu build from cpu-index, so no nvidia-cublas; numpy is not pinned: the default's.
  const LockedPackage* cpu_torch = lockfile.find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu");
  REQUIRE(cpu_torch != nullptr);
  CHECK(cpu_torch->version == "2.9.0+cpu");
  CHECK(cpu_torch->index == kCpuIndex);
  CHECK(cpu_torch->index_name == "cpu-index");
  REQUIRE(cpu_torch->wheels.size() == 1);
  CHECK(cpu_torch->wheels[0].name.find("+cpu") != std::string::npos);
  CHECK(cpu_torch->wheels[0].url.rfind("https://download.example.org/whl/cpu/files/", 0) == 0);
  CHECK(cpu_torch->targets.at("cpu").dependencies == std::vector<std::string>{"numpy==2.1.0"});
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("nvidia-cublas-cu12"), "cpu") == nullptr);
  const LockedPackage* cpu_numpy = lockfile.find_package_for_target(*wv::pkg::parse_package_name("numpy"), "cpu");
  REQUIRE(cpu_numpy != nullptr);
  CHECK(cpu_numpy->version == "2.1.0");
  CHECK(cpu_numpy->index == kDefaultIndex);
  CHECK(cpu_numpy->index_name == "default");

  // gpu: no pin: the default's torch with nvidia-cublas.
  const LockedPackage* gpu_torch = lockfile.find_package_for_target(*wv::pkg::parse_package_name("torch"), "gpu");
  REQUIRE(gpu_torch != nullptr);
  CHECK(gpu_torch->version == "2.9.0");
  CHECK(gpu_torch->index == kDefaultIndex);
  CHECK(gpu_torch->index_name == "default");
  CHECK(gpu_torch->targets.at("gpu").dependencies ==
        std::vector<std::string>{"numpy==2.1.0", "nvidia-cublas-cu12==12.8.4.1"});
  const LockedPackage* cublas = lockfile.find_package_for_target(*wv::pkg::parse_package_name("nvidia-cublas-cu12"), "gpu");
  REQUIRE(cublas != nullptr);
  CHECK(cublas->targets.count("cpu") == 0);

  // Two torch entries, distinct indexes, one target each; one numpy entry for both.
  auto torches = entries(lockfile, "torch");
  REQUIRE(torches.size() == 2);
  CHECK(torches[0]->index != torches[1]->index);
  for (const LockedPackage* torch : torches) CHECK(torch->targets.size() == 1);
  auto numpys = entries(lockfile, "numpy");
  REQUIRE(numpys.size() == 1);
  CHECK(numpys[0]->targets.size() == 2);
  // The old numpy of cpu-index is never locked.
  for (const LockedPackage& package : lockfile.packages) CHECK(package.version != "1.26.4");

  // The pins are part of the input hash.
  auto unpinned = wv::test::contexts(kCpuAndGpu);
  CHECK(wv::lock::input_hash(project({"torch", "numpy"}), unpinned, {}) != lockfile.input_hash);
  CHECK(wv::lock::input_hash(project({"torch", "numpy"}), targets, {}) == lockfile.input_hash);
}

TEST_CASE("pinned index: the lock writes index-name and reads it back", "[lock][pinned]") {
  MemorySource pypi = default_source();
  MemorySource cpu = cpu_source();
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets();
  auto outcome = wv::lock::resolve_targets(project({"torch", "numpy"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO(failures_text(*outcome));
  REQUIRE(outcome->lockfile);
  std::string text = wv::lock::write_lockfile(*outcome->lockfile);
  INFO(text);
  CHECK(text.find("[packages.tool.wvlock]") != std::string::npos);
  CHECK(text.find("index-name = \"cpu-index\"") != std::string::npos);
  CHECK(text.find("index-name = \"default\"") != std::string::npos);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  INFO((read ? "" : read.error().to_string()));
  REQUIRE(read);
  const LockedPackage* cpu_torch = read->find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu");
  REQUIRE(cpu_torch != nullptr);
  CHECK(cpu_torch->version == "2.9.0+cpu");
  CHECK(cpu_torch->index_name == "cpu-index");
  CHECK(cpu_torch->index == kCpuIndex);
  const LockedPackage* gpu_torch = read->find_package_for_target(*wv::pkg::parse_package_name("torch"), "gpu");
  REQUIRE(gpu_torch != nullptr);
  CHECK(gpu_torch->index_name == "default");
  CHECK(read->find_package_for_target(*wv::pkg::parse_package_name("numpy"), "cpu")->index_name == "default");
  CHECK(wv::lock::write_lockfile(*read) == text);

  // A package from an unnamed source (find-links) writes no index-name.
  MemorySource plain;
  plain.add({.name = "numpy", .version = "2.1.0", .tags = kLinux});
  wv::lock::Catalog plain_catalog(plain);
  auto unnamed = wv::lock::resolve_targets(project({"numpy"}), wv::test::contexts(kCpuAndGpu),
                                           plain_catalog, {});
  REQUIRE(unnamed);
  REQUIRE(unnamed->lockfile);
  CHECK(wv::lock::write_lockfile(*unnamed->lockfile).find("index-name") == std::string::npos);
}

TEST_CASE("pinned index: `torch==2.9.0` is satisfied by the local version 2.9.0+cpu",
          "[lock][pinned]") {
  MemorySource pypi = default_source();
  MemorySource cpu = cpu_source();
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets();
  auto outcome = wv::lock::resolve_targets(project({"torch==2.9.0", "numpy"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO(failures_text(*outcome));
  REQUIRE(outcome->lockfile);
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu")->version == "2.9.0+cpu");
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("torch"), "gpu")->version == "2.9.0");
  // A requirement with the local label is exact: the gpu target's default torch does not fit.
  wv::lock::Catalog exact_catalog(pypi);
  exact_catalog.add_pinned_index("cpu-index", cpu);
  auto exact = wv::lock::resolve_targets(project({"torch==2.9.0+cpu"}), targets, exact_catalog, {});
  REQUIRE(exact);
  CHECK_FALSE(exact->lockfile);
  REQUIRE(exact->failures.size() == 1);
  CHECK(exact->failures[0].target == "gpu");
}

TEST_CASE("pinned index: a pinned index without a fitting version fails the target, no fallback",
          "[lock][pinned]") {
  MemorySource pypi = default_source();
  SECTION("only an older version on the pinned index") {
    MemorySource cpu = cpu_source("2.8.0+cpu");
    wv::lock::Catalog catalog(pypi);
    catalog.add_pinned_index("cpu-index", cpu);
    auto targets = pinned_targets();
    auto outcome = wv::lock::resolve_targets(project({"torch>=2.9"}), targets, catalog, {});
    REQUIRE(outcome);
    CHECK_FALSE(outcome->lockfile);  // the default's torch 2.9.0 is not taken for cpu
    REQUIRE(outcome->failures.size() == 1);
    CHECK(outcome->failures[0].target == "cpu");
    const std::string& why = outcome->failures[0].explanation;
    INFO(why);
    CHECK(why.find("torch") != std::string::npos);
    CHECK(why.find("note: torch comes only from index `cpu-index` for target cpu "
                   "(pinned in [tool.wvlock.sources])") != std::string::npos);
  }
  SECTION("the pinned index does not have the project at all") {
    MemorySource empty(kCpuIndex, "cpu-index", "https://download.example.org/whl/cpu/files/");
    empty.add({.name = "numpy", .version = "1.26.4", .tags = kLinux});
    wv::lock::Catalog catalog(pypi);
    catalog.add_pinned_index("cpu-index", empty);
    auto targets = pinned_targets();
    auto outcome = wv::lock::resolve_targets(project({"torch", "numpy"}), targets, catalog, {});
    REQUIRE(outcome);
    CHECK_FALSE(outcome->lockfile);
    REQUIRE(outcome->failures.size() == 1);
    CHECK(outcome->failures[0].target == "cpu");
    const std::string& why = outcome->failures[0].explanation;
    INFO(why);
    CHECK(why.find("note: torch comes only from index `cpu-index` for target cpu") !=
          std::string::npos);
  }
  SECTION("the pinned index has the version but no wheel for the target") {
    MemorySource cpu(kCpuIndex, "cpu-index", "https://download.example.org/whl/cpu/files/");
    cpu.add({.name = "torch", .version = "2.9.0", .tags = "cp312-none-macosx_11_0_arm64"});
    wv::lock::Catalog catalog(pypi);
    catalog.add_pinned_index("cpu-index", cpu);
    auto targets = pinned_targets();
    auto outcome = wv::lock::resolve_targets(project({"torch"}), targets, catalog, {});
    REQUIRE(outcome);
    CHECK_FALSE(outcome->lockfile);
    REQUIRE(outcome->failures.size() == 1);
    CHECK(outcome->failures[0].target == "cpu");
    INFO(outcome->failures[0].explanation);
    CHECK(outcome->failures[0].explanation.find("index `cpu-index` for target cpu") !=
          std::string::npos);
  }
}

TEST_CASE("pinned index: pinning to an index that is not registered is an error",
          "[lock][pinned]") {
  MemorySource pypi = default_source();
  MemorySource cpu = cpu_source();
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets("cuda-index");
  auto outcome = wv::lock::resolve_targets(project({"torch"}), targets, catalog, {});
  REQUIRE_FALSE(outcome);
  INFO(outcome.error().to_string());
  CHECK(outcome.error().code == wv::ErrorCode::kInvalidInput);
  CHECK(outcome.error().message.find("torch") != std::string::npos);
  CHECK(outcome.error().message.find("`cuda-index`") != std::string::npos);
  // The catalog says the same when asked directly.
  auto listing = catalog.listing(*wv::pkg::parse_package_name("torch"), "cuda-index");
  REQUIRE_FALSE(listing);
  CHECK(listing.error().code == wv::ErrorCode::kInvalidInput);
}

TEST_CASE("pinned index: the same version from two indexes is two entries, never mixed",
          "[lock][pinned]") {
  MemorySource pypi = default_source();
  // cpu-index serves a plain 2.9.0 too (other files, no nvidia dependency).
  MemorySource cpu(kCpuIndex, "cpu-index", "https://download.example.org/whl/cpu/files/");
  cpu.add({.name = "torch", .version = "2.9.0", .tags = kLinux, .requires_dist = {"numpy"}});
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets();
  auto outcome = wv::lock::resolve_targets(project({"torch"}), targets, catalog, {});
  REQUIRE(outcome);
  INFO(failures_text(*outcome));
  REQUIRE(outcome->lockfile);
  auto torches = entries(*outcome->lockfile, "torch");
  REQUIRE(torches.size() == 2);
  for (const LockedPackage* torch : torches) {
    CHECK(torch->version == "2.9.0");
    REQUIRE(torch->targets.size() == 1);
    REQUIRE(torch->wheels.size() == 1);
    const bool is_cpu = torch->targets.count("cpu") == 1;
    CHECK(torch->index == (is_cpu ? kCpuIndex : kDefaultIndex));
    CHECK(torch->index_name == (is_cpu ? "cpu-index" : "default"));
    CHECK(torch->wheels[0].url.rfind(is_cpu ? "https://download.example.org/"
                                            : "https://files.pypi.example.org/", 0) == 0);
  }
  CHECK(outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("nvidia-cublas-cu12"), "cpu") == nullptr);
  // Both entries read back.
  std::string text = wv::lock::write_lockfile(*outcome->lockfile);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  INFO(text);
  INFO((read ? "" : read.error().to_string()));
  REQUIRE(read);
  CHECK(entries(*read, "torch").size() == 2);
  CHECK(read->find_package_for_target(*wv::pkg::parse_package_name("torch"), "cpu")->index_name == "cpu-index");
  CHECK(read->find_package_for_target(*wv::pkg::parse_package_name("torch"), "gpu")->index_name == "default");
  CHECK(wv::lock::write_lockfile(*read) == text);
}

TEST_CASE("pinned index: each locked version records the index that listed it",
          "[lock][pinned]") {
  // A source whose listing takes versions from two indexes (what IndexSource lists with
  // unsafe-best-match: 1.0 from the first index, 2.0 only on the later one).
  MemorySource merged("https://first.example.org/simple", "first", "https://first.example.org/f/");
  merged.add({.name = "demo", .version = "1.0"});
  merged.index = "https://second.example.org/simple";
  merged.index_name = "second";
  merged.files_url = "https://second.example.org/f/";
  merged.add({.name = "demo", .version = "2.0"});
  wv::lock::Catalog catalog(merged);
  auto outcome = wv::lock::resolve_targets(project({"demo"}), wv::test::contexts(kCpuAndGpu),
                                           catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->lockfile);
  const LockedPackage* demo = outcome->lockfile->find_package_for_target(*wv::pkg::parse_package_name("demo"), "cpu");
  REQUIRE(demo != nullptr);
  CHECK(demo->version == "2.0");
  CHECK(demo->wheels[0].url.rfind("https://second.example.org/f/", 0) == 0);
  // The entry names the index its files came from, not the listing's first file's.
  CHECK(demo->index == "https://second.example.org/simple");
  CHECK(demo->index_name == "second");
}

TEST_CASE("pinned index: the note is only about pinned packages the failure names",
          "[lock][pinned]") {
  // torch is pinned for cpu but not needed; torchvision, which no index has, fails both
  // targets. "torch" is only a part of "torchvision": no note about torch's index.
  MemorySource pypi = default_source();
  MemorySource cpu = cpu_source();
  wv::lock::Catalog catalog(pypi);
  catalog.add_pinned_index("cpu-index", cpu);
  auto targets = pinned_targets();
  auto outcome = wv::lock::resolve_targets(project({"torchvision"}), targets, catalog, {});
  REQUIRE(outcome);
  REQUIRE(outcome->failures.size() == 2);
  for (const auto& failure : outcome->failures) {
    INFO(failure.target << ": " << failure.explanation);
    CHECK(failure.explanation.find("torchvision") != std::string::npos);
    CHECK(failure.explanation.find("note: torch comes only from index") == std::string::npos);
  }
}
