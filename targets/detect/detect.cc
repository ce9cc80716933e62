// detect_host(): runs the probes, applies overrides, and assembles the HostProfile.
#include "targets/detect/detect.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/base/process.h"
#include "targets/providers.h"

namespace wv::detect {
namespace {

using targets::FactSource;
using targets::HostProfile;
using targets::MajorMinor;

// ---- the live machine ----

#if defined(__x86_64__) || defined(__i386__)
// Each leaf once, after the two maximum-leaf queries: under a hypervisor every CPUID is a trap,
// and the __get_cpuid helpers ask the maximum again before each leaf.
CpuidWords read_cpuid() {
  CpuidWords words;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf >= 1) {
    __cpuid(1, eax, ebx, ecx, edx);
    words.leaf1_ecx = ecx;
    words.leaf1_edx = edx;
  }
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    words.leaf7_ebx = ebx;
    words.leaf7_ecx = ecx;
    words.leaf7_edx = edx;
    if (eax >= 1) {  // the number of subleaves
      __cpuid_count(7, 1, eax, ebx, ecx, edx);
      words.leaf7_1_eax = eax;
    }
  }
  if (max_leaf >= 0xd) {
    __cpuid_count(0xd, 1, eax, ebx, ecx, edx);
    words.leafd_1_eax = eax;
  }
  if (__get_cpuid_max(0x80000000u, nullptr) >= 0x80000001u) {
    __cpuid(0x80000001u, eax, ebx, ecx, edx);
    words.ext1_ecx = ecx;
  }
  if ((words.leaf1_ecx >> 27) & 1u) {  // OSXSAVE: XGETBV is available
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    words.xcr0 = (static_cast<std::uint64_t>(high) << 32) | low;
  }
  return words;
}
#endif

#if defined(__APPLE__)
// Whether macOS's `hw.optional.<name>` flag is present and 1.
bool sysctl_flag(std::string_view name) {
  const std::string key = str_cat("hw.optional.", name);
  int value = 0;
  size_t size = sizeof value;
  return sysctlbyname(key.c_str(), &value, &size, nullptr, 0) == 0 && value == 1;
}
#endif

std::string compiled_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "";
#endif
}

void detect_platform(HostProfile& host) {
#if defined(__linux__)
  host.os.set(targets::OsKind::kLinux, FactSource::kUname);
#elif defined(__APPLE__)
  host.os.set(targets::OsKind::kMacos, FactSource::kUname);
#elif defined(_WIN32)
  host.os.set(targets::OsKind::kWindows, FactSource::kUname);
#endif
  const std::string arch = compiled_arch();
  if (!arch.empty()) host.arch.set(arch, FactSource::kUname);
#if defined(__APPLE__)
  // An x86_64 build under Rosetta runs on Apple silicon: report the machine.
  int arm64 = 0;
  size_t size = sizeof arm64;
  if (sysctlbyname("hw.optional.arm64", &arm64, &size, nullptr, 0) == 0 && arm64 == 1) {
    host.arch.set("aarch64", FactSource::kSysctl);
  }
  char version[64] = {};
  size = sizeof version - 1;
  if (sysctlbyname("kern.osproductversion", version, &size, nullptr, 0) == 0) {
    Result<MajorMinor> parsed = targets::parse_major_minor(version, "macOS version", true, true);
    if (parsed) host.macos_version.set(*parsed, FactSource::kSysctl);
  }
#endif
}

void detect_libc(const DetectOptions& options, HostProfile& host) {
#if defined(__GLIBC__)
  (void)options;
  Result<MajorMinor> version = targets::parse_major_minor(gnu_get_libc_version(), "glibc version");
  if (version) {
    host.libc.set(targets::LibcKind::kGlibc, FactSource::kLibc);
    host.libc_version.set(*version, FactSource::kLibc);
  }
#elif defined(__linux__)
  // A musl build: run the musl loader, which prints "Version 1.2.4" on stderr.
  const std::string loader = str_cat("/lib/ld-musl-", compiled_arch(), ".so.1");
  Result<ProcessOutput> output = run_process({loader}, options.probe_timeout, {}, true);
  if (output) {
    const std::size_t at = output->output.find("Version ");
    if (at != std::string::npos) {
      std::string_view rest = std::string_view(output->output).substr(at + 8);
      rest = rest.substr(0, rest.find_first_of(" \n"));
      Result<MajorMinor> version = targets::parse_major_minor(rest, "musl version", false, true);
      if (version) {
        host.libc.set(targets::LibcKind::kMusl, FactSource::kLibc);
        host.libc_version.set(*version, FactSource::kLibc);
      }
    }
  }
  if (!host.libc.known()) host.notes.push_back("libc: neither glibc nor musl could be identified");
#else
  (void)options;
  (void)host;
#endif
}

