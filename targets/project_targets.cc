// The target tables of the project file: `[[tool.wvlock.target]]` (platform, Python, CPU,
// accelerators, variant properties) and the targets of a project that declares none (uv's
// `environments`, else this host), each split by `conflicts` (DESIGN.md §2).
#include <algorithm>
#include <toml++/toml.h>

#include "src/base/str.h"
#include "src/pkg/name.h"
#include "targets/default_targets.h"
#include "targets/project_reader.h"
#include "targets/python_pairs.h"

namespace wv::targets::project_reader {
namespace {

constexpr std::string_view kTargetKeys[] = {
    "name",   "platform",       "python",          "glibc",  "musl", "macos",
    "x86-64-level", "aarch64-version", "nvidia", "amd",    "intel", "properties",
    "free-threaded", "extras"};
constexpr std::string_view kNvidiaKeys[] = {"cuda-driver", "compute-capability"};
constexpr std::string_view kAmdKeys[] = {"rocm", "gfx"};
constexpr std::string_view kIntelKeys[] = {"device-ip"};

bool is_valid_gfx(std::string_view gfx) {
  if (gfx.size() < 4 || gfx.substr(0, 3) != "gfx") return false;
  return std::all_of(gfx.begin() + 3, gfx.end(), [](char c) {
    return is_ascii_digit(c) || (c >= 'a' && c <= 'f');
  });
}

bool is_valid_device_ip(std::string_view ip) {
  const std::vector<std::string_view> parts = split(ip, '.');
  return parts.size() == 3 && std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
           return parse_uint64(p).has_value();
         });
}

Result<void> read_nvidia(const Reader& reader, const toml::node& node, std::string_view where,
                         HostProfile& profile) {
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where, ": `nvidia` must be a table"));
  WV_TRY(reader.check_keys(*table, kNvidiaKeys, str_cat("`nvidia` of ", where)));
  const toml::node* driver = table->get("cuda-driver");
  const toml::node* capability = table->get("compute-capability");
  if (driver == nullptr || capability == nullptr) {
    return reader.error(node.source(),
                        str_cat("`nvidia` of ", where,
                                " needs both `cuda-driver` and `compute-capability`"));
  }
  WV_ASSIGN_OR_RETURN(MajorMinor cuda, reader.version(*driver, "nvidia.cuda-driver",
                                                      "CUDA driver version"));
  profile.cuda_driver_version.set(cuda, FactSource::kDeclared);
  // A version, a list, or a range (`">=8.0"`); the entries' rules are targets/target.h's.
  WV_ASSIGN_OR_RETURN(std::vector<std::string> entries,
                      reader.strings(*capability, "nvidia.compute-capability", true));
  if (entries.empty()) {
    return reader.error(capability->source(), "`nvidia.compute-capability` must not be empty");
  }
  if (Result<void> set = set_declared_capabilities(entries, profile); !set) {
    return reader.error(capability->source(),
                        str_cat("`nvidia.compute-capability`: ", set.error().message));
  }
  return {};
}

Result<void> read_amd(const Reader& reader, const toml::node& node, std::string_view where,
                      HostProfile& profile) {
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where, ": `amd` must be a table"));
  WV_TRY(reader.check_keys(*table, kAmdKeys, str_cat("`amd` of ", where)));
  const toml::node* rocm = table->get("rocm");
  if (rocm == nullptr) {
    return reader.error(node.source(), str_cat("`amd` of ", where, " needs `rocm`"));
  }
  WV_ASSIGN_OR_RETURN(std::string rocm_text, reader.string(*rocm, "amd.rocm"));
  Result<MajorMinor> rocm_version = parse_major_minor(rocm_text, "ROCm version", false, true);
  if (!rocm_version) {
    return reader.error(rocm->source(), str_cat("`amd.rocm`: ", rocm_version.error().message));
  }
  profile.rocm_version.set(*rocm_version, FactSource::kDeclared);
  if (const toml::node* gfx = table->get("gfx")) {
    WV_ASSIGN_OR_RETURN(std::vector<std::string> archs, reader.strings(*gfx, "amd.gfx", true));
    for (const std::string& arch : archs) {
      if (!is_valid_gfx(arch)) {
        return reader.error(gfx->source(), str_cat("`amd.gfx`: invalid gfx target ",
                                                   in_backticks(arch),
                                                   ": expected `gfx` and hex digits, like `gfx942`"));
      }
    }
    profile.gfx_archs.set(std::move(archs), FactSource::kDeclared);
  }
  return {};
}

