// Tests for targets/detect: NVML and libcuda detection against real shared libraries with
// scripted answers (tests/detect/fakes), nvidia-smi as a script, AMD over fake sysfs trees,
// CPU decoding tables, overrides, time bounds, and the live host (printing its wall time).
#include "targets/detect/detect.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string_view>

#include "src/base/file_system.h"
#include "tests/support/temp_dir.h"
#include "targets/providers.h"
#include "targets/target.h"

namespace wv::detect {
namespace {

using targets::FactSource;
using targets::MajorMinor;

void write(const std::string& path, const std::string& text) {
  RealFileSystem file_system;
  REQUIRE(file_system.create_directories(path_parent(path)));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Points the fake libraries at a script for the duration of a test.
struct FakeScripts {
  test::TempDir dir;
  FakeScripts(const std::string& nvml, const std::string& cuda) {
    write(dir.file("nvml.txt"), nvml);
    write(dir.file("cuda.txt"), cuda);
    setenv("WV_FAKE_NVML_SCRIPT", dir.file("nvml.txt").c_str(), 1);
    setenv("WV_FAKE_CUDA_SCRIPT", dir.file("cuda.txt").c_str(), 1);
    setenv("WV_FAKE_NVML_LOG", dir.file("nvml.log").c_str(), 1);
  }
  ~FakeScripts() {
    unsetenv("WV_FAKE_NVML_SCRIPT");
    unsetenv("WV_FAKE_CUDA_SCRIPT");
    unsetenv("WV_FAKE_NVML_LOG");
  }
  std::string log() const {
    RealFileSystem file_system;
    return file_system.read_file(dir.file("nvml.log")).value_or("");
  }
};

// Options that touch nothing real: fake libraries, no nvidia-smi, an empty root.
DetectOptions fake_options(const Environment& environment, const std::string& root) {
  DetectOptions options;
  options.environment = &environment;
  options.root = root;
  options.nvml_libraries = {WV_FAKE_NVML};
  options.cuda_libraries = {WV_FAKE_CUDA};
  options.nvidia_smi = "";
  options.probe_timeout = std::chrono::milliseconds(3000);
  return options;
}

bool has_note(const targets::HostProfile& host, std::string_view part) {
  for (const std::string& note : host.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("detect: NVML with two GPUs reports the driver and every compute capability",
          "[detect][nvidia]") {
  FakeScripts scripts("cuda_version 12080\ncount 2\ncc0 80\ncc1 90\n", "");
  MapEnvironment environment;
  test::TempDir root;
  Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
  REQUIRE(host);
  REQUIRE(host->cuda_driver_version.known());
  CHECK(*host->cuda_driver_version.value == MajorMinor{12, 8});
  CHECK(host->cuda_driver_version.source == FactSource::kNvml);
  CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{8, 0}, {9, 0}});
  CHECK(*host->nvidia_kernel_driver.value == "580.65.06");
  const auto features = targets::nvidia_supported_features(*host);
  REQUIRE(features.size() == 3);
  CHECK(features[2].values == std::vector<std::string>{"90_real", "90_virtual"});
  CHECK(scripts.log() == "init\nshutdown\n");
}

TEST_CASE("detect: NVML edge cases never crash and mean no usable NVIDIA", "[detect][nvidia]") {
  MapEnvironment environment;
  test::TempDir root;
  SECTION("zero devices: the driver is known, no GPU, the provider reports nothing") {
    FakeScripts scripts("cuda_version 13000\ncount 0\n", "");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->cuda_driver_version.value == MajorMinor{13, 0});
    CHECK(host->compute_capabilities.value->empty());
    CHECK(targets::nvidia_supported_features(*host).empty());
    CHECK(has_note(*host, "no GPU"));
  }
  SECTION("an old GPU keeps the CUDA bounds but no sm_arch") {
    FakeScripts scripts("cuda_version 11040\ncount 1\ncc0 35\n", "");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{3, 5}});
    const auto features = targets::nvidia_supported_features(*host);
    REQUIRE(features.size() == 2);
    CHECK(features[0].values.front() == "11.4");
  }
  SECTION("a device whose capability fails is skipped") {
    FakeScripts scripts("cuda_version 12080\ncount 3\ncc0 80\ncc_fail 1\ncc2 86\n", "");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{8, 0}, {8, 6}});
  }
  SECTION("a handle failure aborts NVML; libcuda answers instead") {
    FakeScripts scripts("cuda_version 12080\ncount 2\nhandle_fail 1\n", "version 12060\ncount 1\ncc0 75\n");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(host->cuda_driver_version.source == FactSource::kLibcuda);
    CHECK(*host->cuda_driver_version.value == MajorMinor{12, 6});
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{7, 5}});
  }
  SECTION("init failure: shutdown is still attempted, libcuda answers") {
    FakeScripts scripts("init 9\n", "version 12040\ncount 2\ncc0 86\ncc1 89\n");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(scripts.log() == "init\nshutdown\n");
    CHECK(host->cuda_driver_version.source == FactSource::kLibcuda);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{8, 6}, {8, 9}});
    CHECK(has_note(*host, "nvmlInitWithFlags failed (code 9)"));
  }
  SECTION("an implausible version (0) is refused") {
    FakeScripts scripts("cuda_version 0\n", "init 100\nversion 0\n");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK_FALSE(host->cuda_driver_version.known());
  }
  SECTION("libcuda: the toolkit stub is not a driver; no device means no GPU") {
    FakeScripts scripts("init 9\n", "init 34\n");
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK_FALSE(host->cuda_driver_version.known());
    CHECK(has_note(*host, "stub"));
    FakeScripts no_device("init 9\n", "init 100\nversion 12080\n");
    host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->cuda_driver_version.value == MajorMinor{12, 8});
    CHECK(host->compute_capabilities.value->empty());
  }
  SECTION("no library at all") {
    DetectOptions options = fake_options(environment, root.path());
    options.nvml_libraries = {root.file("libnvidia-ml.so.1")};
    options.cuda_libraries = {root.file("libcuda.so.1")};
    Result<targets::HostProfile> host = detect_host(options);
    REQUIRE(host);
    CHECK_FALSE(host->cuda_driver_version.known());
    CHECK_FALSE(host->compute_capabilities.known());
    CHECK(has_note(*host, "nvml: cannot load"));
    CHECK(has_note(*host, "libcuda: cannot load"));
  }
}

