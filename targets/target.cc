// Platform shorthands and the expansion of a host profile into markers and tags.
#include "targets/target.h"

#include "base/str.h"

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
      return platform.libc == LibcKind::kMusl ? MajorMinor{1, 2} : MajorMinor{2, 17};
    case OsKind::kMacos:
      return platform.arch == "aarch64" ? MajorMinor{11, 0} : MajorMinor{10, 12};
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

}  // namespace wv::targets
