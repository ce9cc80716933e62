// Target selection by declared hardware over plain (non-variant) wheels, as today's backend
// indexes publish them (DESIGN.md §1, docs/targets.md "Which target a host gets").
#include <catch2/catch.hpp>

#include "install/select.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {
namespace {

using targets::FactSource;
using targets::HostProfile;
using targets::MajorMinor;

const char* kTorchCpu = "torch-2.9.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl";
const char* kTorchCuda = "torch-2.9.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl";

/// One plain torch wheel per target; targets in the order given, each with its facts.
lock::Lockfile plain_lock(const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& targets) {
  lock::Lockfile lockfile;
  lock::LockedPackage cpu, cuda;
  cpu.name = cuda.name = "torch";
  cpu.version = "2.9.0+cpu";
  cuda.version = "2.9.0+cu128";
  for (auto [package, name] : {std::pair{&cpu, kTorchCpu}, std::pair{&cuda, kTorchCuda}}) {
    lock::LockedFile file;
    file.name = name;
    file.url = std::string("https://example.org/") + name;
    file.sha256 = std::string(64, 'a');
    package->wheels.push_back(file);
  }
  for (const auto& [name, extra] : targets) {
    std::map<std::string, std::string> facts = {
        {"platform", "linux-x86_64"}, {"python", "3.12"}, {"glibc", "2.28"}};
    for (const auto& [key, value] : extra) facts[key] = value;
    lock::LockedTarget target;
    target.name = name;
    auto declared = targets::target_from_facts(name, facts);
    REQUIRE(declared.has_value());
    target.declared = std::move(*declared);
    const bool gpu = facts.count("cuda-driver") || facts.count("compute-capability");
    lock::LockedPackage& package = gpu ? cuda : cpu;
    package.targets[name].wheels = {gpu ? kTorchCuda : kTorchCpu};
    target.roots = {"torch==" + package.version};
    lockfile.targets.push_back(std::move(target));
  }
  for (auto* package : {&cpu, &cuda}) {
    if (!package->targets.empty()) lockfile.packages.push_back(*package);
  }
  REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  return lockfile;
}

HostProfile host(std::vector<MajorMinor> gpus = {}, std::optional<MajorMinor> driver = {}) {
  HostProfile profile;
  profile.os.set(targets::OsKind::kLinux, FactSource::kUname);
  profile.arch.set("x86_64", FactSource::kUname);
  profile.libc.set(targets::LibcKind::kGlibc, FactSource::kLibc);
  profile.libc_version.set({2, 35}, FactSource::kLibc);
  profile.python_version.set({3, 12}, FactSource::kDeclared);
  profile.x86_64_level.set(3, FactSource::kCpuid);
  if (!gpus.empty()) profile.compute_capabilities.set(gpus, FactSource::kNvml);
  if (driver) profile.cuda_driver_version.set(*driver, FactSource::kNvml);
  return profile;
}

std::string reason(const std::vector<TargetVerdict>& verdicts, const std::string& name) {
  for (const TargetVerdict& verdict : verdicts) {
    if (verdict.name == name) return verdict.reason;
  }
  return "(no verdict)";
}

const std::map<std::string, std::string> kH100 = {{"cuda-driver", "12.8"},
                                                  {"compute-capability", "9.0"}};

}  // namespace

TEST_CASE("select hardware: a GPU target declared first never goes to a host without a GPU",
          "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"h100", kH100}, {"cpu", {}}});
  auto selection = select_target(lockfile, host());
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK(selection->wheels.front().file->name == kTorchCpu);
  CHECK(reason(selection->verdicts, "h100") == "no NVIDIA GPU, the target declares one");
}

TEST_CASE("select hardware: a host with the declared GPU gets it even when cpu is declared first",
          "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"cpu", {}}, {"h100", kH100}});
  auto selection = select_target(lockfile, host({{9, 0}}, MajorMinor{12, 9}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "h100");
  CHECK(selection->wheels.front().file->name == kTorchCuda);
}

TEST_CASE("select hardware: the closest declared compute capability wins", "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"a100", {{"cuda-driver", "12.8"}, {"compute-capability", "8.0"}}},
                                        {"l40", {{"cuda-driver", "12.8"}, {"compute-capability", "8.9"}}},
                                        {"cpu", {}}});
  SECTION("8.9 is closer to an RTX 4090 than 8.0") {
    auto selection = select_target(lockfile, host({{8, 9}}, MajorMinor{12, 8}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "l40");
  }
  SECTION("an 8.6 GPU cannot run 8.9 code: a100 serves it") {
    auto selection = select_target(lockfile, host({{8, 6}}, MajorMinor{12, 8}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "a100");
    CHECK(reason(selection->verdicts, "l40") ==
          "GPU compute capability 8.6, the target is built for 8.9 (runs on the same major, "
          "equal or newer minor)");
  }
  SECTION("a newer major (10.0) is not served by 8.x code") {
    auto selection = select_target(lockfile, host({{10, 0}}, MajorMinor{12, 8}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "cpu");
  }
}

TEST_CASE("select hardware: the higher declared driver the host meets wins", "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"cu124", {{"cuda-driver", "12.4"}, {"compute-capability", "9.0"}}},
                                        {"cu128", kH100}});
  auto selection = select_target(lockfile, host({{9, 0}}, MajorMinor{12, 8}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cu128");
  auto older = select_target(lockfile, host({{9, 0}}, MajorMinor{12, 6}));
  REQUIRE(older.has_value());
  CHECK(older->target == "cu124");
}

TEST_CASE("select hardware: every visible GPU must be served", "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"h100", kH100}, {"cpu", {}}});
  auto selection = select_target(lockfile, host({{9, 0}, {7, 5}}, MajorMinor{12, 8}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK(reason(selection->verdicts, "h100").find("GPU compute capability 7.5") == 0);
}

TEST_CASE("select hardware: a declared x86-64 level is a requirement", "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"v4", {{"x86-64-level", "4"}}}, {"v2", {{"x86-64-level", "2"}}}});
  auto selection = select_target(lockfile, host());  // an x86-64-v3 host
  REQUIRE(selection.has_value());
  CHECK(selection->target == "v2");
  CHECK(reason(selection->verdicts, "v4") == "x86-64 level v3, the target needs v4 or higher");
}

TEST_CASE("select hardware: no fitting target is refused with one line per target",
          "[install][select]") {
  lock::Lockfile lockfile = plain_lock({{"h100", kH100}, {"a100", {{"compute-capability", "8.0"}}}});
  auto selection = select_target(lockfile, host());
  REQUIRE_FALSE(selection.has_value());
  CHECK(selection.error().message == "no target of the lock fits this host");
  const auto& notes = selection.error().notes;
  REQUIRE(notes.size() == 3);
  CHECK(notes[1] == "h100: no NVIDIA GPU, the target declares one");
  CHECK(notes[2] == "a100: no NVIDIA GPU, the target declares one");
  // --target still forces, and --no-verify installs it anyway.
  SelectOptions forced;
  forced.forced_target = "h100";
  forced.verify = false;
  auto anyway = select_target(lockfile, host(), forced);
  REQUIRE(anyway.has_value());
  CHECK(anyway->target == "h100");
}
}  // namespace wv::install