TEST_CASE("detect: a hung NVML is abandoned at the time limit", "[detect][nvidia]") {
  FakeScripts scripts("sleep_ms 3000\n", "");
  MapEnvironment environment;
  test::TempDir root;
  DetectOptions options = fake_options(environment, root.path());
  options.probe_timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  Result<targets::HostProfile> host = detect_host(options);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE(host);
  CHECK(elapsed < std::chrono::milliseconds(1500));
  CHECK_FALSE(host->cuda_driver_version.known());
  CHECK(has_note(*host, "no answer within 200 ms"));
}

std::string make_script(const test::TempDir& dir, const std::string& name,
                        const std::string& body) {
  const std::string path = dir.file(name);
  write(path, "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

TEST_CASE("detect: nvidia-smi is the last resort", "[detect][nvidia]") {
  MapEnvironment environment;
  test::TempDir root;
  DetectOptions options = fake_options(environment, root.path());
  options.nvml_libraries = {};
  options.cuda_libraries = {};
  SECTION("banner and compute_cap query, [N/A] lines skipped, CUDA_VISIBLE_DEVICES removed") {
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    options.nvidia_smi = make_script(root, "nvidia-smi", R"(
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then echo "CUDA_VISIBLE_DEVICES leaked"; exit 1; fi
if [ "$1" = "--query-gpu=compute_cap" ]; then printf '8.6\n[N/A]\n9.0\n'; exit 0; fi
echo "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |"
exit 3
)");
    Result<targets::HostProfile> host = detect_host(options);
    unsetenv("CUDA_VISIBLE_DEVICES");
    REQUIRE(host);
    CHECK(*host->cuda_driver_version.value == MajorMinor{12, 4});
    CHECK(host->cuda_driver_version.source == FactSource::kNvidiaSmi);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{8, 6}, {9, 0}});
  }
  SECTION("a hung nvidia-smi is killed at the time limit") {
    options.nvidia_smi = make_script(root, "nvidia-smi", "sleep 5\n");
    options.probe_timeout = std::chrono::milliseconds(300);
    const auto start = std::chrono::steady_clock::now();
    Result<targets::HostProfile> host = detect_host(options);
    REQUIRE(host);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2500));
    CHECK_FALSE(host->cuda_driver_version.known());
    CHECK(has_note(*host, "nvidia-smi: no answer"));
  }
  SECTION("a missing nvidia-smi") {
    options.nvidia_smi = root.file("no-such-nvidia-smi");
    Result<targets::HostProfile> host = detect_host(options);
    REQUIRE(host);
    CHECK_FALSE(host->cuda_driver_version.known());
    CHECK(has_note(*host, "nvidia-smi: cannot run"));
  }
}

