// Live host detection (reference/anchors.md §4; DESIGN.md §1 "host profile"): probes this
// machine and returns a targets::HostProfile whose facts each name their source.
//   NVIDIA: NVML (dlopen libnvidia-ml.so.1) -> libcuda.so.1 (driver API) -> nvidia-smi;
//   AMD: KFD topology in sysfs + $ROCM_PATH/.info/version or /opt/rocm/.info/version;
//   CPU: x86-64 level and extensions from CPUID+XGETBV, aarch64 features from AT_HWCAP;
//   libc: gnu_get_libc_version() or the musl loader; macOS: sysctl (compiled only there).
// No GPU, no driver or zero devices is "no NVIDIA", never a failure. Every probe is bounded in
// time. Overrides (WVLOCK_OVERRIDE_*, the providers' FORCE_* variables) replace a fact; an
// empty WVLOCK_OVERRIDE_* makes the fact absent. Cheap to include.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "targets/detect/env_vars.h"
#include "targets/host_profile.h"

namespace wv::detect {

/// How detection runs. The defaults probe the real machine.
struct DetectOptions {
  /// Where environment variables come from (required; overrides are read from it).
  const Environment* environment = nullptr;
  /// Prefix for every file read (/sys, /proc, /opt/rocm, /dev/kfd): a fake root in tests.
  /// When set, CPU facts come from `{root}/proc/cpuinfo` instead of this process's CPUID.
  std::string root;
  /// NVML libraries tried in order (dlopen names or paths).
  /// The WSL and RHEL driver folders follow the loader's search (rattler's list).
  std::vector<std::string> nvml_libraries = {"libnvidia-ml.so.1", "libnvidia-ml.so",
                                             "/usr/lib/wsl/lib/libnvidia-ml.so.1",
                                             "/usr/lib64/nvidia/libnvidia-ml.so.1"};
  /// CUDA driver libraries tried in order; `libcuda.so.1` first (the toolkit's stub is
  /// `libcuda.so`).
  std::vector<std::string> cuda_libraries = {"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1",
                                             "/usr/lib64/nvidia/libcuda.so.1"};
  /// The nvidia-smi program ("" skips it).
  std::string nvidia_smi = "nvidia-smi";
  /// The upper bound of each probe (NVML+libcuda together, each nvidia-smi run).
  std::chrono::milliseconds probe_timeout{10000};
};

/// Options from the environment: WVLOCK_SYSROOT (root), WVLOCK_NVML_LIBRARY,
/// WVLOCK_CUDA_LIBRARY, WVLOCK_NVIDIA_SMI (each "" disables that method), and
/// WVLOCK_DETECT_TIMEOUT_MS.
DetectOptions options_from_environment(const Environment& environment);

/// Probes the host. Errors only for malformed override values (naming the variable).
Result<targets::HostProfile> detect_host(const DetectOptions& options);

// ---- pieces, exposed for tests ----

/// What the NVIDIA probes found.
struct NvidiaFacts {
  bool found = false;  ///< a driver answered
  targets::FactSource source = targets::FactSource::kUnknown;
  targets::MajorMinor cuda_driver;
  std::vector<targets::MajorMinor> compute_capabilities;
  std::string kernel_driver;
  std::vector<std::string> notes;  ///< why each method did or did not answer
};
/// NVML, then libcuda, then nvidia-smi, each bounded by `options.probe_timeout`.
NvidiaFacts probe_nvidia(const DetectOptions& options);
/// Decodes NVML's/libcuda's integer CUDA version (12080 -> 12.8); nullopt outside
/// [1000, 99990] (a zero-initialised out-parameter that "succeeded").
std::optional<targets::MajorMinor> decode_cuda_version(int value);

/// What the AMD probes found.
struct AmdFacts {
  std::vector<std::string> gfx_archs;  ///< sorted, unique
  std::optional<targets::MajorMinor> rocm_version;
  std::vector<std::string> notes;
};
/// The KFD topology under `options.root`, then the ROCm version file.
AmdFacts probe_amd(const DetectOptions& options);
/// KFD `gfx_target_version` -> gfx name (90402 -> gfx942, 90010 -> gfx90a); "" for 0 (CPU).
std::string gfx_name(std::uint32_t gfx_target_version);

/// The x86 CPUID words detection looks at.
struct CpuidWords {
  std::uint32_t leaf1_ecx = 0, leaf1_edx = 0;
  std::uint32_t leaf7_ebx = 0, leaf7_ecx = 0, leaf7_edx = 0, leaf7_1_eax = 0;
  std::uint32_t leafd_1_eax = 0;
  std::uint32_t ext1_ecx = 0;
  std::uint64_t xcr0 = 0;  ///< XGETBV(0); 0 when OSXSAVE is off
};
/// Feature names (archspec spelling) of CPUID words, AVX/AVX-512 only when the OS enabled
/// their register state in XCR0.
std::vector<std::string> x86_features_from_cpuid(const CpuidWords& words);
/// The psABI level 1..4 a feature list satisfies.
int x86_64_level_from_features(const std::vector<std::string>& features);
/// aarch64 feature names of AT_HWCAP / AT_HWCAP2 bits (as /proc/cpuinfo spells them).
std::vector<std::string> aarch64_features_from_hwcap(std::uint64_t hwcap, std::uint64_t hwcap2);
/// aarch64 feature names (as /proc/cpuinfo spells them) from macOS's `hw.optional.*` sysctl
/// flags; `flag(name)` says whether the flag named is present and 1.
std::vector<std::string> aarch64_features_from_sysctl(
    const std::function<bool(std::string_view)>& flag);
/// The aarch64 version (`8a` .. `9.0a`) a feature list implies.
std::string aarch64_version_from_features(const std::vector<std::string>& features);
/// Feature names from /proc/cpuinfo text (x86 `flags`, aarch64 `Features`; `pni` -> `sse3`).
std::vector<std::string> features_from_cpuinfo(std::string_view cpuinfo);

}  // namespace wv::detect
