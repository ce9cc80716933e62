// Platform shorthands and the expansion of a host profile into markers and tags.
#include "targets/target.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::targets {

Result<Platform> parse_platform(std::string_view shorthand) {
  Platform platform;
  if (shorthand == "linux-x86_64" || shorthand == "linux-aarch64") {
    platform = {OsKind::kLinux, std::string(shorthand.substr(6)), LibcKind::kGlibc};
  } else if (shorthand == "linux-musl-x86_64" || shorthand == "linux-musl-aarch64") {
    platform = {OsKind::kLinux, std::string(shorthand.substr(11)), LibcKind::kMusl};
  } else if (shorthand == "macos-arm64") {
    platform = {OsKind::kMacos, "aarch64", LibcKind::kGlibc};
  } else if (shorthand == "macos-x86_64") {
    platform = {OsKind::kMacos, "x86_64", LibcKind::kGlibc};
  } else if (shorthand == "windows-amd64") {
    platform = {OsKind::kWindows, "x86_64", LibcKind::kGlibc};
  } else if (shorthand == "windows-arm64") {
    platform = {OsKind::kWindows, "aarch64", LibcKind::kGlibc};
  } else {
    std::vector<std::string> names;
    for (std::string_view name : kPlatformShorthands) names.push_back(in_backticks(name));
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("unknown platform ", in_backticks(shorthand), ": expected one of ",
                              join(names, ", ")));
  }
  return platform;
}

MajorMinor default_platform_version(const Platform& platform) {
  switch (platform.os) {
    case OsKind::kLinux:
      return platform.libc == LibcKind::kMusl ? MajorMinor{1, 2} : MajorMinor{2, 28};
    case OsKind::kMacos:
      return MajorMinor{13, 0};
    case OsKind::kWindows:
      return {};
  }
  return {};
}

namespace {

Result<void> require_basics(const HostProfile& host, std::string_view what) {
  if (!host.os.known() || !host.arch.known()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot build the ", what, ": the operating system and ",
                              "architecture are unknown"));
  }
  if (!host.python_version.known()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot build the ", what, ": the Python version is unknown"))
        .with_note("hint: set `python` in `[tool.wvlock]` or in the target");
  }
  return {};
}

}  // namespace

pkg::MarkerEnvironment partial_marker_environment(const HostProfile& host) {
  pkg::MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.platform_python_implementation = "CPython";
  if (host.python_version.known()) {
    env.python_version = host.python_version.value->to_string();
    env.python_full_version = str_cat(env.python_version, ".0");
    env.implementation_version = env.python_full_version;
  }
  const std::string arch = host.arch.value.value_or(std::string());
  if (!host.os.known()) return env;
  switch (*host.os.value) {
    case OsKind::kLinux:
      env.os_name = "posix";
      env.sys_platform = "linux";
      env.platform_system = "Linux";
      env.platform_machine = arch;
      break;
    case OsKind::kMacos:
      env.os_name = "posix";
      env.sys_platform = "darwin";
      env.platform_system = "Darwin";
      env.platform_machine = arch == "aarch64" ? "arm64" : arch;
      break;
    case OsKind::kWindows:
      env.os_name = "nt";
      env.sys_platform = "win32";
      env.platform_system = "Windows";
      env.platform_machine = arch == "aarch64" ? "ARM64" : arch == "x86_64" ? "AMD64" : arch;
      break;
  }
  return env;
}

Result<pkg::MarkerEnvironment> marker_environment(const HostProfile& host) {
  WV_TRY(require_basics(host, "marker environment"));
  return partial_marker_environment(host);
}

Result<pkg::TagPlatform> tag_platform(const HostProfile& host) {
  WV_TRY(require_basics(host, "tag list"));
  const OsKind os = *host.os.value;
  const std::string& arch = *host.arch.value;
  pkg::TagPlatform platform;
  platform.python_major = host.python_version.value->major;
  platform.python_minor = host.python_version.value->minor;
  platform.free_threaded = host.python_free_threaded.value.value_or(false);
  switch (os) {
    case OsKind::kLinux: {
      const bool musl = host.libc.value.value_or(LibcKind::kGlibc) == LibcKind::kMusl;
      platform.os = musl ? pkg::OperatingSystem::kMusllinux : pkg::OperatingSystem::kManylinux;
      platform.arch = arch;
      const MajorMinor libc = host.libc_version.value.value_or(
          default_platform_version({OsKind::kLinux, arch, musl ? LibcKind::kMusl : LibcKind::kGlibc}));
      platform.libc_major = libc.major;
      platform.libc_minor = libc.minor;
      break;
    }
    case OsKind::kMacos: {
      platform.os = pkg::OperatingSystem::kMacos;
      platform.arch = arch == "aarch64" ? "arm64" : arch;
      const MajorMinor macos =
          host.macos_version.value.value_or(default_platform_version({OsKind::kMacos, arch, {}}));
      platform.libc_major = macos.major;
      platform.libc_minor = macos.minor;
      break;
    }
    case OsKind::kWindows:
      platform.os = pkg::OperatingSystem::kWindows;
      platform.arch = arch == "aarch64" ? "arm64" : arch == "x86_64" ? "amd64" : arch;
      break;
  }
  return platform;
}

