#include "targets/default_targets.h"

#include <algorithm>
#include <map>

#include "src/base/str.h"
#include "src/pkg/marker.h"

namespace wv::targets {
namespace {

// The platform shorthand of a live host, or "" when it has none.
std::string platform_shorthand(const HostProfile& live) {
  if (!live.os.known() || !live.arch.known()) return "";
  const std::string& arch = *live.arch.value;
  switch (*live.os.value) {
    case OsKind::kLinux: {
      const bool musl = live.libc.known() && *live.libc.value == LibcKind::kMusl;
      return str_cat(musl ? "linux-musl-" : "linux-", arch);
    }
    case OsKind::kMacos:
      return arch == "aarch64" ? "macos-arm64" : str_cat("macos-", arch);
    case OsKind::kWindows:
      return arch == "aarch64" ? "windows-arm64" : "windows-amd64";
  }
  return "";
}

std::string joined_versions(const std::vector<MajorMinor>& versions) {
  std::vector<std::string> texts;
  for (const MajorMinor& version : versions) texts.push_back(version.to_string());
  return join(texts, ",");
}

// The implied CPU baselines a declared target of this platform gets (targets/project_targets.cc).
void set_cpu_defaults(HostProfile& profile) {
  if (!profile.arch.known()) return;
  if (*profile.arch.value == "x86_64") profile.x86_64_level.set(1, FactSource::kDefault);
  if (*profile.arch.value == "aarch64") profile.aarch64_version.set("8a", FactSource::kDefault);
}

}  // namespace

Result<Target> host_target(const HostProfile& live, std::string name) {
  const std::string platform = platform_shorthand(live);
  if (platform.empty() || !parse_platform(platform)) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("this host (", describe(live), ") has no wvlock platform: declare "
                              "the machines to lock for with `[[tool.wvlock.target]]` "
                              "(docs/targets.md)"));
  }
  std::map<std::string, std::string> facts{{"platform", platform}};
  const bool linux = *live.os.value == OsKind::kLinux;
  if (linux && live.libc_version.known()) {
    const bool musl = live.libc.known() && *live.libc.value == LibcKind::kMusl;
    facts[musl ? "musl" : "glibc"] = live.libc_version.value->to_string();
  }
  if (*live.os.value == OsKind::kMacos && live.macos_version.known()) {
    facts["macos"] = live.macos_version.value->to_string();
  }
  if (*live.os.value != OsKind::kMacos && live.cuda_driver_version.known() &&
      live.compute_capabilities.known() && !live.compute_capabilities.value->empty()) {
    facts["cuda-driver"] = live.cuda_driver_version.value->to_string();
    std::vector<MajorMinor> capabilities = *live.compute_capabilities.value;
    std::sort(capabilities.begin(), capabilities.end());
    capabilities.erase(std::unique(capabilities.begin(), capabilities.end()), capabilities.end());
    facts["compute-capability"] = joined_versions(capabilities);
  }
  if (linux && live.rocm_version.known()) {
    facts["rocm"] = live.rocm_version.value->to_string();
    if (live.gfx_archs.known() && !live.gfx_archs.value->empty()) {
      facts["gfx"] = join(*live.gfx_archs.value, ",");
    }
  }
  if (live.intel_device_ips.known() && !live.intel_device_ips.value->empty()) {
    facts["intel-device-ip"] = join(*live.intel_device_ips.value, ",");
  }
  WV_ASSIGN_OR_RETURN(Target target, target_from_facts(std::move(name), facts));
  set_cpu_defaults(target.profile);
  return target;
}

Result<Target> platform_target(std::string name, std::string_view shorthand) {
  WV_ASSIGN_OR_RETURN(Target target,
                      target_from_facts(std::move(name), {{"platform", std::string(shorthand)}}));
  set_cpu_defaults(target.profile);
  return target;
}

Result<std::optional<std::string>> environment_platform(std::string_view marker,
                                                        const MajorMinor& python) {
  WV_ASSIGN_OR_RETURN(pkg::Marker parsed, pkg::parse_marker(marker));
  constexpr std::string_view kCandidates[] = {"linux-x86_64", "linux-aarch64", "macos-arm64",
                                              "macos-x86_64", "windows-amd64", "windows-arm64"};
  for (std::string_view shorthand : kCandidates) {
    Result<Target> target = target_from_facts(
        std::string(shorthand), {{"platform", std::string(shorthand)}, {"python", python.to_string()}});
    if (!target) continue;
    WV_ASSIGN_OR_RETURN(pkg::MarkerEnvironment environment, marker_environment(target->profile));
    WV_ASSIGN_OR_RETURN(bool holds, parsed.evaluate(environment));
    if (holds) return std::optional<std::string>(std::string(shorthand));
  }
  return std::optional<std::string>();
}

std::vector<Target> split_conflicting_extras(const Target& target,
                                             const std::vector<std::string>& extras,
                                             const std::vector<ConflictSet>& conflicts) {
  // Each way to choose at most one extra of every set, so that no two chosen extras share a
  // set (sets may overlap).
  std::vector<ConflictSet> sets;
  std::vector<std::string> conflicting;
  for (const ConflictSet& set : conflicts) {
    ConflictSet members;
    for (const std::string& extra : set) {
      if (std::find(extras.begin(), extras.end(), extra) != extras.end()) members.push_back(extra);
    }
    if (members.size() < 2) continue;
    conflicting.insert(conflicting.end(), members.begin(), members.end());
    sets.push_back(std::move(members));
  }
  const auto clash = [&](const std::vector<std::string>& chosen, const std::string& extra) {
    return std::any_of(sets.begin(), sets.end(), [&](const ConflictSet& set) {
      const auto in = [&](const std::string& name) {
        return std::find(set.begin(), set.end(), name) != set.end();
      };
      return in(extra) && std::any_of(chosen.begin(), chosen.end(), in);
    });
  };
  std::vector<std::vector<std::string>> choices{{}};
  for (const ConflictSet& set : sets) {
    std::vector<std::vector<std::string>> next;
    for (const std::vector<std::string>& chosen : choices) {
      std::vector<std::vector<std::string>> more;
      for (const std::string& member : set) {
        if (std::find(chosen.begin(), chosen.end(), member) != chosen.end()) {
          more = {chosen};  // the set has its one already
          break;
        }
        if (clash(chosen, member)) continue;
        more.push_back(chosen);
        more.back().push_back(member);
      }
      if (more.empty()) more.push_back(chosen);
      for (auto& choice : more) {
        if (std::find(next.begin(), next.end(), choice) == next.end()) next.push_back(std::move(choice));
      }
    }
    choices = std::move(next);
  }
  std::vector<std::string> free;
  for (const std::string& extra : extras) {
    if (std::find(conflicting.begin(), conflicting.end(), extra) == conflicting.end()) {
      free.push_back(extra);
    }
  }
  std::vector<Target> out;
  for (const std::vector<std::string>& chosen : choices) {
    Target split = target;
    split.extras = free;
    split.extras.insert(split.extras.end(), chosen.begin(), chosen.end());
    if (!chosen.empty()) split.name = str_cat(target.name, "-", join(chosen, "-"));
    out.push_back(std::move(split));
  }
  return out;
}

}  // namespace wv::targets
