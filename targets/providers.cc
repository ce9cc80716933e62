// Built-in variant providers and the per-package provider decision (variants.md §5).
#include "targets/providers.h"

#include <algorithm>
#include <span>

#include "src/base/str.h"
#include "src/pkg/marker.h"

namespace wv::targets {
namespace {

// Bounds of the NVIDIA catalogue: majors 15..11, minors 20..0 (nvidia-variant-provider2
// docs/nvidia.md "Version catalog").
constexpr int kCudaHighestMajor = 15;
constexpr int kCudaLowestMajor = 11;
constexpr int kCudaHighestMinor = 20;

// provider-variant-x86-64 plugin.py `all_features`, in preference order.
constexpr std::string_view kX86Features[] = {
    "avx_vnni", "cppc", "ibrs_enhanced", "tsc_adjust", "flush_l1d", "movdir64b", "movdiri",
    "avx512_bf16", "avx512_bitalg", "avx512_vbmi2", "avx512_vnni", "avx512_vp2intersect",
    "avx512_vpopcntdq", "avx512ifma", "avx512vbmi", "rdpid", "sha_ni", "vaes", "vpclmulqdq",
    "clwb", "clzero", "avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl", "clflushopt",
    "gfni", "rdseed", "xsavec", "xsaveopt", "adx", "avx2", "avx", "bmi2", "bmi1", "abm", "f16c",
    "fma", "movbe", "xsave", "rdrand", "aes", "pclmulqdq", "sse4a", "fsgsbase", "sse4_2",
    "sse4_1", "ssse3", "sse3", "cx16", "lahf_lm", "popcnt", "sse2", "sse", "mmx"};

// provider-variant-aarch64 plugin.py `all_features`, in preference order.
constexpr std::string_view kAarch64Features[] = {
    "sve2", "flagm2", "frint", "sb", "btiecv", "paca", "pacg", "ssbs", "asimdfhm", "bf16",
    "dcpodp", "dgh", "dit", "flagm", "i8mm", "ilrcpc", "jscvt", "rng", "sha3", "sha512",
    "svebf16", "svei8mm", "uscat", "asimddp", "lrcpc", "asimdhp", "dcpop", "fcma", "fphp", "sve",
    "asimdrdmatomics", "aes", "asimd", "cpuid", "crc32", "evtstrm", "fp", "pmull", "sha1",
    "sha2"};

// archspec's generic aarch64 ancestry, oldest first; the plugin caps at armv9.0a.
constexpr std::string_view kAarch64Versions[] = {"8a",   "8.1a", "8.2a", "8.3a",
                                                 "8.4a", "8.5a", "9.0a"};

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<SupportedFeature> on_features(std::span<const std::string_view> known,
                                          const std::vector<std::string>& present) {
  std::vector<SupportedFeature> features;
  for (std::string_view name : known) {
    if (contains(present, name)) features.push_back({std::string(name), {"on"}, false});
  }
  return features;
}

}  // namespace

std::vector<std::string> cuda_lower_bounds(MajorMinor driver) {
  std::vector<std::string> values;
  for (int minor = driver.minor; minor >= 0; --minor) {
    values.push_back(str_cat(driver.major, ".", minor));
  }
  values.push_back(std::to_string(driver.major));
  for (int major = driver.major - 1; major >= kCudaLowestMajor; --major) {
    for (int minor = kCudaHighestMinor; minor >= 0; --minor) {
      values.push_back(str_cat(major, ".", minor));
    }
    values.push_back(std::to_string(major));
  }
  return values;
}

std::vector<std::string> cuda_upper_bounds(MajorMinor driver) {
  std::vector<std::string> values;
  for (int major = kCudaHighestMajor; major >= driver.major && major >= kCudaLowestMajor;
       --major) {
    const int lowest_minor = major == driver.major ? driver.minor + 1 : 0;
    for (int minor = kCudaHighestMinor; minor >= lowest_minor; --minor) {
      values.push_back(str_cat(major, ".", minor));
    }
    if (major > driver.major) values.push_back(std::to_string(major));
  }
  return values;
}

std::vector<std::string> sm_arch_values(MajorMinor capability) {
  std::vector<std::string> values;
  if (capability.major < 5) return values;  // the plugin warns and omits sm_arch
  for (int minor = capability.minor; minor >= 0; --minor) {
    values.push_back(str_cat(capability.major, minor, "_real"));
  }
  values.push_back(str_cat(capability.major, "0_virtual"));
  return values;
}

std::vector<SupportedFeature> nvidia_supported_features(const HostProfile& host) {
  // The plugin: no driver -> nothing; no readable GPU -> the plugin fails (IndexError), which
  // an installer treats as nothing supported.
  const std::optional<MajorMinor> top = host.highest_compute_capability();
  if (!host.cuda_driver_version.known() || !top) return {};
  const MajorMinor driver = *host.cuda_driver_version.value;
  // Detected drivers outside [11.0, 15.20] are treated as absent; overrides skip the check.
  if (host.cuda_driver_version.source != FactSource::kOverride &&
      (driver < MajorMinor{kCudaLowestMajor, 0} ||
       driver > MajorMinor{kCudaHighestMajor, kCudaHighestMinor})) {
    return {};
  }
  std::vector<SupportedFeature> features;
  features.push_back({"cuda_version_lower_bound", cuda_lower_bounds(driver), false});
  std::vector<std::string> upper = cuda_upper_bounds(driver);
  if (!upper.empty()) features.push_back({"cuda_version_upper_bound", std::move(upper), false});
  std::vector<std::string> sm = sm_arch_values(*top);
  if (!sm.empty()) features.push_back({"sm_arch", std::move(sm), true});
  return features;
}

std::vector<SupportedFeature> amd_supported_features(const HostProfile& host) {
  std::vector<SupportedFeature> features;
  if (host.gfx_archs.known() && !host.gfx_archs.value->empty()) {
    features.push_back({"gfx_arch", *host.gfx_archs.value, true});
  }
  if (host.rocm_version.known()) {
    features.push_back({"rocm_version", {host.rocm_version.value->to_string()}, false});
  }
  return features;
}

std::vector<SupportedFeature> intel_supported_features(const HostProfile& host) {
  if (!host.intel_device_ips.known() || host.intel_device_ips.value->empty()) return {};
  return {{"device_ip", *host.intel_device_ips.value, true}};
}

std::vector<std::string> x86_64_level_features(int level) {
  std::vector<std::string> features;
  if (level >= 1) features.insert(features.end(), {"mmx", "sse", "sse2"});
  if (level >= 2) {
    features.insert(features.end(),
                    {"cx16", "lahf_lm", "popcnt", "sse3", "ssse3", "sse4_1", "sse4_2"});
  }
  if (level >= 3) {
    features.insert(features.end(),
                    {"avx", "avx2", "bmi1", "bmi2", "abm", "f16c", "fma", "movbe", "xsave"});
  }
  if (level >= 4) {
    features.insert(features.end(), {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
  }
  return features;
}

std::vector<SupportedFeature> x86_64_supported_features(const HostProfile& host) {
  if (!host.arch.known() || *host.arch.value != "x86_64" || !host.x86_64_level.known()) {
    return {};
  }
  const int level = std::clamp(*host.x86_64_level.value, 1, 4);
  SupportedFeature levels{"level", {}, false};
  for (int n = level; n >= 1; --n) levels.values.push_back(str_cat("v", n));
  std::vector<SupportedFeature> features{std::move(levels)};
  // Without a feature list (a declared level), the level's own psABI features are present.
  const std::vector<std::string> present = host.x86_64_features.known()
                                               ? *host.x86_64_features.value
                                               : x86_64_level_features(level);
  for (SupportedFeature& feature : on_features(kX86Features, present)) {
    features.push_back(std::move(feature));
  }
  return features;
}

std::vector<SupportedFeature> aarch64_supported_features(const HostProfile& host) {
  if (!host.arch.known() || *host.arch.value != "aarch64") return {};
  const std::string version = host.aarch64_version.value.value_or(std::string());
  std::size_t top = 0;  // `8a` when unknown: the generic aarch64 baseline
  for (std::size_t i = 0; i < std::size(kAarch64Versions); ++i) {
    if (kAarch64Versions[i] == version) top = i;
  }
  // Versions above 9.0a are capped (the plugin's max_known_version).
  if (!version.empty() && version[0] >= '9') top = std::size(kAarch64Versions) - 1;
  SupportedFeature versions{"version", {}, false};
  for (std::size_t i = top + 1; i-- > 0;) versions.values.emplace_back(kAarch64Versions[i]);
  std::vector<SupportedFeature> features{std::move(versions)};
  if (host.aarch64_features.known()) {
    for (SupportedFeature& feature : on_features(kAarch64Features, *host.aarch64_features.value)) {
      features.push_back(std::move(feature));
    }
  }
  return features;
}

std::optional<std::vector<SupportedFeature>> run_provider(std::string_view namespace_name,
                                                          const HostProfile& host) {
  if (namespace_name == "nvidia") return nvidia_supported_features(host);
  if (namespace_name == "amd") return amd_supported_features(host);
  if (namespace_name == "intel") return intel_supported_features(host);
  if (namespace_name == "x86_64") return x86_64_supported_features(host);
  if (namespace_name == "aarch64") return aarch64_supported_features(host);
  return std::nullopt;
}

std::string_view to_string(ProviderState state) {
  switch (state) {
    case ProviderState::kBuiltin: return "built-in";
    case ProviderState::kDeclared: return "declared";
    case ProviderState::kStatic: return "static";
    case ProviderState::kOptionalOff: return "optional, not enabled";
    case ProviderState::kEnableIfFalse: return "disabled by enable-if";
    case ProviderState::kEnableIfInvalid: return "invalid enable-if";
    case ProviderState::kUnknown: return "no provider";
  }
  return "no provider";
}

const SupportedFeature* NamespaceSupport::find(std::string_view feature) const {
  for (const SupportedFeature& candidate : features) {
    if (candidate.name == feature) return &candidate;
  }
  return nullptr;
}

const NamespaceSupport* SupportedVariants::find(std::string_view namespace_name) const {
  const auto it = namespaces.find(std::string(namespace_name));
  return it == namespaces.end() ? nullptr : &it->second;
}

Result<bool> evaluate_enable_if(std::string_view marker, const pkg::MarkerEnvironment& markers) {
  WV_ASSIGN_OR_RETURN(pkg::Marker parsed, pkg::parse_marker(marker));
  return parsed.evaluate(markers);
}

HostProviders::HostProviders(const HostProfile& host, pkg::MarkerEnvironment markers,
                             ProviderOptions options)
    : markers_(std::move(markers)), options_(std::move(options)) {
  for (std::string_view name : kBuiltinProviders) {
    outputs_[std::string(name)] = *run_provider(name, host);
    states_[std::string(name)] = ProviderState::kBuiltin;
  }
  // User-supplied static data is used exclusively for its namespace (variants.md §5.1).
  for (const auto& [name, features] : host.properties) {
    std::vector<SupportedFeature> declared;
    for (const auto& [feature, values] : features) declared.push_back({feature, values, true});
    outputs_[name] = std::move(declared);
    states_[name] = ProviderState::kDeclared;
  }
}

const std::vector<SupportedFeature>* HostProviders::output(std::string_view namespace_name) const {
  const auto it = outputs_.find(std::string(namespace_name));
  return it == outputs_.end() ? nullptr : &it->second;
}

SupportedVariants HostProviders::supported(const pkg::VariantsMetadata& metadata) const {
  // Every namespace the metadata mentions anywhere.
  std::vector<std::string> names = metadata.default_priorities.namespaces;
  auto add = [&](const std::string& name) {
    if (!contains(names, name)) names.push_back(name);
  };
  for (const auto& [name, provider] : metadata.providers) add(name);
  for (const auto& [name, features] : metadata.static_properties) add(name);
  for (const auto& [label, properties] : metadata.variants) {
    for (const pkg::VariantProperty& property : properties) add(property.namespace_);
  }

  SupportedVariants result;
  for (const std::string& name : names) {
    NamespaceSupport support;
    const auto provider = metadata.providers.find(name);
    const bool has_provider = provider != metadata.providers.end();
    if (has_provider && provider->second.optional && !contains(options_.enabled_optional, name)) {
      support.state = ProviderState::kOptionalOff;
      support.reason = str_cat("the provider of ", in_backticks(name),
                               " is optional and not enabled");
    } else if (metadata.is_static_namespace(name)) {
      support.state = ProviderState::kStatic;
      const auto it = metadata.static_properties.find(name);
      if (it != metadata.static_properties.end()) {
        // Feature order: default-priorities.feature first, then the rest by name (JSON
        // objects are unordered; variantlib requires the list when there are several).
        std::vector<std::string> order;
        const auto listed = metadata.default_priorities.features.find(name);
        if (listed != metadata.default_priorities.features.end()) order = listed->second;
        for (const auto& [feature, values] : it->second) {
          if (!contains(order, feature)) order.push_back(feature);
        }
        for (const std::string& feature : order) {
          const auto values = it->second.find(feature);
          if (values != it->second.end()) support.features.push_back({feature, values->second, true});
        }
      } else {
        support.reason = str_cat("the ahead-of-time namespace ", in_backticks(name),
                                 " has no static-properties");
      }
    } else {
      bool enabled = true;
      if (has_provider && provider->second.enable_if) {
        Result<bool> value = evaluate_enable_if(*provider->second.enable_if, markers_);
        if (!value) {
          enabled = false;
          support.state = ProviderState::kEnableIfInvalid;
          support.reason = str_cat("the enable-if marker of ", in_backticks(name),
                                   " is invalid: ", value.error().message);
        } else if (!*value) {
          enabled = false;
          support.state = ProviderState::kEnableIfFalse;
          support.reason = str_cat("the provider of ", in_backticks(name), " is disabled here (",
                                   in_backticks(*provider->second.enable_if), " is false)");
        }
      }
      if (enabled) {
        const auto output = outputs_.find(name);
        if (output != outputs_.end()) {
          support.state = states_.at(name);
          support.features = output->second;
          if (support.features.empty()) {
            support.reason = str_cat("the ", in_backticks(name), " provider reports nothing here");
          }
        } else {
          support.state = ProviderState::kUnknown;
          support.reason = str_cat("wvlock has no provider for namespace ", in_backticks(name));
        }
      }
    }
    result.namespaces.emplace(name, std::move(support));
  }
  return result;
}

}  // namespace wv::targets
