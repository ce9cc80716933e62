// Target selection against hand-built lockfiles and live host profiles (DESIGN.md §1).
#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "src/install/select.h"
#include "targets/detect/detect.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {
namespace {

using targets::FactSource;
using targets::HostProfile;
using targets::MajorMinor;

std::string sha(char c) { return std::string(64, c); }

lock::LockedFile wheel(const std::string& name) {
  lock::LockedFile file;
  file.name = name;
  file.url = "https://example.org/files/" + name;
  file.sha256 = sha('a');
  file.size = 1;
  return file;
}

pkg::VariantProperty property(const char* ns, const char* feature, const char* value) {
  return pkg::VariantProperty{ns, feature, value};
}

pkg::VariantsMetadata gpu_metadata(std::map<std::string, std::vector<pkg::VariantProperty>> variants) {
  pkg::VariantsMetadata metadata;
  metadata.schema = pkg::VariantsSchema::kV0_0_3;
  metadata.default_priorities.namespaces = {"nvidia", "amd"};
  metadata.providers["nvidia"].requirements = {"nvidia-variant-provider>=0.0.1,<1.0.0"};
  metadata.providers["amd"].requirements = {"amd-variant-provider>=0.0.1,<1.0.0"};
  metadata.variants = std::move(variants);
  return metadata;
}

const char* kTorchCu128 = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl";
const char* kTorchCu126 = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu126.whl";
const char* kTorchRocm = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-rocm64.whl";
const char* kTorchNull = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl";
const char* kFlash90 = "flash_attn-2.8.3-cp312-cp312-manylinux_2_28_x86_64-sm90.whl";
const char* kFlash80 = "flash_attn-2.8.3-cp312-cp312-manylinux_2_28_x86_64-sm80.whl";
const char* kNumpy = "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";

lock::LockedTarget target(const char* name, std::map<std::string, std::string> extra_facts,
                          std::vector<std::string> roots) {
  lock::LockedTarget result;
  result.name = name;
  std::map<std::string, std::string> facts = {
      {"platform", "linux-x86_64"}, {"python", "3.12"}, {"glibc", "2.28"}};
  for (auto& [key, value] : extra_facts) facts[key] = value;
  auto declared = targets::target_from_facts(name, facts);
  REQUIRE(declared.has_value());
  result.declared = std::move(*declared);
  result.roots = std::move(roots);
  return result;
}

/// cpu (null torch), a100 (CUDA 12.6, sm 8.0), h100 (CUDA 12.8, sm 9.0), mi300 (ROCm 6.4).
lock::Lockfile gpu_lock() {
  lock::Lockfile lockfile;
  lock::LockedPackage torch;
  torch.name = "torch"_pkg;
  torch.version = "2.9.0";
  for (const char* name : {kTorchCu126, kTorchCu128, kTorchNull, kTorchRocm}) {
    torch.wheels.push_back(wheel(name));
  }
  torch.variants = gpu_metadata({
      {"cu128", {property("nvidia", "cuda_version_lower_bound", "12.8")}},
      {"cu126", {property("nvidia", "cuda_version_lower_bound", "12.6")}},
      {"rocm64", {property("amd", "gfx_arch", "gfx942"), property("amd", "rocm_version", "6.4")}},
      {"null", {}},
  });
  torch.targets["cpu"].wheels = {kTorchNull};
  torch.targets["a100"].wheels = {kTorchCu126};
  torch.targets["h100"].wheels = {kTorchCu128, kTorchCu126};
  torch.targets["mi300"].wheels = {kTorchRocm};
  for (const char* t : {"cpu", "a100", "h100", "mi300"}) {
    torch.targets[t].dependencies = {"numpy==2.1.0"};
  }
  lock::LockedPackage flash;
  flash.name = "flash-attn"_pkg;
  flash.version = "2.8.3";
  flash.wheels = {wheel(kFlash80), wheel(kFlash90)};
  flash.variants = gpu_metadata({
      {"sm90", {property("nvidia", "sm_arch", "90_real")}},
      {"sm80", {property("nvidia", "sm_arch", "80_real")}},
  });
  flash.variants->default_priorities.namespaces = {"nvidia"};
  flash.variants->providers.erase("amd");
  flash.targets["a100"].wheels = {kFlash80};
  flash.targets["h100"].wheels = {kFlash90};
  lock::LockedPackage numpy;
  numpy.name = "numpy"_pkg;
  numpy.version = "2.1.0";
  numpy.wheels = {wheel(kNumpy)};
  for (const char* t : {"cpu", "a100", "h100", "mi300"}) numpy.targets[t].wheels = {kNumpy};
  lockfile.packages = {flash, numpy, torch};
  lockfile.targets = {
      target("cpu", {}, {"torch==2.9.0"}),
      target("a100", {{"cuda-driver", "12.6"}, {"compute-capability", "8.0"}},
             {"flash-attn==2.8.3", "torch==2.9.0"}),
      target("h100", {{"cuda-driver", "12.8"}, {"compute-capability", "9.0"}},
             {"flash-attn==2.8.3", "torch==2.9.0"}),
      target("mi300", {{"rocm", "6.4"}, {"gfx", "gfx942"}}, {"torch==2.9.0"}),
  };
  REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  return lockfile;
}

HostProfile linux_host() {
  HostProfile host;
  host.os.set(targets::OsKind::kLinux, FactSource::kUname);
  host.arch.set("x86_64", FactSource::kUname);
  host.libc.set(targets::LibcKind::kGlibc, FactSource::kLibc);
  host.libc_version.set({2, 35}, FactSource::kLibc);
  host.python_version.set({3, 12}, FactSource::kDeclared);
  host.x86_64_level.set(3, FactSource::kCpuid);
  return host;
}

HostProfile nvidia_host(MajorMinor driver, MajorMinor capability) {
  HostProfile host = linux_host();
  host.cuda_driver_version.set(driver, FactSource::kNvml);
  host.compute_capabilities.set({capability}, FactSource::kNvml);
  return host;
}

HostProfile amd_host(MajorMinor rocm) {
  HostProfile host = linux_host();
  host.rocm_version.set(rocm, FactSource::kFile);
  host.gfx_archs.set({"gfx942"}, FactSource::kSysfs);
  return host;
}

const TargetVerdict& verdict(const TargetChoice& selection, const std::string& name) {
  for (const TargetVerdict& v : selection.verdicts) {
    if (v.name == name) return v;
  }
  FAIL("no verdict for " << name);
  return selection.verdicts.front();
}

std::string chosen(const TargetChoice& selection, const std::string& package) {
  for (const ChosenWheel& w : selection.wheels) {
    if (w.package->name.str() == package) return w.file->name;
  }
  return "";
}

}  // namespace