void detect_cpu(const DetectOptions& options, HostProfile& host) {
  if (!host.arch.known()) return;
  const std::string arch = *host.arch.value;
  std::vector<std::string> features;
  FactSource source = FactSource::kUnknown;
  if (!options.root.empty()) {
    RealFileSystem file_system;
    Result<std::string> cpuinfo = file_system.read_file(options.root + "/proc/cpuinfo");
    if (!cpuinfo) {
      host.notes.push_back("cpu: no /proc/cpuinfo under the detection root");
      return;
    }
    features = features_from_cpuinfo(*cpuinfo);
    source = FactSource::kProcfs;
  } else {
#if defined(__APPLE__)
    // sysctl answers for the machine, so an x86_64 build under Rosetta sees Apple silicon.
    if (arch == "aarch64") {
      features = aarch64_features_from_sysctl(sysctl_flag);
      source = FactSource::kSysctl;
    }
#endif
#if defined(__x86_64__)
    if (source == FactSource::kUnknown) {
      features = x86_features_from_cpuid(read_cpuid());
      source = FactSource::kCpuid;
    }
#elif defined(__aarch64__) && defined(__linux__)
    features = aarch64_features_from_hwcap(getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
    source = FactSource::kAuxv;
#endif
  }
  if (source == FactSource::kUnknown) return;
  if (arch == "x86_64") {
    host.x86_64_level.set(x86_64_level_from_features(features), source);
    host.x86_64_features.set(std::move(features), source);
  } else if (arch == "aarch64") {
    host.aarch64_version.set(aarch64_version_from_features(features), source);
    host.aarch64_features.set(std::move(features), source);
  }
}

// ---- overrides ----

// nullopt: unset. A value (possibly "") otherwise.
std::optional<std::string> read(const Environment& environment, std::string_view name) {
  return environment.get(name);
}

Error bad_override(std::string_view name, const std::string& value, std::string_view expected) {
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("invalid ", name, "=", in_backticks(value), ": expected ", expected));
}

