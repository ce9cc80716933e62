// A host profile (DESIGN.md §1): the plain facts about one machine that decide which wheels
// fit it — OS, architecture, libc, macOS version, Python, CPU level and features, NVIDIA,
// AMD and Intel GPU facts — each with the source it came from. A declared target
// (pyproject.toml) and the live host (targets/detect) both become a HostProfile, and the same
// providers (targets/providers.h) turn either into supported variant values.
// Cheap to include (std + pkg/variant.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/variant.h"

namespace wv::targets {

/// Where a fact came from; printed by `wvlock detect` and recorded in the lockfile.
enum class FactSource {
  kUnknown,    ///< no source: the fact is absent
  kDeclared,   ///< a target in pyproject.toml
  kDefault,    ///< implied by another fact (e.g. x86-64 baseline v1, the platform shorthand)
  kOverride,   ///< a WVLOCK_OVERRIDE_* or provider FORCE_* environment variable
  kNvml,       ///< libnvidia-ml.so.1
  kLibcuda,    ///< libcuda.so.1 (CUDA driver API)
  kNvidiaSmi,  ///< the nvidia-smi command
  kSysfs,      ///< /sys (KFD topology, PCI devices)
  kFile,       ///< a plain file such as /opt/rocm/.info/version
  kCpuid,      ///< the CPUID/XGETBV instructions
  kAuxv,       ///< the ELF auxiliary vector (AT_HWCAP)
  kProcfs,     ///< /proc (cpuinfo)
  kLibc,       ///< the C library itself (gnu_get_libc_version, the musl loader)
  kUname,      ///< uname(2) / the compile-time platform
  kSysctl,     ///< macOS sysctl / SystemVersion.plist
};

/// "declared", "nvml", "libcuda", "nvidia-smi", "sysfs", "override", ...
std::string_view to_string(FactSource source);

/// A fact with its source; `value` is nullopt when the fact is absent.
template <class T>
struct Fact {
  std::optional<T> value;
  FactSource source = FactSource::kUnknown;

  /// True when the fact is present.
  bool known() const { return value.has_value(); }
  /// True when a declared target states the fact itself (not implied by another).
  bool declared() const { return known() && source == FactSource::kDeclared; }
  /// Records a value and where it came from.
  void set(T new_value, FactSource new_source) {
    value = std::move(new_value);
    source = new_source;
  }
  /// Records that the fact is absent, and who said so (e.g. an empty override).
  void clear(FactSource new_source) {
    value.reset();
    source = new_source;
  }
  bool operator==(const Fact&) const = default;
};

/// A `major.minor` version: glibc 2.28, macOS 14.0, CUDA 12.8, compute capability 9.0, ROCm 6.4.
struct MajorMinor {
  int major = 0;
  int minor = 0;
  /// `major.minor`.
  std::string to_string() const;
  auto operator<=>(const MajorMinor&) const = default;
};

/// Parses `M.m` (digits, one dot; `M` alone when `allow_major_only`). `patch` may follow and is
/// ignored when `allow_patch` (ROCm `6.4.1`). Errors name the input.
Result<MajorMinor> parse_major_minor(std::string_view text, std::string_view what,
                                     bool allow_major_only = false, bool allow_patch = false);

/// The operating system of a host.
enum class OsKind { kLinux, kMacos, kWindows };
/// The C library of a Linux host.
enum class LibcKind { kGlibc, kMusl };

/// `linux`, `macos`, `windows`.
std::string_view to_string(OsKind os);
/// `glibc`, `musl`.
std::string_view to_string(LibcKind libc);

/// The facts about one machine. Absent facts stay absent: a provider with no facts reports no
/// supported values, so wheels that need them are incompatible.
struct HostProfile {
  Fact<OsKind> os;
  /// Canonical machine name: `x86_64`, `aarch64` (also on macOS/Windows; the marker and tag
  /// spellings `arm64`/`AMD64` are derived).
  Fact<std::string> arch;
  Fact<LibcKind> libc;
  Fact<MajorMinor> libc_version;
  Fact<MajorMinor> macos_version;
  Fact<MajorMinor> python_version;
  Fact<bool> python_free_threaded;

  /// x86-64 micro-architecture level 1..4 (psABI).
  Fact<int> x86_64_level;
  /// x86 extension names as archspec spells them (`avx2`, `avx512f`, `lahf_lm`, ...).
  Fact<std::vector<std::string>> x86_64_features;
  /// aarch64 architecture version as the provider spells it: `8a`, `8.2a`, `9.0a`.
  Fact<std::string> aarch64_version;
  /// aarch64 feature names as /proc/cpuinfo spells them (`asimd`, `sve`, `bf16`, ...).
  Fact<std::vector<std::string>> aarch64_features;

  /// NVIDIA: the CUDA user-mode driver version (what NVML's CudaDriverVersion reports).
  Fact<MajorMinor> cuda_driver_version;
  /// NVIDIA: the kernel driver version string (e.g. `580.65.06`), informational.
  Fact<std::string> nvidia_kernel_driver;
  /// NVIDIA: compute capability of every visible GPU, in device order.
  Fact<std::vector<MajorMinor>> compute_capabilities;
  /// NVIDIA, a declared target only: `compute-capability = ">=X.Y"` serves every capability
  /// at or above X.Y (10.x and 12.x included). X.Y is also in compute_capabilities, so the
  /// lock-time providers see the range's lowest capability (docs/targets.md §6).
  Fact<MajorMinor> compute_capability_from;

  /// AMD: ROCm user-space version (`/opt/rocm/.info/version`).
  Fact<MajorMinor> rocm_version;
  /// AMD: gfx targets of the GPUs (`gfx942`), most preferred first.
  Fact<std::vector<std::string>> gfx_archs;

  /// Intel: device IP versions `arch.release.revision` (`12.55.8`), most preferred first.
  Fact<std::vector<std::string>> intel_device_ips;

  /// Raw supported values for other namespaces: namespace -> feature -> ordered values
  /// (a target's `properties` table). They replace a built-in provider for that namespace.
  std::map<std::string, pkg::FeatureValues> properties;

  /// What detection tried and why a fact is absent ("nvml: libnvidia-ml.so.1 not found").
  std::vector<std::string> notes;

  /// The highest compute capability (the NVIDIA provider's choice), nullopt when none.
  std::optional<MajorMinor> highest_compute_capability() const;

  bool operator==(const HostProfile&) const = default;
};

}  // namespace wv::targets