TEST_CASE("select: an H100 with CUDA 12.8 picks h100 and its sm_90 build", "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, nvidia_host({12, 8}, {9, 0}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "h100");
  CHECK(chosen(*selection, "torch") == kTorchCu128);
  CHECK(chosen(*selection, "flash-attn") == kFlash90);
  CHECK(chosen(*selection, "numpy") == kNumpy);
  CHECK(verdict(*selection, "h100").status == TargetStatus::kSelected);
  CHECK(verdict(*selection, "h100").unchanged);
  CHECK(verdict(*selection, "cpu").status == TargetStatus::kFits);
  // sm_80 binaries do not run on a 9.0 GPU: a100 is out, with the fact that rules it out. Its
  // GPU builds are all variant wheels, so they judge the GPU themselves (docs/targets.md §6)
  // and the first that does not run says why.
  CHECK(verdict(*selection, "a100").status == TargetStatus::kRuledOut);
  CHECK(verdict(*selection, "a100").reason ==
        "GPU compute capability 9.0, flash-attn 2.8.3 needs nvidia :: sm_arch :: 80_real");
  CHECK(verdict(*selection, "mi300").reason == "no AMD GPU, the target declares one");
}

TEST_CASE("select: an SM 8.6 GPU picks a100", "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, nvidia_host({12, 8}, {8, 6}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "a100");
  CHECK(chosen(*selection, "flash-attn") == kFlash80);
  CHECK(chosen(*selection, "torch") == kTorchCu126);
  CHECK(verdict(*selection, "h100").reason ==
        "GPU compute capability 8.6, flash-attn 2.8.3 needs nvidia :: sm_arch :: 90_real");
}

