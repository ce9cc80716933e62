#include "lock/target_context.h"

#include "base/str.h"

namespace wv::lock {
namespace {

pkg::Version python_of(const pkg::MarkerEnvironment& markers) {
  auto version = pkg::parse_version(markers.python_full_version);
  if (version) return *version;
  auto short_version = pkg::parse_version(markers.python_version);
  return short_version ? *short_version : pkg::Version::from_release({3});
}

}  // namespace

TargetContext::TargetContext(std::string target_name, targets::HostProfile target_host,
                             pkg::MarkerEnvironment markers, std::vector<pkg::Tag> tag_list,
                             targets::ProviderOptions provider_options)
    : name(std::move(target_name)),
      host(std::move(target_host)),
      environment(markers),
      tags(std::move(tag_list)),
      providers(host, markers, std::move(provider_options)),
      python_version(python_of(markers)) {
  // Variables in the reference's sort order so the same target always gives the same text.
  platform_marker = "platform_machine == \"" + markers.platform_machine +
                    "\" and python_version == \"" + markers.python_version +
                    "\" and sys_platform == \"" + markers.sys_platform + "\"";
}

Result<TargetContext> make_target_context(const targets::Target& target,
                                          targets::ProviderOptions options) {
  auto where = [&](Error error) {
    return std::move(error).with_context(str_cat("target ", in_backticks(target.name)));
  };
  auto markers = targets::marker_environment(target.profile);
  if (!markers) return where(markers.error());
  auto tags = targets::compatible_tags(target.profile);
  if (!tags) return where(tags.error());
  TargetContext context(target.name, target.profile, std::move(*markers), std::move(*tags),
                        std::move(options));
  const targets::HostProfile& host = target.profile;
  auto declared = [](const auto& fact) {
    return fact.known() && fact.source == targets::FactSource::kDeclared;
  };
  context.facts["platform"] = target.platform;
  if (host.python_version.known()) context.facts["python"] = host.python_version.value->to_string();
  if (declared(host.libc_version)) {
    context.facts[host.libc.value == targets::LibcKind::kMusl ? "musl" : "glibc"] =
        host.libc_version.value->to_string();
  }
  if (declared(host.macos_version)) context.facts["macos"] = host.macos_version.value->to_string();
  if (declared(host.x86_64_level)) context.facts["x86-64-level"] = std::to_string(*host.x86_64_level.value);
  if (declared(host.aarch64_version)) context.facts["aarch64-version"] = *host.aarch64_version.value;
  if (declared(host.cuda_driver_version)) {
    context.facts["cuda-driver"] = host.cuda_driver_version.value->to_string();
  }
  if (declared(host.compute_capabilities)) {
    std::vector<std::string> capabilities;
    for (const auto& capability : *host.compute_capabilities.value) {
      capabilities.push_back(capability.to_string());
    }
    context.facts["compute-capability"] = join(capabilities, ",");
  }
  if (declared(host.rocm_version)) context.facts["rocm"] = host.rocm_version.value->to_string();
  if (declared(host.gfx_archs)) context.facts["gfx"] = join(*host.gfx_archs.value, ",");
  if (declared(host.intel_device_ips)) {
    context.facts["intel-device-ip"] = join(*host.intel_device_ips.value, ",");
  }
  return context;
}

}  // namespace wv::lock