Result<std::vector<pkg::Tag>> compatible_tags(const HostProfile& host) {
  WV_ASSIGN_OR_RETURN(pkg::TagPlatform platform, tag_platform(host));
  return pkg::compatible_tags(platform);
}

std::string describe(const HostProfile& host) {
  std::vector<std::string> parts;
  if (host.os.known()) parts.emplace_back(to_string(*host.os.value));
  if (host.arch.known()) parts.push_back(*host.arch.value);
  if (host.libc.known() && host.libc_version.known()) {
    parts.push_back(str_cat(to_string(*host.libc.value), " ", host.libc_version.value->to_string()));
  }
  if (host.macos_version.known()) parts.push_back(str_cat("macos ", host.macos_version.value->to_string()));
  if (host.python_version.known()) {
    parts.push_back(str_cat("python ", host.python_version.value->to_string()));
  }
  if (host.x86_64_level.known()) parts.push_back(str_cat("x86-64-v", *host.x86_64_level.value));
  if (host.aarch64_version.known()) parts.push_back(str_cat("armv", *host.aarch64_version.value));
  if (host.cuda_driver_version.known()) {
    parts.push_back(str_cat("cuda ", host.cuda_driver_version.value->to_string()));
  }
  if (host.compute_capabilities.known()) {
    std::vector<std::string> sms;
    for (const MajorMinor& sm : *host.compute_capabilities.value) sms.push_back(sm.to_string());
    if (!sms.empty()) parts.push_back(str_cat("sm ", join(sms, ",")));
  }
  if (host.rocm_version.known()) parts.push_back(str_cat("rocm ", host.rocm_version.value->to_string()));
  if (host.gfx_archs.known() && !host.gfx_archs.value->empty()) {
    parts.push_back(join(*host.gfx_archs.value, ","));
  }
  if (host.intel_device_ips.known() && !host.intel_device_ips.value->empty()) {
    parts.push_back(str_cat("intel ", join(*host.intel_device_ips.value, ",")));
  }
  return join(parts, " ");
}

namespace {

std::vector<std::string> list_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view part : split(text, ',')) {
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

}  // namespace

Result<void> set_declared_capabilities(const std::vector<std::string>& entries, HostProfile& profile) {
  std::vector<MajorMinor> capabilities;
  for (const std::string& entry : entries) {
    const bool range = entry.starts_with(">=");
    Result<MajorMinor> parsed =
        parse_major_minor(std::string_view(entry).substr(range ? 2 : 0), "compute capability");
    if (!parsed) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(entry), ": expected `X.Y` or a range `>=X.Y`"));
    }
    if (range) {
      // Two open ranges would say the same as the lower one; one is the clear spelling.
      if (profile.compute_capability_from.known()) {
        return make_error(ErrorCode::kInvalidInput, "at most one range `>=X.Y` may be given");
      }
      profile.compute_capability_from.set(*parsed, FactSource::kDeclared);
    }
    // `["9.0", ">=9.0"]` is `">=9.0"`: each capability once, so the lock's facts read back.
    if (std::find(capabilities.begin(), capabilities.end(), *parsed) == capabilities.end()) {
      capabilities.push_back(*parsed);
    }
  }
  profile.compute_capabilities.set(std::move(capabilities), FactSource::kDeclared);
  return {};
}