TEST_CASE("select: an SM 8.9 GPU gets the best kept CUDA builds that run on it",
          "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, nvidia_host({12, 8}, {8, 9}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "a100");
  CHECK(chosen(*selection, "flash-attn") == kFlash80);
  CHECK(verdict(*selection, "h100").status == TargetStatus::kRuledOut);
}

TEST_CASE("select: a driver older than a target declares: its variant wheels judge it",
          "[install][select]") {
  // CUDA 12.6 on an H100: h100 declares 12.8, but every GPU build it keeps is a variant wheel
  // and its kept cu126 build runs on 12.6 (docs/targets.md §6, "Variant wheels judge
  // themselves"); a100's sm_80 builds do not run on 9.0.
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, nvidia_host({12, 6}, {9, 0}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "h100");
  CHECK(chosen(*selection, "torch") == kTorchCu126);
  CHECK(verdict(*selection, "h100").reason.find(
            "its variant wheels fit this GPU (declared: CUDA driver 12.6, the target needs 12.8 "
            "or newer)") == 0);
}

TEST_CASE("select: within a target the live host picks the next kept wheel it can run",
          "[install][select]") {
  // h100 declares driver 12.6 and keeps cu128 first (lock-time choice of another run), then
  // cu126: a 12.6 host fits the target and runs only cu126.
  lock::Lockfile lockfile = gpu_lock();
  lockfile.targets[2] = target("h100", {{"cuda-driver", "12.6"}, {"compute-capability", "9.0"}},
                               {"flash-attn==2.8.3", "torch==2.9.0"});
  auto selection = select_target(lockfile, nvidia_host({12, 6}, {9, 0}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "h100");
  CHECK(chosen(*selection, "torch") == kTorchCu126);
  CHECK_FALSE(verdict(*selection, "h100").unchanged);
  CHECK(verdict(*selection, "h100").reason == "1 package gets another kept wheel than at lock time");
  // Which package, which wheel, and the lock-time one.
  const std::vector<WheelChange>& changes = verdict(*selection, "h100").changes;
  REQUIRE(changes.size() == 1);
  CHECK(describe(changes[0]) ==
        std::string("torch 2.9.0: ") + kTorchCu126 + " (lock time: " + kTorchCu128 + ")");
  std::string table = render_targets_table(lockfile, selection->verdicts, nvidia_host({12, 6}, {9, 0}));
  // Below the row, in the PLATFORM column.
  CHECK(table.find("\n" + std::string(10, ' ') + "torch 2.9.0: " + kTorchCu126) != std::string::npos);
}

TEST_CASE("select: MI300 with ROCm 6.4 picks mi300", "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, amd_host({6, 4}));
  REQUIRE(selection.has_value());
  CHECK(selection->target == "mi300");
  CHECK(chosen(*selection, "torch") == kTorchRocm);
  CHECK(verdict(*selection, "h100").reason == "no NVIDIA GPU, the target declares one");
  CHECK(verdict(*selection, "cpu").status == TargetStatus::kFits);
}

TEST_CASE("select: ROCm 6.2 is refused, or falls back to cpu when allowed, saying why",
          "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  REQUIRE_FALSE(select_target(lockfile, amd_host({6, 2})).has_value());
  SelectOptions allowed;
  allowed.allow_cpu_fallback = true;
  auto selection = select_target(lockfile, amd_host({6, 2}), allowed);
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK(selection->fallback.has_value());
  CHECK(chosen(*selection, "torch") == kTorchNull);
  CHECK(verdict(*selection, "mi300").status == TargetStatus::kRuledOut);
  // mi300's GPU build is a variant wheel: it says why it does not run here.
  CHECK(verdict(*selection, "mi300").reason == "ROCm 6.2, torch 2.9.0 needs amd :: rocm_version :: 6.4");
}

TEST_CASE("select: no GPU picks cpu", "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, linux_host());
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK(chosen(*selection, "torch") == kTorchNull);
  CHECK(selection->wheels.size() == 2);  // torch and numpy; flash-attn is not in cpu's closure
}

TEST_CASE("select: platform facts rule targets out before wheels", "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  SECTION("another Python") {
    HostProfile host = linux_host();
    host.python_version.set({3, 11}, FactSource::kDeclared);
    auto selection = select_target(lockfile, host);
    REQUIRE_FALSE(selection.has_value());
    CHECK(selection.error().code == ErrorCode::kUnavailable);
    CHECK(selection.error().message == "no target of the lock fits this host");
    REQUIRE(selection.error().notes.size() == 5);
    CHECK(selection.error().notes[1] ==
          "cpu: the environment has Python 3.11, the target is for Python 3.12");
  }
  SECTION("an old glibc") {
    HostProfile host = linux_host();
    host.libc_version.set({2, 17}, FactSource::kLibc);
    auto verdicts = evaluate_targets(lockfile, host);
    REQUIRE(verdicts.size() == 4);
    CHECK(verdicts[0].reason == "glibc 2.17, the target needs glibc 2.28 or newer");
  }
  SECTION("another architecture") {
    HostProfile host = linux_host();
    host.arch.set("aarch64", FactSource::kUname);
    auto verdicts = evaluate_targets(lockfile, host);
    CHECK(verdicts[0].reason == "this host is aarch64, the target is for x86_64");
  }
  SECTION("macOS") {
    HostProfile host = linux_host();
    host.os.set(targets::OsKind::kMacos, FactSource::kUname);
    auto verdicts = evaluate_targets(lockfile, host);
    CHECK(verdicts[0].reason == "this host runs macos, the target is for linux");
  }
}