Result<void> read_intel(const Reader& reader, const toml::node& node, std::string_view where,
                        HostProfile& profile) {
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where, ": `intel` must be a table"));
  WV_TRY(reader.check_keys(*table, kIntelKeys, str_cat("`intel` of ", where)));
  const toml::node* ip = table->get("device-ip");
  if (ip == nullptr) {
    return reader.error(node.source(), str_cat("`intel` of ", where, " needs `device-ip`"));
  }
  WV_ASSIGN_OR_RETURN(std::vector<std::string> ips, reader.strings(*ip, "intel.device-ip", true));
  for (const std::string& value : ips) {
    if (!is_valid_device_ip(value)) {
      return reader.error(ip->source(), str_cat("`intel.device-ip`: invalid device IP ",
                                                in_backticks(value),
                                                ": expected `ARCH.RELEASE.REVISION`, like `12.55.8`"));
    }
  }
  profile.intel_device_ips.set(std::move(ips), FactSource::kDeclared);
  return {};
}

Result<void> read_properties(const Reader& reader, const toml::node& node,
                             std::string_view where, HostProfile& profile) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return reader.error(node.source(), str_cat(where, ": `properties` must be a table"));
  }
  for (const auto& [ns_key, features_node] : *table) {
    const std::string ns(ns_key.str());
    if (!pkg::is_valid_variant_name(ns)) {
      return reader.error(ns_key.source(), str_cat("invalid variant namespace ", in_backticks(ns),
                                                   " in `properties`: expected `[a-z0-9_]+`"));
    }
    const toml::table* features = features_node.as_table();
    if (features == nullptr) {
      return reader.error(features_node.source(),
                          str_cat("`properties.", ns, "` must be a table of feature = [values]"));
    }
    for (const auto& [feature_key, values_node] : *features) {
      const std::string feature(feature_key.str());
      if (!pkg::is_valid_variant_name(feature)) {
        return reader.error(feature_key.source(),
                            str_cat("invalid variant feature ", in_backticks(feature),
                                    " in `properties.", ns, "`: expected `[a-z0-9_]+`"));
      }
      const std::string key = str_cat("properties.", ns, ".", feature);
      WV_ASSIGN_OR_RETURN(std::vector<std::string> values,
                          reader.strings(values_node, key, true));
      for (const std::string& value : values) {
        if (!pkg::is_valid_variant_value(value)) {
          return reader.error(values_node.source(),
                              str_cat("invalid variant value ", in_backticks(value), " in `", key,
                                      "`: expected `[a-z0-9_.]+`"));
        }
      }
      profile.properties[ns][feature] = std::move(values);
    }
  }
  return {};
}

}  // namespace

// `python`: `"3.12"` or a non-empty list of distinct `M.m` (one target per Python).
Result<std::vector<MajorMinor>> read_pythons(const Reader& reader, const toml::node& node,
                                             std::string_view key) {
  std::vector<MajorMinor> out;
  if (node.is_string()) {
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(node, key, "Python version"));
    out.push_back(version);
    return out;
  }
  const toml::array* list = node.as_array();
  if (list == nullptr) {
    return reader.error(node.source(), str_cat("`", key, "` must be a Python version such as "
                                               "`\"3.12\"` or a list of them"));
  }
  if (list->empty()) {
    return reader.error(node.source(), str_cat("`", key, "` must not be empty"));
  }
  for (const toml::node& item : *list) {
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(item, key, "Python version"));
    if (std::find(out.begin(), out.end(), version) != out.end()) {
      return reader.error(item.source(), str_cat("`", key, "` lists Python ", version.to_string(),
                                                 " twice"));
    }
    out.push_back(version);
  }
  return out;
}