bool is_valid_target_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || !is_ascii_alnum(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return is_ascii_alnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::string normalize_target_name(std::string_view name) { return pkg::normalize_name(name); }

bool same_target_name(std::string_view a, std::string_view b) {
  return a == b || normalize_target_name(a) == normalize_target_name(b);
}

std::map<std::string, std::string> declared_facts(const Target& target) {
  const HostProfile& host = target.profile;
  std::map<std::string, std::string> facts;
  facts["platform"] = target.platform;
  if (host.python_version.known()) facts["python"] = host.python_version.value->to_string();
  if (host.python_free_threaded.declared() && *host.python_free_threaded.value) {
    facts["free-threaded"] = "true";
  }
  if (host.libc_version.declared()) {
    facts[host.libc.value == LibcKind::kMusl ? "musl" : "glibc"] = host.libc_version.value->to_string();
  }
  if (host.macos_version.declared()) facts["macos"] = host.macos_version.value->to_string();
  if (host.x86_64_level.declared()) facts["x86-64-level"] = std::to_string(*host.x86_64_level.value);
  if (host.aarch64_version.declared()) facts["aarch64-version"] = *host.aarch64_version.value;
  if (host.cuda_driver_version.declared()) {
    facts["cuda-driver"] = host.cuda_driver_version.value->to_string();
  }
  if (host.compute_capabilities.declared()) {
    std::vector<std::string> entries;
    for (const MajorMinor& cc : *host.compute_capabilities.value) {
      const bool range = host.compute_capability_from.known() && *host.compute_capability_from.value == cc;
      entries.push_back(str_cat(range ? ">=" : "", cc.to_string()));
    }
    facts["compute-capability"] = join(entries, ",");
  }
  if (host.rocm_version.declared()) facts["rocm"] = host.rocm_version.value->to_string();
  if (host.gfx_archs.declared()) facts["gfx"] = join(*host.gfx_archs.value, ",");
  if (host.intel_device_ips.declared()) {
    facts["intel-device-ip"] = join(*host.intel_device_ips.value, ",");
  }
  return facts;
}

Result<Target> target_from_facts(std::string name, const std::map<std::string, std::string>& facts,
                                 std::map<std::string, pkg::FeatureValues> properties) {
  Target target;
  target.name = std::move(name);
  auto bad = [&](std::string_view key, std::string_view message) {
    return make_error(ErrorCode::kInvalidLockfile,
                      str_cat("target ", in_backticks(target.name), ": fact ", in_backticks(key),
                              ": ", message));
  };
  auto version = [&](std::string_view key, bool major_only, bool patch) -> Result<MajorMinor> {
    Result<MajorMinor> parsed = parse_major_minor(facts.at(std::string(key)), key, major_only, patch);
    if (!parsed) return bad(key, parsed.error().message);
    return parsed;
  };
  auto platform_it = facts.find("platform");
  if (platform_it == facts.end()) return bad("platform", "missing");
  target.platform = platform_it->second;
  Result<Platform> platform = parse_platform(target.platform);
  if (!platform) return bad("platform", platform.error().message);
  HostProfile& host = target.profile;
  host.os.set(platform->os, FactSource::kDeclared);
  host.arch.set(platform->arch, FactSource::kDeclared);
  if (platform->os == OsKind::kLinux) {
    host.libc.set(platform->libc, FactSource::kDeclared);
    host.libc_version.set(default_platform_version(*platform), FactSource::kDefault);
  }
  if (platform->os == OsKind::kMacos) {
    host.macos_version.set(default_platform_version(*platform), FactSource::kDefault);
  }
  for (const auto& [key, value] : facts) {
    if (key == "platform") continue;
    if (key == "python") {
      WV_ASSIGN_OR_RETURN(MajorMinor v, version(key, false, true));
      host.python_version.set(v, FactSource::kDeclared);
    } else if (key == "free-threaded") {
      if (value != "true" && value != "false") return bad(key, "expected `true` or `false`");
      host.python_free_threaded.set(value == "true", FactSource::kDeclared);
    } else if (key == "glibc" || key == "musl") {
      const bool musl = key == "musl";
      if (platform->os != OsKind::kLinux || (platform->libc == LibcKind::kMusl) != musl) {
        return bad(key, str_cat("does not apply to platform ", in_backticks(target.platform)));
      }
      WV_ASSIGN_OR_RETURN(MajorMinor v, version(key, false, false));
      host.libc_version.set(v, FactSource::kDeclared);
    } else if (key == "macos") {
      if (platform->os != OsKind::kMacos) {
        return bad(key, str_cat("does not apply to platform ", in_backticks(target.platform)));
      }
      WV_ASSIGN_OR_RETURN(MajorMinor v, version(key, true, false));
      host.macos_version.set(v, FactSource::kDeclared);
    } else if (key == "x86-64-level") {
      std::optional<std::uint64_t> level = parse_uint64(value);
      if (!level || *level < 1 || *level > 4) return bad(key, "expected 1, 2, 3 or 4");
      host.x86_64_level.set(static_cast<int>(*level), FactSource::kDeclared);
    } else if (key == "aarch64-version") {
      host.aarch64_version.set(value, FactSource::kDeclared);
    } else if (key == "cuda-driver") {
      WV_ASSIGN_OR_RETURN(MajorMinor v, version(key, false, false));
      host.cuda_driver_version.set(v, FactSource::kDeclared);
    } else if (key == "compute-capability") {
      std::vector<std::string> entries = list_of(value);
      if (entries.empty()) return bad(key, "expected one or more `major.minor`");
      if (Result<void> set = set_declared_capabilities(entries, host); !set) {
        return bad(key, set.error().message);
      }
    } else if (key == "rocm") {
      WV_ASSIGN_OR_RETURN(MajorMinor v, version(key, false, true));
      host.rocm_version.set(v, FactSource::kDeclared);
    } else if (key == "gfx") {
      std::vector<std::string> archs = list_of(value);
      if (archs.empty()) return bad(key, "expected one or more gfx architectures");
      host.gfx_archs.set(std::move(archs), FactSource::kDeclared);
    } else if (key == "intel-device-ip") {
      std::vector<std::string> ips = list_of(value);
      if (ips.empty()) return bad(key, "expected one or more device IPs");
      host.intel_device_ips.set(std::move(ips), FactSource::kDeclared);
    } else {
      return bad(key, "unknown fact (a newer wvlock may have written this lock)");
    }
  }
  host.properties = std::move(properties);
  return target;
}

}  // namespace wv::targets