TEST_CASE("select: --target forces a target, still verified unless --no-verify",
          "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  SelectOptions options;
  options.forced_target = "cpu";
  auto forced = select_target(lockfile, nvidia_host({12, 8}, {9, 0}), options);
  REQUIRE(forced.has_value());
  CHECK(forced->target == "cpu");
  CHECK(verdict(*forced, "h100").status == TargetStatus::kFits);

  options.forced_target = "h100";
  auto refused = select_target(lockfile, linux_host(), options);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message ==
        "target `h100` does not fit this host (use --no-verify-target to install it anyway)");

  options.verify = false;
  auto unverified = select_target(lockfile, linux_host(), options);
  REQUIRE(unverified.has_value());
  CHECK(unverified->target == "h100");
  CHECK(chosen(*unverified, "torch") == kTorchCu128);  // the lock-time choice
  CHECK(chosen(*unverified, "flash-attn") == kFlash90);

  options.forced_target = "tpu";
  auto unknown = select_target(lockfile, linux_host(), options);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message == "unknown target `tpu`: the lock declares cpu, a100, h100, mi300");
}

TEST_CASE("select: a tie goes to the target whose lock-time choices fit, then declared order",
          "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  // Two CPU-only targets with the same wheels: the first declared wins.
  lock::LockedTarget second = lockfile.targets[0];
  second.name = "cpu2";
  lockfile.targets.push_back(second);
  for (auto& package : lockfile.packages) {
    if (package.targets.count("cpu")) package.targets["cpu2"] = package.targets["cpu"];
  }
  auto selection = select_target(lockfile, linux_host());
  REQUIRE(selection.has_value());
  CHECK(selection->target == "cpu");
  CHECK(verdict(*selection, "cpu2").status == TargetStatus::kFits);
}

TEST_CASE("select: the targets table marks the selected row and gives every reason",
          "[install][select]") {
  lock::Lockfile lockfile = gpu_lock();
  HostProfile host = amd_host({6, 2});
  SelectOptions allowed;
  allowed.allow_cpu_fallback = true;
  std::string table = render_targets_table(lockfile, evaluate_targets(lockfile, host, allowed), host);
  INFO(table);
  CHECK(table.find("host: ") == 0);
  CHECK(table.find("* cpu     linux-x86_64  selected  lock-time choices fit unchanged\n") !=
        std::string::npos);
  CHECK(table.find("  mi300   linux-x86_64  no        ROCm 6.2, torch 2.9.0 needs amd :: "
                   "rocm_version :: 6.4\n") != std::string::npos);
  CHECK(table.find("  TARGET ") != std::string::npos);
}