void write_kfd_node(const test::TempDir& root, int node, unsigned gfx_target_version) {
  write(root.file("sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties"),
        "cpu_cores_count 0\nsimd_count 304\ngfx_target_version " +
            std::to_string(gfx_target_version) + "\nvendor_id 4098\n");
}

TEST_CASE("detect: AMD GPUs from the KFD topology and ROCm from .info/version",
          "[detect][amd]") {
  MapEnvironment environment;
  environment.set("WVLOCK_OVERRIDE_CUDA_DRIVER", "");  // keep NVIDIA out of this test
  test::TempDir root;
  write_kfd_node(root, 0, 0);  // the CPU node
  write_kfd_node(root, 1, 90402);
  write_kfd_node(root, 2, 90010);
  write_kfd_node(root, 3, 90402);
  write(root.file("dev/kfd"), "");
  write(root.file("opt/rocm/.info/version"), "6.4.1-120\n");
  Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
  REQUIRE(host);
  CHECK(*host->gfx_archs.value == std::vector<std::string>{"gfx90a", "gfx942"});
  CHECK(host->gfx_archs.source == FactSource::kSysfs);
  CHECK(*host->rocm_version.value == MajorMinor{6, 4});
  CHECK(host->rocm_version.source == FactSource::kFile);
  const auto features = targets::amd_supported_features(*host);
  REQUIRE(features.size() == 2);
  CHECK(features[1].values == std::vector<std::string>{"6.4"});

  SECTION("$ROCM_PATH wins over /opt/rocm") {
    test::TempDir rocm;
    write(rocm.file(".info/version"), "7.1.0\n");
    environment.set("ROCM_PATH", rocm.path());
    host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->rocm_version.value == MajorMinor{7, 1});
  }
  SECTION("GPUs in sysfs without /dev/kfd are not usable") {
    RealFileSystem file_system;
    REQUIRE(file_system.remove(root.file("dev/kfd")));
    host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK_FALSE(host->gfx_archs.known());
    CHECK(has_note(*host, "/dev/kfd is missing"));
  }
  SECTION("the provider FORCE variables") {
    environment.set("AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH", "gfx1100; gfx1101");
    environment.set("AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION", "7.0.0");
    host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->gfx_archs.value == std::vector<std::string>{"gfx1100", "gfx1101"});
    CHECK(host->gfx_archs.source == FactSource::kOverride);
    CHECK(*host->rocm_version.value == MajorMinor{7, 0});
  }
  SECTION("no KFD at all") {
    test::TempDir empty;
    host = detect_host(fake_options(environment, empty.path()));
    REQUIRE(host);
    CHECK_FALSE(host->gfx_archs.known());
    CHECK_FALSE(host->rocm_version.known());
  }
}

TEST_CASE("detect: gfx names and CUDA version decoding", "[detect]") {
  CHECK(gfx_name(90402) == "gfx942");
  CHECK(gfx_name(90010) == "gfx90a");
  CHECK(gfx_name(90500) == "gfx950");
  CHECK(gfx_name(110000) == "gfx1100");
  CHECK(gfx_name(110501) == "gfx1151");
  CHECK(gfx_name(120001) == "gfx1201");
  CHECK(gfx_name(0).empty());
  CHECK(*decode_cuda_version(12080) == MajorMinor{12, 8});
  CHECK(*decode_cuda_version(12040) == MajorMinor{12, 4});
  CHECK(*decode_cuda_version(13000) == MajorMinor{13, 0});
  CHECK_FALSE(decode_cuda_version(0));
  CHECK_FALSE(decode_cuda_version(100000));
}

