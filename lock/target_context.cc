#include "lock/target_context.h"

#include "src/base/str.h"

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
                                          targets::ProviderOptions options, bool with_tags) {
  auto where = [&](Error error) {
    return std::move(error).with_context(str_cat("target ", in_backticks(target.name)));
  };
  auto markers = targets::marker_environment(target.profile);
  if (!markers) return where(markers.error());
  auto tags = with_tags ? targets::compatible_tags(target.profile)
                       : Result<std::vector<pkg::Tag>>(std::vector<pkg::Tag>{});
  if (!tags) return where(tags.error());
  TargetContext context(target.name, target.profile, std::move(*markers), std::move(*tags),
                        std::move(options));
  // The lockfile's form of the target (declared facts only), so a lock read back compares
  // equal to the one written.
  context.facts = targets::declared_facts(target);
  auto declared = targets::target_from_facts(target.name, context.facts, target.profile.properties);
  if (!declared) return where(declared.error());
  context.declared = std::move(*declared);
  context.declared.declared_name = target.declared_name;
  return context;
}

}  // namespace wv::lock