TEST_CASE("select: extras and groups must exist in the lock", "[install][select]") {
  SelectOptions options;
  options.extras = {"serve"};
  lock::Lockfile lockfile = gpu_lock();
  auto selection = select_target(lockfile, linux_host(), options);
  REQUIRE_FALSE(selection.has_value());
  CHECK(selection.error().message ==
        "`--extra serve`: the project declares no extra `serve`; it declares none");
}

TEST_CASE("select: this machine's detected host picks the target its hardware fits",
          "[install][select][live]") {
  detect::ProcessEnvironment environment;
  detect::DetectOptions options = detect::options_from_environment(environment);
  options.environment = &environment;
  auto detected = detect::detect_host(options);
  REQUIRE(detected.has_value());
  HostProfile live = *detected;
  live.python_version.set({3, 12}, FactSource::kDeclared);  // the lock's Python
  lock::Lockfile lockfile = gpu_lock();
  WARN(render_targets_table(lockfile, evaluate_targets(lockfile, live), live));
  if (!live.arch.known() || *live.arch.value != "x86_64" || !live.libc_version.known() ||
      *live.libc_version.value < MajorMinor{2, 28}) {
    WARN("the test lock is for linux-x86_64 with glibc 2.28; nothing to check on this host");
    return;
  }
  std::string expected = "cpu";
  auto capability = live.highest_compute_capability();
  if (capability && live.cuda_driver_version.known() &&
      *live.cuda_driver_version.value >= MajorMinor{12, 6}) {
    if (*capability == MajorMinor{9, 0}) expected = "h100";
    if (capability->major == 8) expected = "a100";
  } else if (live.rocm_version.known() && *live.rocm_version.value == MajorMinor{6, 4} &&
             live.gfx_archs.known() && !live.gfx_archs.value->empty() &&
             live.gfx_archs.value->front() == "gfx942") {
    expected = "mi300";
  }
  SelectOptions allowed;  // a GPU no target serves gets cpu here, not a refusal
  allowed.allow_cpu_fallback = true;
  auto selection = select_target(lockfile, live, allowed);
  REQUIRE(selection.has_value());
  CHECK(selection->target == expected);
}


TEST_CASE("select: a CPU target on a GPU host installs no GPU build among its kept wheels",
          "[install][select]") {
  // cpu keeps every build with its dependencies (here torch's cu126 too, as torchvision's
  // builds all need only `torch==`): the host's GPU must not pick one for a target that
  // declares none, or torch and torchvision would disagree.
  lock::Lockfile lockfile = gpu_lock();
  for (auto& package : lockfile.packages) {
    if (package.name == "torch"_pkg) package.targets["cpu"].wheels = {kTorchNull, kTorchCu126, kTorchRocm};
  }
  SECTION("an NVIDIA host forced to cpu (cu126 would run)") {
    SelectOptions forced;
    forced.forced_target = "cpu";
    auto selection = select_target(lockfile, nvidia_host({12, 6}, {9, 0}), forced);
    REQUIRE(selection.has_value());
    CHECK(selection->target == "cpu");
    CHECK(chosen(*selection, "torch") == kTorchNull);
    CHECK(verdict(*selection, "cpu").unchanged);
  }
  SECTION("an AMD host forced to cpu") {
    SelectOptions forced;
    forced.forced_target = "cpu";
    auto selection = select_target(lockfile, amd_host({6, 4}), forced);
    REQUIRE(selection.has_value());
    CHECK(chosen(*selection, "torch") == kTorchNull);
  }
  SECTION("a GPU target still takes the live-best kept build of its own vendor") {
    auto selection = select_target(lockfile, nvidia_host({12, 8}, {9, 0}));
    REQUIRE(selection.has_value());
    CHECK(selection->target == "h100");
    CHECK(chosen(*selection, "torch") == kTorchCu128);
  }
}

}  // namespace wv::install