TEST_CASE("detect: x86-64 levels from CPUID words, gated by XCR0", "[detect][cpu]") {
  CpuidWords v1;
  v1.leaf1_edx = (1u << 23) | (1u << 25) | (1u << 26);
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(v1)) == 1);
  CpuidWords v2 = v1;
  v2.leaf1_ecx = (1u << 0) | (1u << 9) | (1u << 13) | (1u << 19) | (1u << 20) | (1u << 23);
  v2.ext1_ecx = 1u << 0;
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(v2)) == 2);
  CpuidWords v3 = v2;
  v3.leaf1_ecx |= (1u << 12) | (1u << 22) | (1u << 27) | (1u << 28) | (1u << 29);
  v3.leaf7_ebx = (1u << 3) | (1u << 5) | (1u << 8);
  v3.ext1_ecx |= 1u << 5;
  v3.xcr0 = 0x7;
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(v3)) == 3);
  CpuidWords no_os_avx = v3;
  no_os_avx.xcr0 = 0x3;  // the OS does not save YMM: AVX is unusable
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(no_os_avx)) == 2);
  CpuidWords v4 = v3;
  v4.leaf7_ebx |= (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);
  v4.xcr0 = 0xe7;
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(v4)) == 4);
  CpuidWords no_os_avx512 = v4;
  no_os_avx512.xcr0 = 0x7;
  CHECK(x86_64_level_from_features(x86_features_from_cpuid(no_os_avx512)) == 3);
}

TEST_CASE("detect: aarch64 features from AT_HWCAP and the implied version", "[detect][cpu]") {
  // fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid: a Cortex-A72.
  const std::uint64_t a72 = 0xff | (1u << 11);
  std::vector<std::string> features = aarch64_features_from_hwcap(a72, 0);
  CHECK(features == std::vector<std::string>{"fp", "asimd", "evtstrm", "aes", "pmull", "sha1",
                                             "sha2", "crc32", "cpuid"});
  CHECK(aarch64_version_from_features(features) == "8a");
  // Neoverse N1: + atomics fphp asimdhp asimdrdm lrcpc dcpop asimddp.
  const std::uint64_t n1 = a72 | (1u << 8) | (1u << 9) | (1u << 10) | (1u << 12) | (1u << 15) |
                           (1u << 16) | (1u << 20);
  CHECK(aarch64_version_from_features(aarch64_features_from_hwcap(n1, 0)) == "8.2a");
  targets::HostProfile host;
  host.arch.set("aarch64", FactSource::kAuxv);
  host.aarch64_version.set("8.2a", FactSource::kAuxv);
  host.aarch64_features.set(aarch64_features_from_hwcap(n1, 0), FactSource::kAuxv);
  const auto supported = targets::aarch64_supported_features(host);
  CHECK(supported[0].values == std::vector<std::string>{"8.2a", "8.1a", "8a"});
  CHECK(supported[1].name == "asimddp");
}

