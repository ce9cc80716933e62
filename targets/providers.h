// Variant providers (reference/variants.md §5): turn a HostProfile into the ordered supported
// features and values of each namespace, exactly as the official plugins compute them —
// nvidia (nvidia-variant-provider 0.0.2), amd (amd-variant-provider 0.0.2), intel
// (device_ip), x86_64 (provider-variant-x86-64), aarch64 (provider-variant-aarch64) — and
// combine them with a package version's variant metadata: static (ahead-of-time) namespaces
// from static-properties, optional providers off unless enabled, enable-if evaluated against
// the host's marker environment (variants.md §5.1). Cheap to include.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/pkg/marker_environment.h"
#include "src/pkg/variant.h"
#include "targets/host_profile.h"

namespace wv::targets {

/// One supported feature: its values, most preferred first (a plugin's VariantFeatureConfig).
struct SupportedFeature {
  std::string name;
  std::vector<std::string> values;
  bool multi_value = false;
  bool operator==(const SupportedFeature&) const = default;
};

/// The namespaces wvlock computes itself, in this order.
inline constexpr std::string_view kBuiltinProviders[] = {"nvidia", "amd", "intel", "x86_64",
                                                         "aarch64"};

/// nvidia: cuda_version_lower_bound, cuda_version_upper_bound, sm_arch (highest GPU).
/// Empty when the CUDA driver version or every compute capability is unknown.
std::vector<SupportedFeature> nvidia_supported_features(const HostProfile& host);
/// amd: gfx_arch (multi-value, as listed), then rocm_version (exact `major.minor`).
std::vector<SupportedFeature> amd_supported_features(const HostProfile& host);
/// intel: device_ip (multi-value, as listed).
std::vector<SupportedFeature> intel_supported_features(const HostProfile& host);
/// x86_64: level `vN … v1` (N capped at 4), then each known extension with value `on`, in
/// the plugin's preference order. Empty unless the host is x86_64.
std::vector<SupportedFeature> x86_64_supported_features(const HostProfile& host);
/// aarch64: version `X … 8a` along the archspec ancestry (capped at 9.0a), then each known
/// feature with value `on`. Empty unless the host is aarch64.
std::vector<SupportedFeature> aarch64_supported_features(const HostProfile& host);

/// The features the psABI requires at x86-64 `level` (1..4), as archspec names them.
std::vector<std::string> x86_64_level_features(int level);
/// The CUDA lower bounds for a driver `M.m`: `M.m … M.0, M`, then `K.20 … K.0, K` for K < M
/// down to 11.
std::vector<std::string> cuda_lower_bounds(MajorMinor driver);
/// The CUDA upper bounds (meaning "< value"): `15.20 … 15.0, 15, …` down to `M.(m+1)`.
std::vector<std::string> cuda_upper_bounds(MajorMinor driver);
/// The sm_arch values of a GPU `X.Y`: `XY_real … X0_real, X0_virtual`; empty below 5.0.
std::vector<std::string> sm_arch_values(MajorMinor capability);

/// The output of a built-in provider for `namespace_name`, or nullopt when wvlock has no
/// built-in provider for it. Declared raw `properties` for the namespace take precedence.
std::optional<std::vector<SupportedFeature>> run_provider(std::string_view namespace_name,
                                                          const HostProfile& host);

/// How a namespace got its supported values for one package version.
enum class ProviderState {
  kBuiltin,          ///< a built-in provider ran on the host profile
  kDeclared,         ///< the host's declared `properties` table (user-supplied static data)
  kStatic,           ///< static-properties (ahead-of-time provider)
  kOptionalOff,      ///< an optional provider the user did not enable
  kEnableIfFalse,    ///< enable-if is false on this host
  kEnableIfInvalid,  ///< enable-if does not parse
  kUnknown,          ///< no provider wvlock can run for this namespace
};
std::string_view to_string(ProviderState state);

/// The supported values of one namespace for one package version.
struct NamespaceSupport {
  ProviderState state = ProviderState::kUnknown;
  std::vector<SupportedFeature> features;
  /// Why the namespace supports nothing (disabled, no provider), for messages.
  std::string reason;

  /// The values of `feature`, or nullptr when the feature is unsupported.
  const SupportedFeature* find(std::string_view feature) const;
};

/// Supported values per namespace, for one package version on one host.
struct SupportedVariants {
  std::map<std::string, NamespaceSupport> namespaces;
  const NamespaceSupport* find(std::string_view namespace_name) const;
};

/// User choices that change provider use.
struct ProviderOptions {
  /// Optional providers the user enabled (by namespace).
  std::vector<std::string> enabled_optional;
};

/// Evaluates an `enable-if` marker against `markers`; an error when it does not parse.
Result<bool> evaluate_enable_if(std::string_view marker, const pkg::MarkerEnvironment& markers);

/// The provider outputs of one host, computed once and reused for every package version.
class HostProviders {
 public:
  HostProviders(const HostProfile& host, pkg::MarkerEnvironment markers,
                ProviderOptions options = {});

  /// The supported values for every namespace `metadata` mentions (variants.md §5.1 decision
  /// procedure: disabled -> static data -> declared data -> built-in provider -> unknown).
  SupportedVariants supported(const pkg::VariantsMetadata& metadata) const;

  /// A built-in or declared provider's output for `namespace_name` (nullptr when none).
  const std::vector<SupportedFeature>* output(std::string_view namespace_name) const;
  /// Every built-in and declared namespace with its output, in a stable order.
  const std::map<std::string, std::vector<SupportedFeature>>& outputs() const { return outputs_; }
  const pkg::MarkerEnvironment& markers() const { return markers_; }

 private:
  std::map<std::string, std::vector<SupportedFeature>> outputs_;
  std::map<std::string, ProviderState> states_;
  pkg::MarkerEnvironment markers_;
  ProviderOptions options_;
};

}  // namespace wv::targets
