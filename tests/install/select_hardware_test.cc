// Target selection by declared hardware over plain (non-variant) wheels, as today's backend
// indexes publish them (DESIGN.md §1, docs/targets.md "Which target a host gets").
#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "src/install/select.h"
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
  cpu.name = cuda.name = "torch"_pkg;
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
  SECTION("a newer major (10.0) is not served by 8.x code: no silent CPU build") {
    auto refused = select_target(lockfile, host({{10, 0}}, MajorMinor{12, 8}));
    REQUIRE_FALSE(refused.has_value());
    SelectOptions allowed;
    allowed.allow_cpu_fallback = true;
    auto selection = select_target(lockfile, host({{10, 0}}, MajorMinor{12, 8}), allowed);
    REQUIRE(selection.has_value());
    CHECK(selection->target == "cpu");
    REQUIRE(selection->fallback.has_value());
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
  SelectOptions allowed;
  allowed.allow_cpu_fallback = true;
  auto selection = select_target(lockfile, host({{9, 0}, {7, 5}}, MajorMinor{12, 8}), allowed);
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

namespace {

bool has_note(const Error& error, const std::string& text) {
  for (const std::string& note : error.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

lock::Lockfile b200_lock(const std::string& h100_capability) {
  return plain_lock({{"cpu", {}},
                     {"a100", {{"cuda-driver", "12.8"}, {"compute-capability", "8.0"}}},
                     {"h100", {{"cuda-driver", "12.8"}, {"compute-capability", h100_capability}}}});
}

}  // namespace

TEST_CASE("select hardware: a GPU host no GPU target serves is refused, with the fixes",
          "[install][select][fallback]") {
  const HostProfile b200 = host({{10, 0}}, MajorMinor{12, 8});
  auto refused = select_target(b200_lock("9.0"), b200);
  REQUIRE_FALSE(refused.has_value());
  const Error& error = refused.error();
  CHECK(error.code == ErrorCode::kUnavailable);
  CHECK(error.message.find("refusing to install the CPU target `cpu`") != std::string::npos);
  CHECK(has_note(error, "h100: GPU compute capability 10.0, the target is built for 9.0"));
  CHECK(has_note(error, "a100: GPU compute capability 10.0"));
  // A ready-to-paste target for this hardware, the declaration to widen, the flag.
  CHECK(has_note(error, "[[tool.wvlock.target]]\nname = \"sm100-cuda128\"\nplatform = "
                        "\"linux-x86_64\"\nglibc = \"2.28\"\nnvidia = { cuda-driver = \"12.8\", "
                        "compute-capability = \"10.0\" }"));
  CHECK(has_note(error, "widen `h100` in pyproject.toml if its builds run on this GPU: `nvidia = "
                        "{ cuda-driver = \"12.8\", compute-capability = \">=9.0\" }`"));
  CHECK(has_note(error, "--allow-cpu-fallback"));
  // `wvlock targets`: nothing is selected, the fallback is reported.
  std::optional<CpuFallback> fallback;
  auto verdicts = evaluate_targets(b200_lock("9.0"), b200, {}, &fallback);
  REQUIRE(fallback.has_value());
  CHECK(fallback->target == "cpu");
  CHECK(fallback->vendors == std::vector<std::string>{"NVIDIA"});
  CHECK(selected_verdict(verdicts) == nullptr);
  CHECK(reason(verdicts, "cpu") == "lock-time choices fit unchanged");
}

TEST_CASE("select hardware: an allowed CPU fallback installs the CPU target and says so",
          "[install][select][fallback]") {
  SelectOptions allowed;
  allowed.allow_cpu_fallback = true;
  auto selection = select_target(b200_lock("9.0"), host({{10, 0}}, MajorMinor{12, 8}), allowed);
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  REQUIRE(selection->fallback.has_value());
  CHECK(selection->fallback->reasons.size() == 2);
  CHECK(cpu_fallback_warning(*selection->fallback).find("installing the CPU target `cpu`") !=
        std::string::npos);
  // A forced CPU target is the user's choice: no refusal, no fallback.
  SelectOptions forced;
  forced.forced_target = "cpu";
  auto chosen = select_target(b200_lock("9.0"), host({{10, 0}}, MajorMinor{12, 8}), forced);
  REQUIRE(chosen.has_value());
  CHECK_FALSE(chosen->fallback.has_value());
}

TEST_CASE("select hardware: a host without a GPU gets the CPU target as before",
          "[install][select][fallback]") {
  auto selection = select_target(b200_lock("9.0"), host());
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK_FALSE(selection->fallback.has_value());
}

TEST_CASE("select hardware: a driver older than every target's, or an unknown ROCm, is refused",
          "[install][select][fallback]") {
  auto old_driver = select_target(b200_lock("9.0"), host({{9, 0}}, MajorMinor{12, 2}));
  REQUIRE_FALSE(old_driver.has_value());
  CHECK(has_note(old_driver.error(), "h100: CUDA driver 12.2, the target needs 12.8 or newer"));
  // No declaration to widen: the builds need the newer driver.
  CHECK_FALSE(has_note(old_driver.error(), "widen"));

  lock::Lockfile amd = plain_lock({{"cpu", {}}, {"mi300", {{"rocm", "6.4"}, {"gfx", "gfx942"}}}});
  HostProfile gfx942 = host();
  gfx942.gfx_archs.set({"gfx942"}, FactSource::kSysfs);
  auto refused = select_target(amd, gfx942);
  REQUIRE_FALSE(refused.has_value());
  CHECK(has_note(refused.error(), "mi300: no ROCm was detected"));
  CHECK(has_note(refused.error(), "ROCM_PATH"));
}

TEST_CASE("select hardware: compute-capability ranges and lists", "[install][select][range]") {
  SECTION(">=9.0 serves 9.x, 10.x and 12.x, not 8.9") {
    const lock::Lockfile lockfile = b200_lock(">=9.0");  // the selection points into it
    for (MajorMinor gpu : {MajorMinor{9, 0}, MajorMinor{10, 0}, MajorMinor{12, 0}}) {
      auto selection = select_target(lockfile, host({gpu}, MajorMinor{12, 8}));
      REQUIRE(selection.has_value());
      CHECK(selection->target == "h100");
      CHECK(selection->wheels.front().file->name == kTorchCuda);
    }
    auto ada = select_target(b200_lock(">=9.0"), host({{8, 9}}, MajorMinor{12, 8}));
    REQUIRE(ada.has_value());
    CHECK(ada->target == "a100");
  }
  SECTION("a list serves each listed major") {
    auto selection = select_target(b200_lock("9.0,10.0"), host({{10, 3}}, MajorMinor{12, 8}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "h100");
  }
  SECTION("the driver stays a minimum") {
    auto selection = select_target(b200_lock(">=9.0"), host({{10, 0}}, MajorMinor{12, 4}));
    REQUIRE_FALSE(selection.has_value());
  }
  SECTION("a declaration of the GPU's own major is closer than a range") {
    lock::Lockfile lockfile = plain_lock(
        {{"h100", {{"cuda-driver", "12.8"}, {"compute-capability", ">=9.0"}}},
         {"b200", {{"cuda-driver", "12.8"}, {"compute-capability", "10.0"}}}});
    auto selection = select_target(lockfile, host({{10, 0}}, MajorMinor{12, 8}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "b200");
  }
  SECTION("the lockfile's facts keep the range") {
    lock::Lockfile lockfile = b200_lock(">=9.0");
    CHECK(targets::declared_facts(lockfile.targets[2].declared).at("compute-capability") == ">=9.0");
  }
}

namespace {

pkg::VariantProperty nvidia(const char* feature, const char* value) {
  return pkg::VariantProperty{"nvidia", feature, value};
}

lock::LockedFile file_named(const std::string& name, const std::string& index) {
  lock::LockedFile file;
  file.name = name;
  file.url = index + "/" + name;
  file.sha256 = std::string(64, 'b');
  return file;
}

/// b200 (10.0, driver 13.0), h100 (9.0, 12.8) and an A10-class a10 (8.6, 12.4), each keeping
/// one torch variant wheel: cuda13.0 (driver 13.0), cuda12.8 (12.8), cuda12.6 (12.0 floor, its
/// sm_arch listing 75_real); numpy plain from the same index; and a cpu target. With
/// `backend_index` the a10's torch is instead a plain +cu126 wheel from an index pinned to it.
lock::Lockfile variant_lock(bool backend_index) {
  const std::string index = "https://example.org/simple";
  const char* cu130 = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl";
  const char* cu128 = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl";
  const char* cu126 = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl";
  const char* null = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl";
  const char* plain126 = "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";
  const char* numpy_wheel = "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl";
  lock::LockedPackage torch;
  torch.name = "torch"_pkg;
  torch.version = "2.9.0";
  torch.index = index;
  for (const char* name : {cu126, cu128, cu130, null}) torch.wheels.push_back(file_named(name, index));
  pkg::VariantsMetadata metadata;
  metadata.schema = pkg::VariantsSchema::kV0_0_3;
  metadata.default_priorities.namespaces = {"nvidia"};
  metadata.providers["nvidia"].requirements = {"nvidia-variant-provider>=0.0.1,<1.0.0"};
  metadata.variants = {
      {"cuda13.0", {nvidia("cuda_version_lower_bound", "13.0"), nvidia("sm_arch", "100_real"),
                    nvidia("sm_arch", "75_real"), nvidia("sm_arch", "90_real")}},
      {"cuda12.8", {nvidia("cuda_version_lower_bound", "12.8"), nvidia("sm_arch", "100_real"),
                    nvidia("sm_arch", "75_real"), nvidia("sm_arch", "90_real")}},
      {"cuda12.6", {nvidia("cuda_version_lower_bound", "12.0"), nvidia("sm_arch", "75_real"),
                    nvidia("sm_arch", "80_real"), nvidia("sm_arch", "86_real")}},
      {"null", {}},
  };
  torch.variants = metadata;
  torch.targets["cpu"].wheels = {null};
  torch.targets["b200"].wheels = {cu130};
  torch.targets["h100"].wheels = {cu128};
  lock::LockedPackage pinned;
  if (backend_index) {
    pinned.name = "torch"_pkg;
    pinned.version = "2.9.0+cu126";
    pinned.index = "https://example.org/whl/cu126";
    pinned.wheels = {file_named(plain126, pinned.index)};
    pinned.targets["a10"].wheels = {plain126};
    pinned.targets["a10"].dependencies = {"numpy==2.1.0"};
  } else {
    torch.targets["a10"].wheels = {cu126};
  }
  for (auto& [name, use] : torch.targets) use.dependencies = {"numpy==2.1.0"};
  lock::LockedPackage numpy;
  numpy.name = "numpy"_pkg;
  numpy.version = "2.1.0";
  numpy.index = index;
  numpy.wheels = {file_named(numpy_wheel, index)};
  for (const char* t : {"cpu", "b200", "h100", "a10"}) numpy.targets[t].wheels = {numpy_wheel};
  lock::Lockfile lockfile;
  lockfile.packages = {numpy, torch};
  if (backend_index) lockfile.packages.push_back(pinned);
  auto add = [&](const char* name, std::map<std::string, std::string> extra, const std::string& root) {
    std::map<std::string, std::string> facts = {
        {"platform", "linux-x86_64"}, {"python", "3.12"}, {"glibc", "2.28"}};
    for (auto& [key, value] : extra) facts[key] = value;
    lock::LockedTarget target;
    target.name = name;
    auto declared = targets::target_from_facts(name, facts);
    REQUIRE(declared.has_value());
    target.declared = std::move(*declared);
    target.roots = {root};
    lockfile.targets.push_back(std::move(target));
  };
  add("cpu", {}, "torch==2.9.0");
  add("b200", {{"cuda-driver", "13.0"}, {"compute-capability", "10.0"}}, "torch==2.9.0");
  add("h100", {{"cuda-driver", "12.8"}, {"compute-capability", "9.0"}}, "torch==2.9.0");
  add("a10", {{"cuda-driver", "12.4"}, {"compute-capability", "8.6"}},
      backend_index ? "torch==2.9.0+cu126" : "torch==2.9.0");
  REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  return lockfile;
}

}  // namespace

TEST_CASE("select hardware: variant wheels judge the live GPU themselves",
          "[install][select][variants]") {
  const HostProfile t4 = host({{7, 5}}, MajorMinor{12, 2});
  const lock::Lockfile lockfile = variant_lock(false);  // the selection points into it
  auto selection = select_target(lockfile, t4);
  REQUIRE(selection.has_value());
  CHECK(selection->target == "a10");
  REQUIRE(selection->wheels.size() == 2);
  CHECK(selection->wheels[1].package->name == "torch"_pkg);
  CHECK(selection->wheels[1].variant_label == "cuda12.6");
  CHECK_FALSE(selection->fallback.has_value());
  CHECK(reason(selection->verdicts, "a10").find("its variant wheels fit this GPU (declared: GPU "
                                                "compute capability 7.5") == 0);
  // The declarations still rank first where they serve the host.
  auto h100 = select_target(variant_lock(false), host({{9, 0}}, MajorMinor{12, 8}));
  REQUIRE(h100.has_value());
  CHECK(h100->target == "h100");
}

TEST_CASE("select hardware: a plain build from an index pinned to the target keeps its refusal",
          "[install][select][variants]") {
  auto refused = select_target(variant_lock(true), host({{7, 5}}, MajorMinor{12, 2}));
  REQUIRE_FALSE(refused.has_value());
  CHECK(has_note(refused.error(), "a10: GPU compute capability 7.5, the target is built for 8.6"));
  // A B200 with driver 12.8 that no declaration serves: h100's kept cuda12.8 build lists
  // 100_real and needs 12.8, so h100's variant wheels serve it (b200's need driver 13.0).
  auto b200 = select_target(variant_lock(false), host({{10, 0}}, MajorMinor{12, 8}));
  REQUIRE(b200.has_value());
  CHECK(b200->target == "h100");
}
}  // namespace wv::install