TEST_CASE("detect: aarch64 features from macOS's hw.optional sysctl flags", "[detect][cpu]") {
  // What an Apple M1 reports as 1 (macOS 13's `sysctl hw.optional`, abridged).
  const std::set<std::string_view> m1 = {
      "floatingpoint", "AdvSIMD", "arm.FEAT_AES", "arm.FEAT_PMULL", "arm.FEAT_SHA1",
      "arm.FEAT_SHA256", "armv8_crc32", "arm.FEAT_LSE", "arm.FEAT_FP16", "arm.FEAT_RDM",
      "arm.FEAT_JSCVT", "arm.FEAT_FCMA", "arm.FEAT_LRCPC", "arm.FEAT_DPB", "arm.FEAT_SHA3",
      "arm.FEAT_DotProd", "arm.FEAT_SHA512", "arm.FEAT_FHM", "arm.FEAT_DIT", "arm.FEAT_LSE2",
      "arm.FEAT_LRCPC2", "arm.FEAT_FlagM", "arm.FEAT_SSBS", "arm.FEAT_SB", "arm.FEAT_PAuth",
      "arm.FEAT_DPB2", "arm.FEAT_FlagM2", "arm.FEAT_FRINTTS"};
  const std::vector<std::string> features =
      aarch64_features_from_sysctl([&](std::string_view name) { return m1.count(name) > 0; });
  CHECK(std::count(features.begin(), features.end(), "paca") == 1);
  CHECK(std::count(features.begin(), features.end(), "asimdhp") == 1);
  CHECK(std::count(features.begin(), features.end(), "bf16") == 0);
  CHECK(aarch64_version_from_features(features) == "8.5a");  // no SVE2 on Apple silicon
  // macOS 11 has only the older spellings: they still count, each feature once.
  const std::set<std::string_view> big_sur = {"floatingpoint", "neon", "armv8_crc32",
                                              "armv8_1_atomics", "neon_fp16", "AdvSIMD"};
  const std::vector<std::string> older =
      aarch64_features_from_sysctl([&](std::string_view name) { return big_sur.count(name) > 0; });
  CHECK(older == std::vector<std::string>{"fp", "asimd", "crc32", "atomics", "fphp", "asimdhp"});
  CHECK(aarch64_features_from_sysctl([](std::string_view) { return false; }).empty());
}

TEST_CASE("detect: CPU facts from a fake /proc/cpuinfo", "[detect][cpu]") {
  MapEnvironment environment;
  environment.set("WVLOCK_OVERRIDE_CUDA_DRIVER", "");
  test::TempDir root;
  write(root.file("proc/cpuinfo"),
        "processor\t: 0\nflags\t\t: fpu mmx sse sse2 pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm "
        "avx avx2 bmi1 bmi2 f16c fma abm movbe xsave aes\n\nprocessor\t: 1\nflags\t: fpu\n");
  environment.set("WVLOCK_OVERRIDE_ARCH", "x86_64");
  Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
  REQUIRE(host);
  CHECK(*host->x86_64_level.value == 3);
  CHECK(host->x86_64_level.source == FactSource::kProcfs);
  const auto features = targets::x86_64_supported_features(*host);
  CHECK(features[0].values == std::vector<std::string>{"v3", "v2", "v1"});
  CHECK(features[1].name == "avx2");

  write(root.file("proc/cpuinfo"),
        "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp "
        "asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n");
  environment.set("WVLOCK_OVERRIDE_ARCH", "aarch64");
  host = detect_host(fake_options(environment, root.path()));
  REQUIRE(host);
  CHECK(*host->aarch64_version.value == "8.2a");
  CHECK_FALSE(host->x86_64_level.known());
}