namespace {

// `platform`: the OS, architecture and libc it declares.
Result<Platform> read_target_platform(const Reader& reader, const toml::table& table,
                                      const toml::node& node, std::string_view where,
                                      Target& target) {
  const toml::node* platform_node = table.get("platform");
  if (platform_node == nullptr) {
    return reader.error(node.source(), str_cat(where, " has no `platform`"));
  }
  WV_ASSIGN_OR_RETURN(target.platform, reader.string(*platform_node, "platform"));
  Result<Platform> platform = parse_platform(target.platform);
  if (!platform) return reader.error(platform_node->source(), platform.error().message);
  HostProfile& profile = target.profile;
  profile.os.set(platform->os, FactSource::kDeclared);
  profile.arch.set(platform->arch, FactSource::kDeclared);
  if (platform->os == OsKind::kLinux) profile.libc.set(platform->libc, FactSource::kDeclared);
  return platform;
}

// Python: the target's, else the project's, else the caller's default (.python-version...);
// then `extras` and `free-threaded`.
Result<std::vector<MajorMinor>> read_target_python(const Reader& reader, const toml::table& table,
                                                   const toml::node& node, std::string_view where,
                                                   const std::vector<MajorMinor>& project_pythons,
                                                   LazyDefaultPythons& default_pythons,
                                                   Target& target) {
  std::vector<MajorMinor> pythons = project_pythons;
  if (const toml::node* python = table.get("python")) {
    WV_ASSIGN_OR_RETURN(pythons, read_pythons(reader, *python, "python"));
  } else if (pythons.empty()) {
    WV_ASSIGN_OR_RETURN(pythons, default_pythons.get());
  }
  if (pythons.empty()) {
    return reader.error(node.source(),
                        str_cat(where, " has no Python version: set `python` in the target or "
                                       "in `[tool.wvlock]`"));
  }
  if (const toml::node* extras = table.get("extras")) {
    WV_ASSIGN_OR_RETURN(target.extras, reader.strings(*extras, "extras", false));
  }
  if (const toml::node* free_threaded = table.get("free-threaded")) {
    if (!free_threaded->is_boolean()) {
      return reader.error(free_threaded->source(), "`free-threaded` must be true or false");
    }
    target.profile.python_free_threaded.set(free_threaded->as_boolean()->get(),
                                            FactSource::kDeclared);
  }
  return pythons;
}

// Platform versions: each only where it means something.
Result<void> read_platform_versions(const Reader& reader, const toml::table& table,
                                    const Platform& platform, std::string_view where,
                                    Target& target) {
  HostProfile& profile = target.profile;
  const bool is_linux = platform.os == OsKind::kLinux;
  const bool is_musl = is_linux && platform.libc == LibcKind::kMusl;
  struct VersionKey {
    const char* key;
    bool allowed;
    const char* meaning;
    Fact<MajorMinor>* fact;
  };
  const VersionKey version_keys[] = {
      {"glibc", is_linux && !is_musl, "glibc version", &profile.libc_version},
      {"musl", is_musl, "musl version", &profile.libc_version},
      {"macos", platform.os == OsKind::kMacos, "macOS version", &profile.macos_version},
  };
  for (const VersionKey& entry : version_keys) {
    const toml::node* value = table.get(entry.key);
    if (value == nullptr) continue;
    if (!entry.allowed) {
      return reader.error(value->source(), str_cat("`", entry.key, "` does not apply to platform ",
                                                   in_backticks(target.platform), " of ", where));
    }
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(*value, entry.key, entry.meaning));
    entry.fact->set(version, FactSource::kDeclared);
  }
  if (is_linux && !profile.libc_version.known()) {
    profile.libc_version.set(default_platform_version(platform), FactSource::kDefault);
  }
  if (platform.os == OsKind::kMacos && !profile.macos_version.known()) {
    profile.macos_version.set(default_platform_version(platform), FactSource::kDefault);
  }
  return {};
}

// CPU: `x86-64-level`.
Result<void> read_x86_64_level(const Reader& reader, const toml::table& table,
                               const Platform& platform, std::string_view where, Target& target) {
  HostProfile& profile = target.profile;
  if (const toml::node* level = table.get("x86-64-level")) {
    if (platform.arch != "x86_64") {
      return reader.error(level->source(), str_cat("`x86-64-level` does not apply to platform ",
                                                   in_backticks(target.platform), " of ", where));
    }
    std::optional<std::int64_t> n;
    if (const auto* integer = level->as_integer()) n = integer->get();
    if (const auto* text = level->as_string()) {
      std::string_view digits = text->get();
      if (!digits.empty() && (digits[0] == 'v' || digits[0] == 'V')) digits.remove_prefix(1);
      if (auto parsed = parse_uint64(digits); parsed && *parsed < 100) n = std::int64_t(*parsed);
    }
    if (!n || *n < 1 || *n > 4) {
      return reader.error(level->source(),
                          "invalid `x86-64-level`: expected 1, 2, 3, 4 or `v1` .. `v4`");
    }
    profile.x86_64_level.set(static_cast<int>(*n), FactSource::kDeclared);
  } else if (platform.arch == "x86_64") {
    profile.x86_64_level.set(1, FactSource::kDefault);  // the baseline every x86-64 CPU has
  }
  return {};
}

