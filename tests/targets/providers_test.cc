// Tests for targets/providers.h: the built-in providers reproduce the official plugins'
// get_supported_configs() (reference/variants.md §5.4–§5.7) and the per-package decision
// procedure (static, optional, enable-if, declared properties).
#include "targets/providers.h"

#include <catch2/catch.hpp>

#include "src/base/str.h"

namespace wv::targets {
namespace {

HostProfile linux_host() {
  HostProfile host;
  host.os.set(OsKind::kLinux, FactSource::kDeclared);
  host.arch.set("x86_64", FactSource::kDeclared);
  return host;
}

pkg::MarkerEnvironment linux_markers() {
  pkg::MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.12.0";
  env.os_name = "posix";
  env.platform_machine = "x86_64";
  env.platform_python_implementation = "CPython";
  env.platform_system = "Linux";
  env.python_full_version = "3.12.0";
  env.python_version = "3.12";
  env.sys_platform = "linux";
  return env;
}

std::vector<std::string> names(const std::vector<SupportedFeature>& features) {
  std::vector<std::string> out;
  for (const SupportedFeature& feature : features) out.push_back(feature.name);
  return out;
}

// "M.m ... M.0, M" for m..0 then K.20..K.0,K for each lower major down to 11.
std::vector<std::string> expected_lower(int major, int minor) {
  std::vector<std::string> out;
  for (int m = minor; m >= 0; --m) out.push_back(str_cat(major, ".", m));
  out.push_back(std::to_string(major));
  for (int k = major - 1; k >= 11; --k) {
    for (int m = 20; m >= 0; --m) out.push_back(str_cat(k, ".", m));
    out.push_back(std::to_string(k));
  }
  return out;
}

TEST_CASE("providers: nvidia CUDA 12.7 with SM 8.9 matches the plugin's replay fixture",
          "[targets][providers]") {
  // wheelnext/nvidia-variant-provider2 json/tests/cases/detected_12070.json
  HostProfile host = linux_host();
  host.cuda_driver_version.set({12, 7}, FactSource::kNvml);
  host.compute_capabilities.set({{8, 9}}, FactSource::kNvml);
  const std::vector<SupportedFeature> features = nvidia_supported_features(host);
  REQUIRE(names(features) == std::vector<std::string>{"cuda_version_lower_bound",
                                                       "cuda_version_upper_bound", "sm_arch"});
  const auto& lower = features[0].values;
  REQUIRE(lower.size() == 31);
  CHECK(lower.front() == "12.7");
  CHECK(lower[7] == "12.0");
  CHECK(lower[8] == "12");
  CHECK(lower[9] == "11.20");
  CHECK(lower.back() == "11");
  CHECK(lower == expected_lower(12, 7));
  const auto& upper = features[1].values;
  CHECK(upper.front() == "15.20");
  CHECK(upper[20] == "15.0");
  CHECK(upper[21] == "15");
  CHECK(upper.back() == "12.8");
  CHECK(std::find(upper.begin(), upper.end(), "12") == upper.end());
  CHECK(std::find(upper.begin(), upper.end(), "13") != upper.end());
  CHECK(upper.size() == 22 * 3 + 13);  // 15, 14, 13 with major-only; 12.20..12.8
  CHECK(features[2].values ==
        std::vector<std::string>{"89_real", "88_real", "87_real", "86_real", "85_real",
                                 "84_real", "83_real", "82_real", "81_real", "80_real",
                                 "80_virtual"});
  CHECK(features[2].multi_value);
  CHECK_FALSE(features[0].multi_value);
}

TEST_CASE("providers: nvidia uses the highest GPU and drops old GPUs and bad drivers",
          "[targets][providers]") {
  HostProfile host = linux_host();
  host.cuda_driver_version.set({12, 8}, FactSource::kNvml);
  host.compute_capabilities.set({{8, 0}, {12, 5}, {9, 0}}, FactSource::kNvml);
  std::vector<SupportedFeature> features = nvidia_supported_features(host);
  REQUIRE(features.size() == 3);
  CHECK(features[2].values == std::vector<std::string>{"125_real", "124_real", "123_real",
                                                       "122_real", "121_real", "120_real",
                                                       "120_virtual"});
  CHECK(sm_arch_values({9, 0}) == std::vector<std::string>{"90_real", "90_virtual"});

  SECTION("an old GPU (SM < 5.0) omits sm_arch but keeps the bounds") {
    host.compute_capabilities.set({{3, 7}}, FactSource::kNvml);
    CHECK(names(nvidia_supported_features(host)) ==
          std::vector<std::string>{"cuda_version_lower_bound", "cuda_version_upper_bound"});
  }
  SECTION("no readable GPU: the plugin fails, nothing is supported") {
    host.compute_capabilities.set({}, FactSource::kNvml);
    CHECK(nvidia_supported_features(host).empty());
  }
  SECTION("no driver: nothing") {
    host.cuda_driver_version.clear(FactSource::kUnknown);
    CHECK(nvidia_supported_features(host).empty());
  }
  SECTION("a detected driver outside 11.0..15.20 is absent, an override is not") {
    host.cuda_driver_version.set({10, 9}, FactSource::kNvml);
    CHECK(nvidia_supported_features(host).empty());
    host.cuda_driver_version.set({16, 0}, FactSource::kNvml);
    CHECK(nvidia_supported_features(host).empty());
    host.cuda_driver_version.set({10, 9}, FactSource::kOverride);
    const auto forced = nvidia_supported_features(host);
    REQUIRE_FALSE(forced.empty());
    CHECK(forced[0].values == std::vector<std::string>{"10.9", "10.8", "10.7", "10.6", "10.5",
                                                       "10.4", "10.3", "10.2", "10.1", "10.0",
                                                       "10"});
  }
  SECTION("driver 13.0: lower bounds start at 13.0, 13, then 12.20") {
    host.cuda_driver_version.set({13, 0}, FactSource::kNvml);
    const auto lower = nvidia_supported_features(host)[0].values;
    CHECK(std::vector<std::string>(lower.begin(), lower.begin() + 3) ==
          std::vector<std::string>{"13.0", "13", "12.20"});
  }
  SECTION("driver 15.20: no upper bound remains") {
    host.cuda_driver_version.set({15, 20}, FactSource::kNvml);
    CHECK(names(nvidia_supported_features(host)) ==
          std::vector<std::string>{"cuda_version_lower_bound", "sm_arch"});
  }
}

TEST_CASE("providers: amd emits gfx_arch then the exact ROCm major.minor",
          "[targets][providers]") {
  HostProfile host = linux_host();
  CHECK(amd_supported_features(host).empty());
  host.gfx_archs.set({"gfx90a", "gfx942"}, FactSource::kSysfs);
  host.rocm_version.set({6, 4}, FactSource::kFile);
  const auto features = amd_supported_features(host);
  REQUIRE(features.size() == 2);
  CHECK(features[0].name == "gfx_arch");
  CHECK(features[0].values == std::vector<std::string>{"gfx90a", "gfx942"});
  CHECK(features[0].multi_value);
  CHECK(features[1].name == "rocm_version");
  CHECK(features[1].values == std::vector<std::string>{"6.4"});
  // ROCm without a GPU still reports the version (the plugin does).
  host.gfx_archs.clear(FactSource::kSysfs);
  CHECK(names(amd_supported_features(host)) == std::vector<std::string>{"rocm_version"});
}

TEST_CASE("providers: intel device_ip", "[targets][providers]") {
  HostProfile host = linux_host();
  CHECK(intel_supported_features(host).empty());
  host.intel_device_ips.set({"12.60.7", "12.55.8"}, FactSource::kOverride);
  const auto features = intel_supported_features(host);
  REQUIRE(features.size() == 1);
  CHECK(features[0].name == "device_ip");
  CHECK(features[0].values == std::vector<std::string>{"12.60.7", "12.55.8"});
}

TEST_CASE("providers: x86_64 levels and extensions follow the plugin's tests",
          "[targets][providers]") {
  HostProfile host = linux_host();
  CHECK(x86_64_supported_features(host).empty());  // no level known
  SECTION("generic x86_64_v2 (provider-variant-x86-64 test_generic_configs)") {
    host.x86_64_level.set(2, FactSource::kDeclared);
    CHECK(names(x86_64_supported_features(host)) ==
          std::vector<std::string>{"level", "sse4_2", "sse4_1", "ssse3", "sse3", "cx16",
                                   "lahf_lm", "popcnt", "sse2", "sse", "mmx"});
    CHECK(x86_64_supported_features(host)[0].values == std::vector<std::string>{"v2", "v1"});
    CHECK(x86_64_supported_features(host)[1].values == std::vector<std::string>{"on"});
  }
  SECTION("sandybridge features (test_sandybridge_configs)") {
    host.x86_64_level.set(2, FactSource::kCpuid);
    host.x86_64_features.set({"mmx", "sse", "sse2", "sse3", "ssse3", "sse4_1", "sse4_2",
                              "popcnt", "avx", "aes", "pclmulqdq"},
                             FactSource::kCpuid);
    CHECK(names(x86_64_supported_features(host)) ==
          std::vector<std::string>{"level", "avx", "aes", "pclmulqdq", "sse4_2", "sse4_1",
                                   "ssse3", "sse3", "popcnt", "sse2", "sse", "mmx"});
  }
  SECTION("v4 and a capped level") {
    host.x86_64_level.set(4, FactSource::kDeclared);
    const auto features = x86_64_supported_features(host);
    CHECK(features[0].values == std::vector<std::string>{"v4", "v3", "v2", "v1"});
    CHECK(features[1].name == "avx512bw");
    host.x86_64_level.set(6, FactSource::kOverride);
    CHECK(x86_64_supported_features(host)[0].values ==
          std::vector<std::string>{"v4", "v3", "v2", "v1"});
  }
  SECTION("not on aarch64") {
    host.arch.set("aarch64", FactSource::kDeclared);
    host.x86_64_level.set(3, FactSource::kDeclared);
    CHECK(x86_64_supported_features(host).empty());
  }
}

TEST_CASE("providers: aarch64 versions along the archspec chain, then features",
          "[targets][providers]") {
  HostProfile host = linux_host();
  host.arch.set("aarch64", FactSource::kDeclared);
  SECTION("generic aarch64") {
    CHECK(aarch64_supported_features(host) ==
          std::vector<SupportedFeature>{{"version", {"8a"}, false}});
  }
  SECTION("armv8.4a (test_arm84a_configs)") {
    host.aarch64_version.set("8.4a", FactSource::kDeclared);
    CHECK(aarch64_supported_features(host)[0].values ==
          std::vector<std::string>{"8.4a", "8.3a", "8.2a", "8.1a", "8a"});
  }
  SECTION("capped at 9.0a") {
    host.aarch64_version.set("9.2a", FactSource::kOverride);
    CHECK(aarch64_supported_features(host)[0].values ==
          std::vector<std::string>{"9.0a", "8.5a", "8.4a", "8.3a", "8.2a", "8.1a", "8a"});
  }
  SECTION("a64fx features in preference order (test_a64fx_configs)") {
    host.aarch64_version.set("8.2a", FactSource::kAuxv);
    host.aarch64_features.set({"fp", "asimd", "evtstrm", "sha1", "sha2", "crc32", "fphp",
                               "asimdhp", "cpuid", "dcpop", "fcma", "sve"},
                              FactSource::kAuxv);
    CHECK(names(aarch64_supported_features(host)) ==
          std::vector<std::string>{"version", "asimdhp", "dcpop", "fcma", "fphp", "sve",
                                   "asimd", "cpuid", "crc32", "evtstrm", "fp", "sha1", "sha2"});
  }
}

pkg::VariantsMetadata torch_like_metadata() {
  pkg::VariantsMetadata metadata;
  metadata.default_priorities.namespaces = {"nvidia", "amd", "priority", "blas", "debug"};
  metadata.providers["nvidia"].enable_if = "platform_system == 'Linux' or platform_system == 'Windows'";
  metadata.providers["amd"].enable_if = "platform_system == 'Linux'";
  metadata.providers["priority"].install_time = false;
  metadata.providers["debug"].optional = true;
  metadata.providers["blas"].requirements = {"blas-provider"};
  metadata.static_properties["priority"]["order"] = {"1", "2", "3"};
  metadata.variants["null"] = {};
  return metadata;
}

TEST_CASE("providers: the decision procedure per namespace", "[targets][providers]") {
  HostProfile host = linux_host();
  host.cuda_driver_version.set({12, 8}, FactSource::kDeclared);
  host.compute_capabilities.set({{9, 0}}, FactSource::kDeclared);
  const pkg::VariantsMetadata metadata = torch_like_metadata();

  HostProviders providers(host, linux_markers());
  const SupportedVariants supported = providers.supported(metadata);
  REQUIRE(supported.find("nvidia") != nullptr);
  CHECK(supported.find("nvidia")->state == ProviderState::kBuiltin);
  CHECK(supported.find("nvidia")->find("sm_arch") != nullptr);
  CHECK(supported.find("amd")->state == ProviderState::kBuiltin);
  CHECK(supported.find("amd")->features.empty());
  CHECK(supported.find("priority")->state == ProviderState::kStatic);
  CHECK(supported.find("priority")->features ==
        std::vector<SupportedFeature>{{"order", {"1", "2", "3"}, true}});
  CHECK(supported.find("debug")->state == ProviderState::kOptionalOff);
  CHECK(supported.find("blas")->state == ProviderState::kUnknown);
  CHECK(supported.find("blas")->reason.find("`blas`") != std::string::npos);

  SECTION("enable-if false on macOS disables nvidia") {
    pkg::MarkerEnvironment mac = linux_markers();
    mac.platform_system = "Darwin";
    mac.sys_platform = "darwin";
    const SupportedVariants on_mac = HostProviders(host, mac).supported(metadata);
    CHECK(on_mac.find("nvidia")->state == ProviderState::kEnableIfFalse);
    CHECK(on_mac.find("nvidia")->features.empty());
    CHECK(on_mac.find("nvidia")->reason.find("is false") != std::string::npos);
  }
  SECTION("an enabled optional provider and declared properties") {
    host.properties["debug"]["build"] = {"on"};
    host.properties["blas"]["provider"] = {"openblas", "mkl"};
    ProviderOptions options;
    options.enabled_optional = {"debug"};
    const SupportedVariants enabled = HostProviders(host, linux_markers(), options).supported(metadata);
    CHECK(enabled.find("debug")->state == ProviderState::kDeclared);
    CHECK(enabled.find("blas")->state == ProviderState::kDeclared);
    CHECK(enabled.find("blas")->find("provider")->values ==
          std::vector<std::string>{"openblas", "mkl"});
  }
  SECTION("an invalid enable-if disables the namespace with the reason") {
    pkg::VariantsMetadata broken = metadata;
    broken.providers["nvidia"].enable_if = "platform_system ==";
    const SupportedVariants result = providers.supported(broken);
    CHECK(result.find("nvidia")->state == ProviderState::kEnableIfInvalid);
    CHECK(result.find("nvidia")->features.empty());
  }
}

}  // namespace
}  // namespace wv::targets