TEST_CASE("detect: overrides replace facts; empty WVLOCK_OVERRIDE_* means absent",
          "[detect][overrides]") {
  test::TempDir root;
  FakeScripts scripts("cuda_version 12080\ncount 1\ncc0 90\n", "");
  SECTION("both NVIDIA facts overridden: no probing at all") {
    MapEnvironment environment({{"WVLOCK_OVERRIDE_CUDA_DRIVER", "13.0"},
                                {"WVLOCK_OVERRIDE_CUDA_ARCH", "8.0, 12.0"}});
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->cuda_driver_version.value == MajorMinor{13, 0});
    CHECK(host->cuda_driver_version.source == FactSource::kOverride);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{8, 0}, {12, 0}});
    CHECK(scripts.log().empty());
  }
  SECTION("NV_VARIANT_PROVIDER_FORCE_*; an empty FORCE variable is no override") {
    MapEnvironment environment({{"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.9"},
                                {"NV_VARIANT_PROVIDER_FORCE_SM_ARCH", ""}});
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->cuda_driver_version.value == MajorMinor{12, 9});
    CHECK(host->compute_capabilities.source == FactSource::kNvml);
    CHECK(*host->compute_capabilities.value == std::vector<MajorMinor>{{9, 0}});
  }
  SECTION("an empty WVLOCK_OVERRIDE_CUDA_DRIVER removes NVIDIA") {
    MapEnvironment environment(std::map<std::string, std::string>{{"WVLOCK_OVERRIDE_CUDA_DRIVER", ""}});
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK_FALSE(host->cuda_driver_version.known());
    CHECK(host->cuda_driver_version.source == FactSource::kOverride);
    CHECK(scripts.log().empty());
  }
  SECTION("WVLOCK_OVERRIDE_* beats the provider's FORCE variable") {
    MapEnvironment environment({{"WVLOCK_OVERRIDE_ROCM", "6.3"},
                                {"AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION", "7.0.0"},
                                {"WVLOCK_OVERRIDE_GFX", "gfx942"}});
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->rocm_version.value == MajorMinor{6, 3});
  }
  SECTION("platform, CPU, Python and Intel overrides") {
    MapEnvironment environment({{"WVLOCK_OVERRIDE_OS", "linux"},
                                {"WVLOCK_OVERRIDE_ARCH", "x86_64"},
                                {"WVLOCK_OVERRIDE_GLIBC", "2.28"},
                                {"WVLOCK_OVERRIDE_PYTHON", "3.11"},
                                {"WVLOCK_OVERRIDE_X86_64_LEVEL", "v2"},
                                {"WVLOCK_OVERRIDE_INTEL_DEVICE_IP", "12.55.8,20.1.0"}});
    Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
    REQUIRE(host);
    CHECK(*host->libc.value == targets::LibcKind::kGlibc);
    CHECK(*host->libc_version.value == MajorMinor{2, 28});
    CHECK(*host->python_version.value == MajorMinor{3, 11});
    CHECK(*host->x86_64_level.value == 2);
    CHECK(targets::x86_64_supported_features(*host).size() == 11);  // level + the v2 set
    CHECK(*host->intel_device_ips.value == std::vector<std::string>{"12.55.8", "20.1.0"});
  }
  SECTION("malformed overrides are errors naming the variable") {
    for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"WVLOCK_OVERRIDE_CUDA_DRIVER", "twelve"},
             {"WVLOCK_OVERRIDE_CUDA_ARCH", "9.x"},
             {"NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "sm90"},
             {"WVLOCK_OVERRIDE_GFX", "942"},
             {"WVLOCK_OVERRIDE_X86_64_LEVEL", "v5"},
             {"WVLOCK_OVERRIDE_OS", "beos"},
             {"WVLOCK_OVERRIDE_INTEL_DEVICE_IP", "12.55"}}) {
      MapEnvironment environment(std::map<std::string, std::string>{{name, value}});
      Result<targets::HostProfile> host = detect_host(fake_options(environment, root.path()));
      CAPTURE(name, value);
      REQUIRE_FALSE(host);
      CHECK(host.error().message.find(name) != std::string::npos);
    }
  }
}

TEST_CASE("detect: options from the environment", "[detect]") {
  MapEnvironment environment({{"WVLOCK_SYSROOT", "/tmp/root"},
                              {"WVLOCK_NVML_LIBRARY", "/x/libnvml.so"},
                              {"WVLOCK_CUDA_LIBRARY", ""},
                              {"WVLOCK_NVIDIA_SMI", ""},
                              {"WVLOCK_DETECT_TIMEOUT_MS", "250"}});
  const DetectOptions options = options_from_environment(environment);
  CHECK(options.root == "/tmp/root");
  CHECK(options.nvml_libraries == std::vector<std::string>{"/x/libnvml.so"});
  CHECK(options.cuda_libraries.empty());
  CHECK(options.nvidia_smi.empty());
  CHECK(options.probe_timeout == std::chrono::milliseconds(250));
}

TEST_CASE("detect: the live host is probed without error (wall time printed)",
          "[detect][live]") {
  ProcessEnvironment environment;
  DetectOptions options = options_from_environment(environment);
  const auto start = std::chrono::steady_clock::now();
  Result<targets::HostProfile> host = detect_host(options);
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  REQUIRE(host);
  CHECK(host->os.known());
  std::cout << "detect: live host `" << targets::describe(*host) << "` in "
            << elapsed.count() / 1000.0 << " ms\n";
#if defined(__x86_64__)
  CHECK(host->x86_64_level.known());
  CHECK(*host->x86_64_level.value >= 1);
#endif
}

}  // namespace
}  // namespace wv::detect