namespace wv::install {
namespace {

// gpu_lock() with groups `dev` (numpy) and `lint` (nothing here), `dev` the default, and an
// extra `flash` that only a100 and h100 lock.
lock::Lockfile grouped_lock() {
  lock::Lockfile lockfile = gpu_lock();
  lockfile.dependency_groups = {"dev", "lint"};
  lockfile.default_groups = {"dev"};
  lockfile.extras = {"flash"};
  for (lock::LockedTarget& target : lockfile.targets) target.group_roots["dev"] = {"numpy==2.1.0"};
  lockfile.targets[1].extra_roots["flash"] = {"flash-attn==2.8.3"};
  lockfile.targets[2].extra_roots["flash"] = {"flash-attn==2.8.3"};
  return lockfile;
}

std::vector<std::string> groups_of(const InstallRequest& request) {
  SelectOptions options;
  REQUIRE(apply_install_request(grouped_lock(), request, options).has_value());
  return options.groups;
}

}  // namespace
}  // namespace wv::install

TEST_CASE("select: uv's group flags against the lock's default-groups", "[install][select]") {
  using wv::install::InstallRequest;
  using Groups = std::vector<std::string>;
  InstallRequest request;
  CHECK(wv::install::groups_of(request) == Groups{"dev"});
  request.no_dev = true;
  CHECK(wv::install::groups_of(request).empty());
  request = {};
  request.groups = {"lint"_pkg};
  CHECK(wv::install::groups_of(request) == Groups{"dev", "lint"});
  request.no_default_groups = true;
  CHECK(wv::install::groups_of(request) == Groups{"lint"});
  request = {};
  request.all_groups = true;
  request.no_groups = {"dev"_pkg};
  CHECK(wv::install::groups_of(request) == Groups{"lint"});
  request = {};
  request.only_groups = {"lint"_pkg};
  wv::install::SelectOptions options;
  REQUIRE(wv::install::apply_install_request(wv::install::grouped_lock(), request, options));
  CHECK(options.groups == Groups{"lint"});
  CHECK_FALSE(options.dependencies);
  request = {};
  request.no_groups = {"docs"_pkg};
  auto unknown = wv::install::apply_install_request(wv::install::grouped_lock(), request, options);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message ==
        "`--no-group docs`: the project declares no dependency group `docs`; it declares `dev`, "
        "`lint`");
}

TEST_CASE("select: --only-group installs the groups' packages alone", "[install][select]") {
  wv::install::SelectOptions options;
  wv::install::InstallRequest request;
  request.only_groups = {"dev"_pkg};
  const wv::lock::Lockfile lockfile = wv::install::grouped_lock();
  REQUIRE(wv::install::apply_install_request(lockfile, request, options));
  auto selection = wv::install::select_target(lockfile, wv::install::linux_host(), options);
  REQUIRE(selection.has_value());
  REQUIRE(selection->wheels.size() == 1);
  CHECK(selection->wheels[0].package->name == "numpy"_pkg);
}

TEST_CASE("select: an extra the selected target does not lock is an error naming its extras",
          "[install][select]") {
  const wv::lock::Lockfile lockfile = wv::install::grouped_lock();
  wv::install::SelectOptions options;
  options.extras = {"flash"};
  auto on_cpu = wv::install::select_target(lockfile, wv::install::linux_host(), options);
  REQUIRE_FALSE(on_cpu.has_value());
  CHECK(on_cpu.error().code == wv::ErrorCode::kInvalidInput);
  CHECK(on_cpu.error().message ==
        "`--extra flash`: the selected target `cpu` locks no extra `flash`; its extras are none");
  REQUIRE(on_cpu.error().notes.size() == 1);
  CHECK(on_cpu.error().notes[0] ==
        "note: extra `flash` is locked by a100, h100 (`--target NAME` takes one)");
  auto on_h100 =
      wv::install::select_target(lockfile, wv::install::nvidia_host({12, 8}, {9, 0}), options);
  REQUIRE(on_h100.has_value());
  CHECK(on_h100->target == "h100");
  CHECK(on_h100->extras == std::vector<std::string>{"flash"});
}