// Splits a list override on commas, whitespace and semicolons (the AMD provider's rule).
std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (c == ',' || c == ';' || is_ascii_space(c)) {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

// The value of WVLOCK_OVERRIDE_<name> when set (even empty: the fact is then absent), else of
// the provider's `force` variable when set and not empty; `used` names the variable read.
std::optional<std::string> read_override(const Environment& environment, std::string_view name,
                                         std::string_view force, std::string_view& used) {
  std::optional<std::string> value = read(environment, name);
  used = name;
  if (!value && !force.empty()) {
    value = read(environment, force);
    used = force;
    if (value && value->empty()) value.reset();
  }
  return value;
}

// A version override: WVLOCK_OVERRIDE_<name> ("" = absent), else `force` (a provider's FORCE_*
// variable, where "" means "no override").
Result<bool> override_version(const Environment& environment, std::string_view name,
                              std::string_view force, targets::Fact<MajorMinor>& fact,
                              bool allow_patch = false) {
  std::string_view used = name;
  std::optional<std::string> value = read_override(environment, name, force, used);
  if (!value) return false;
  if (value->empty()) {
    fact.clear(FactSource::kOverride);
    return true;
  }
  Result<MajorMinor> parsed = targets::parse_major_minor(*value, "version", false, allow_patch);
  if (!parsed) return bad_override(used, *value, allow_patch ? "`MAJOR.MINOR[.PATCH]`" : "`MAJOR.MINOR`");
  fact.set(*parsed, FactSource::kOverride);
  return true;
}

Result<bool> override_list(const Environment& environment, std::string_view name,
                           std::string_view force, targets::Fact<std::vector<std::string>>& fact,
                           bool (*valid)(std::string_view), std::string_view expected) {
  std::string_view used = name;
  std::optional<std::string> value = read_override(environment, name, force, used);
  if (!value) return false;
  std::vector<std::string> items = split_list(*value);
  for (const std::string& item : items) {
    if (!valid(item)) return bad_override(used, *value, expected);
  }
  if (items.empty()) {
    fact.clear(FactSource::kOverride);
  } else {
    fact.set(std::move(items), FactSource::kOverride);
  }
  return true;
}

bool is_gfx(std::string_view text) {
  return text.size() > 3 && text.substr(0, 3) == "gfx" &&
         std::all_of(text.begin() + 3, text.end(),
                     [](char c) { return is_ascii_digit(c) || (c >= 'a' && c <= 'f'); });
}
bool is_device_ip(std::string_view text) {
  const auto parts = split(text, '.');
  return parts.size() == 3 &&
         std::all_of(parts.begin(), parts.end(), [](auto p) { return parse_uint64(p).has_value(); });
}
bool is_feature_name(std::string_view text) { return pkg::is_valid_variant_name(text); }

Result<void> apply_cpu_overrides(const Environment& environment, HostProfile& host) {
  std::optional<std::string> level = read(environment, "WVLOCK_OVERRIDE_X86_64_LEVEL");
  if (!level) level = read(environment, "WVLOCK_OVERRIDE_X86_LEVEL");
  if (level) {
    if (level->empty()) {
      host.x86_64_level.clear(FactSource::kOverride);
      host.x86_64_features.clear(FactSource::kOverride);
    } else {
      std::string_view digits = *level;
      if (digits[0] == 'v' || digits[0] == 'V') digits.remove_prefix(1);
      const std::optional<std::uint64_t> n = parse_uint64(digits);
      if (!n || *n < 1 || *n > 4) {
        return bad_override("WVLOCK_OVERRIDE_X86_64_LEVEL", *level, "`v1` .. `v4`");
      }
      host.x86_64_level.set(static_cast<int>(*n), FactSource::kOverride);
      // The level's own features, as archspec's generic x86_64_vN has.
      host.x86_64_features.set(targets::x86_64_level_features(static_cast<int>(*n)),
                               FactSource::kOverride);
    }
  }
  targets::Fact<std::vector<std::string>> features = host.x86_64_features;
  WV_ASSIGN_OR_RETURN(bool x86_features,
                      override_list(environment, "WVLOCK_OVERRIDE_X86_64_FEATURES", "", features,
                                    is_feature_name, "feature names like `avx2,fma`"));
  if (x86_features) host.x86_64_features = features;

  if (std::optional<std::string> version = read(environment, "WVLOCK_OVERRIDE_AARCH64_VERSION")) {
    if (version->empty()) {
      host.aarch64_version.clear(FactSource::kOverride);
    } else {
      const std::string_view known[] = {"8a", "8.1a", "8.2a", "8.3a", "8.4a", "8.5a", "9.0a"};
      if (std::find(std::begin(known), std::end(known), *version) == std::end(known)) {
        return bad_override("WVLOCK_OVERRIDE_AARCH64_VERSION", *version, "`8a` .. `9.0a`");
      }
      host.aarch64_version.set(*version, FactSource::kOverride);
    }
  }
  WV_ASSIGN_OR_RETURN(bool arm_features,
                      override_list(environment, "WVLOCK_OVERRIDE_AARCH64_FEATURES", "",
                                    host.aarch64_features, is_feature_name,
                                    "feature names like `sve,bf16`"));
  (void)arm_features;
  return {};
}

Result<void> apply_platform_overrides(const Environment& environment, HostProfile& host) {
  if (std::optional<std::string> os = read(environment, "WVLOCK_OVERRIDE_OS")) {
    if (os->empty()) {
      host.os.clear(FactSource::kOverride);
    } else if (*os == "linux") {
      host.os.set(targets::OsKind::kLinux, FactSource::kOverride);
    } else if (*os == "macos") {
      host.os.set(targets::OsKind::kMacos, FactSource::kOverride);
    } else if (*os == "windows") {
      host.os.set(targets::OsKind::kWindows, FactSource::kOverride);
    } else {
      return bad_override("WVLOCK_OVERRIDE_OS", *os, "`linux`, `macos` or `windows`");
    }
  }
  if (std::optional<std::string> arch = read(environment, "WVLOCK_OVERRIDE_ARCH")) {
    if (arch->empty()) {
      host.arch.clear(FactSource::kOverride);
    } else if (*arch == "x86_64" || *arch == "aarch64") {
      host.arch.set(*arch, FactSource::kOverride);
    } else {
      return bad_override("WVLOCK_OVERRIDE_ARCH", *arch, "`x86_64` or `aarch64`");
    }
  }
  std::optional<std::string> glibc = read(environment, "WVLOCK_OVERRIDE_GLIBC");
  std::optional<std::string> musl = read(environment, "WVLOCK_OVERRIDE_MUSL");
  if (glibc && !glibc->empty()) {
    WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_GLIBC", "", host.libc_version));
    host.libc.set(targets::LibcKind::kGlibc, FactSource::kOverride);
  } else if (musl && !musl->empty()) {
    WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_MUSL", "", host.libc_version));
    host.libc.set(targets::LibcKind::kMusl, FactSource::kOverride);
  } else if ((glibc && glibc->empty()) || (musl && musl->empty())) {
    host.libc.clear(FactSource::kOverride);
    host.libc_version.clear(FactSource::kOverride);
  }
  WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_MACOS", "", host.macos_version));
  WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_PYTHON", "", host.python_version));
  return {};
}

// WVLOCK_OVERRIDE_CUDA_ARCH: a list of `M.m`; NV_VARIANT_PROVIDER_FORCE_SM_ARCH: one `M.m`.
Result<bool> override_compute_capabilities(const Environment& environment, HostProfile& host) {
  std::optional<std::string> value = read(environment, "WVLOCK_OVERRIDE_CUDA_ARCH");
  std::string_view used = "WVLOCK_OVERRIDE_CUDA_ARCH";
  if (!value) {
    value = read(environment, "NV_VARIANT_PROVIDER_FORCE_SM_ARCH");
    used = "NV_VARIANT_PROVIDER_FORCE_SM_ARCH";
    if (value && value->empty()) value.reset();
  }
  if (!value) return false;
  std::vector<MajorMinor> capabilities;
  for (const std::string& item : split_list(*value)) {
    Result<MajorMinor> parsed = targets::parse_major_minor(item, "compute capability");
    if (!parsed) return bad_override(used, *value, "compute capabilities like `9.0` or `8.0,9.0`");
    capabilities.push_back(*parsed);
  }
  if (capabilities.empty()) {
    host.compute_capabilities.clear(FactSource::kOverride);
  } else {
    host.compute_capabilities.set(std::move(capabilities), FactSource::kOverride);
  }
  return true;
}

bool is_set(const Environment& environment, std::string_view name) {
  return environment.get(name).has_value();
}
bool is_set_nonempty(const Environment& environment, std::string_view name) {
  std::optional<std::string> value = environment.get(name);
  return value && !value->empty();
}

}  // namespace