// CPU: `aarch64-version`.
Result<void> read_aarch64_version(const Reader& reader, const toml::table& table,
                                  const Platform& platform, std::string_view where,
                                  Target& target) {
  HostProfile& profile = target.profile;
  if (const toml::node* version = table.get("aarch64-version")) {
    if (platform.arch != "aarch64") {
      return reader.error(version->source(), str_cat("`aarch64-version` does not apply to platform ",
                                                     in_backticks(target.platform), " of ", where));
    }
    WV_ASSIGN_OR_RETURN(std::string text, reader.string(*version, "aarch64-version"));
    std::string normalized = text;
    if (normalized.rfind("armv", 0) == 0) normalized = normalized.substr(4);
    if (normalized.size() >= 2 && normalized.substr(normalized.size() - 2) == "-a") {
      normalized = normalized.substr(0, normalized.size() - 2) + "a";
    }
    const std::string_view known[] = {"8a", "8.1a", "8.2a", "8.3a", "8.4a", "8.5a", "9.0a"};
    if (std::find(std::begin(known), std::end(known), normalized) == std::end(known)) {
      return reader.error(version->source(),
                          str_cat("invalid `aarch64-version` ", in_backticks(text),
                                  ": expected one of `8a`, `8.1a` .. `8.5a`, `9.0a`"));
    }
    profile.aarch64_version.set(normalized, FactSource::kDeclared);
  } else if (platform.arch == "aarch64") {
    profile.aarch64_version.set("8a", FactSource::kDefault);
  }
  return {};
}

// Accelerators and variant properties.
Result<void> read_accelerators(const Reader& reader, const toml::table& table,
                               const Platform& platform, std::string_view where, Target& target) {
  HostProfile& profile = target.profile;
  if (const toml::node* nvidia = table.get("nvidia")) {
    if (platform.os == OsKind::kMacos) {
      return reader.error(nvidia->source(), str_cat("`nvidia` does not apply to platform ",
                                                    in_backticks(target.platform), " of ", where));
    }
    WV_TRY(read_nvidia(reader, *nvidia, where, profile));
  }
  if (const toml::node* amd = table.get("amd")) {
    if (platform.os != OsKind::kLinux) {
      return reader.error(amd->source(), str_cat("`amd` does not apply to platform ",
                                                 in_backticks(target.platform), " of ", where));
    }
    WV_TRY(read_amd(reader, *amd, where, profile));
  }
  if (const toml::node* intel = table.get("intel")) {
    WV_TRY(read_intel(reader, *intel, where, profile));
  }
  if (const toml::node* properties = table.get("properties")) {
    WV_TRY(read_properties(reader, *properties, where, profile));
  }
  return {};
}

// One declared target; several when it has several Pythons (targets/python_pairs.h).
Result<std::vector<Target>> read_target(const Reader& reader, const toml::node& node,
                                        std::size_t index,
                                        const std::vector<MajorMinor>& project_pythons,
                                        LazyDefaultPythons& default_pythons) {
  const std::string where_index = str_cat("`[[tool.wvlock.target]]` #", index + 1);
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where_index, " must be a table"));
  Target target;
  const toml::node* name = table->get("name");
  if (name == nullptr) return reader.error(node.source(), str_cat(where_index, " has no `name`"));
  WV_ASSIGN_OR_RETURN(target.name, reader.string(*name, "name"));
  if (!is_valid_target_name(target.name)) {
    return reader.error(name->source(),
                        str_cat("invalid target name ", in_backticks(target.name),
                                ": expected letters, digits, `-`, `_` or `.`, starting with a "
                                "letter or digit"));
  }
  const std::string where = str_cat("target ", in_backticks(target.name));
  WV_TRY(reader.check_keys(*table, kTargetKeys, where));
  WV_ASSIGN_OR_RETURN(Platform platform, read_target_platform(reader, *table, node, where, target));
  WV_ASSIGN_OR_RETURN(std::vector<MajorMinor> pythons,
                      read_target_python(reader, *table, node, where, project_pythons,
                                         default_pythons, target));
  WV_TRY(read_platform_versions(reader, *table, platform, where, target));
  WV_TRY(read_x86_64_level(reader, *table, platform, where, target));
  WV_TRY(read_aarch64_version(reader, *table, platform, where, target));
  WV_TRY(read_accelerators(reader, *table, platform, where, target));
  return expand_pythons(target, pythons);
}

}  // namespace