DetectOptions options_from_environment(const Environment& environment) {
  DetectOptions options;
  options.environment = &environment;
  if (auto root = environment.get("WVLOCK_SYSROOT")) options.root = *root;
  if (auto nvml = environment.get("WVLOCK_NVML_LIBRARY")) {
    options.nvml_libraries = nvml->empty() ? std::vector<std::string>{} : std::vector{*nvml};
  }
  if (auto cuda = environment.get("WVLOCK_CUDA_LIBRARY")) {
    options.cuda_libraries = cuda->empty() ? std::vector<std::string>{} : std::vector{*cuda};
  }
  if (auto smi = environment.get("WVLOCK_NVIDIA_SMI")) options.nvidia_smi = *smi;
  if (auto timeout = environment.get("WVLOCK_DETECT_TIMEOUT_MS")) {
    if (auto ms = parse_uint64(*timeout); ms && *ms > 0 && *ms < 3600000) {
      options.probe_timeout = std::chrono::milliseconds(*ms);
    }
  }
  return options;
}

Result<HostProfile> detect_host(const DetectOptions& options) {
  WV_CHECK(options.environment != nullptr, "detect_host needs an environment");
  const Environment& environment = *options.environment;
  HostProfile host;
  detect_platform(host);
  WV_TRY(apply_platform_overrides(environment, host));
  if (!host.libc.known() && host.os.value == targets::OsKind::kLinux &&
      !is_set(environment, "WVLOCK_OVERRIDE_GLIBC") && !is_set(environment, "WVLOCK_OVERRIDE_MUSL")) {
    detect_libc(options, host);
  }
  detect_cpu(options, host);
  WV_TRY(apply_cpu_overrides(environment, host));

  // NVIDIA: probe only what the overrides leave open.
  const bool driver_overridden =
      is_set(environment, "WVLOCK_OVERRIDE_CUDA_DRIVER") ||
      is_set_nonempty(environment, "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION");
  const bool arch_overridden = is_set(environment, "WVLOCK_OVERRIDE_CUDA_ARCH") ||
                               is_set_nonempty(environment, "NV_VARIANT_PROVIDER_FORCE_SM_ARCH");
  const bool driver_forced_absent =
      environment.get("WVLOCK_OVERRIDE_CUDA_DRIVER").value_or("x").empty();
  const bool skip_nvidia = host.os.value == targets::OsKind::kMacos || driver_forced_absent ||
                           (driver_overridden && arch_overridden);
  if (skip_nvidia) {
    if (host.os.value == targets::OsKind::kMacos) host.notes.push_back("nvidia: no CUDA on macOS");
  } else {
    NvidiaFacts nvidia = probe_nvidia(options);
    host.notes.insert(host.notes.end(), nvidia.notes.begin(), nvidia.notes.end());
    if (nvidia.found) {
      host.cuda_driver_version.set(nvidia.cuda_driver, nvidia.source);
      host.compute_capabilities.set(nvidia.compute_capabilities, nvidia.source);
      if (!nvidia.kernel_driver.empty()) {
        host.nvidia_kernel_driver.set(nvidia.kernel_driver, nvidia.source);
      }
    }
  }
  WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_CUDA_DRIVER",
                          "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION",
                          host.cuda_driver_version));
  WV_TRY(override_compute_capabilities(environment, host));

  // AMD (Linux only).
  const bool rocm_overridden = is_set(environment, "WVLOCK_OVERRIDE_ROCM") ||
                               is_set_nonempty(environment, "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION");
  const bool gfx_overridden = is_set(environment, "WVLOCK_OVERRIDE_GFX") ||
                              is_set_nonempty(environment, "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH");
  if (host.os.value == targets::OsKind::kLinux && !(rocm_overridden && gfx_overridden)) {
    AmdFacts amd = probe_amd(options);
    host.notes.insert(host.notes.end(), amd.notes.begin(), amd.notes.end());
    if (!amd.gfx_archs.empty()) host.gfx_archs.set(amd.gfx_archs, FactSource::kSysfs);
    if (amd.rocm_version) host.rocm_version.set(*amd.rocm_version, FactSource::kFile);
  }
  WV_TRY(override_version(environment, "WVLOCK_OVERRIDE_ROCM",
                          "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION", host.rocm_version, true));
  WV_TRY(override_list(environment, "WVLOCK_OVERRIDE_GFX", "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH",
                       host.gfx_archs, is_gfx, "gfx targets like `gfx942,gfx90a`"));

  // Intel: no Level Zero probe yet; overrides only.
  WV_ASSIGN_OR_RETURN(bool intel,
                      override_list(environment, "WVLOCK_OVERRIDE_INTEL_DEVICE_IP",
                                    "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP",
                                    host.intel_device_ips, is_device_ip,
                                    "device IPs like `12.55.8`"));
  if (!intel) {
    host.notes.push_back("intel: not probed (set WVLOCK_OVERRIDE_INTEL_DEVICE_IP to declare one)");
  }
  return host;
}

}  // namespace wv::detect