// Conflicting extras never meet in one declared target: a target locks at most one extra of
// each conflict set.
Result<void> check_declared_conflicts(const Reader& reader, const toml::node& conflicts,
                                      const ProjectConfig& config) {
  for (const Target& target : config.targets) {
    for (const ConflictSet& set : config.conflicts) {
      std::vector<std::string> locked;
      for (const std::string& extra : target.extras) {
        if (has(set, pkg::normalize_name(extra))) locked.push_back(pkg::normalize_name(extra));
      }
      if (locked.size() < 2) continue;
      return reader.error(conflicts.source(),
                          str_cat("target ", in_backticks(target.name), " locks extras ",
                                  join_backticked(locked), ", which `", reader.key("conflicts"),
                                  "` declares conflicting: give each its own target"));
    }
  }
  return {};
}

// The targets of a project that declares none: one per platform `environments` names, else
// this host's (docs/targets.md "A project without targets"), each split by `conflicts`.
Result<void> add_default_targets(const Reader& reader,
                                 const std::vector<EnvironmentMarker>& environments,
                                 ProjectConfig& config, LazyDefaultPythons& default_pythons,
                                 const DefaultTarget& default_target) {
  if (environments.empty() && !default_target) return {};
  std::vector<MajorMinor> pythons = config.python;
  if (pythons.empty()) {
    WV_ASSIGN_OR_RETURN(pythons, default_pythons.get());
  }
  if (pythons.empty()) {
    return reader.error_at(1, 1, "no `[[tool.wvlock.target]]` is declared and no Python version "
                                 "is known for the default target: set `python` in "
                                 "`[tool.wvlock]` or `requires-python` in `[project]`");
  }
  std::vector<Target> bases;
  for (const EnvironmentMarker& environment : environments) {
    config.environments.push_back(environment.marker);
    WV_ASSIGN_OR_RETURN(std::optional<std::string> platform,
                        environment_platform(environment.marker, pythons.front()));
    if (!platform) {
      reader.warn(environment.where,
                  str_cat("the environment ", in_backticks(environment.marker),
                          " names no platform wvlock locks for (linux, darwin or win32): skipped"));
      continue;
    }
    if (std::any_of(bases.begin(), bases.end(),
                    [&](const Target& target) { return target.name == *platform; })) {
      continue;
    }
    WV_ASSIGN_OR_RETURN(Target target, platform_target(*platform, *platform));
    bases.push_back(std::move(target));
  }
  if (!environments.empty()) {
    config.targets_origin = ProjectConfig::TargetOrigin::kEnvironments;
  } else {
    WV_ASSIGN_OR_RETURN(Target host, default_target(config));
    bases.push_back(std::move(host));
    config.targets_origin = ProjectConfig::TargetOrigin::kHost;
  }
  std::vector<std::string> extras = normalized_keys(config.optional_dependencies);
  std::sort(extras.begin(), extras.end());
  for (const Target& base : bases) {
    for (const Target& split : split_conflicting_extras(base, extras, config.conflicts)) {
      for (Target& target : expand_pythons(split, pythons)) config.targets.push_back(std::move(target));
    }
  }
  return {};
}

// `[[tool.wvlock.target]]`.
Result<void> read_declared_targets(const Reader& reader, const toml::node& targets,
                                   ProjectConfig& config, LazyDefaultPythons& lazy_defaults) {
  const toml::array* list = targets.as_array();
  if (list == nullptr) {
    return reader.error(targets.source(),
                        "`tool.wvlock.target` must be an array of tables `[[tool.wvlock.target]]`");
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    WV_ASSIGN_OR_RETURN(std::vector<Target> expanded,
                        read_target(reader, *list->get(i), i, config.python, lazy_defaults));
    for (Target& target : expanded) {
      if (config.find_target(target.name) != nullptr) {
        return reader.error(list->get(i)->source(),
                            str_cat("duplicate target name ", in_backticks(target.name),
                                    " (the same as `", config.find_target(target.name)->name,
                                    "`: target names are compared as package names are, so "
                                    "case, `-`, `_` and `.` do not tell two apart)"));
      }
      config.targets.push_back(std::move(target));
    }
  }
  return {};
}

}  // namespace wv::targets::project_reader
