// pyproject.toml reading (DESIGN.md §2). The only file of targets/ that includes toml++;
// toml::parse_error is caught here and becomes an Error with file, line and column.
#include "targets/project_file.h"

#include <algorithm>
#include <span>
#include <toml++/toml.h>

#include "base/limits.h"
#include "base/str.h"

namespace wv::targets {
namespace {

constexpr std::string_view kWvlockKeys[] = {"python",     "index-url",  "extra-index-url",
                                            "find-links", "prerelease", "enable-providers",
                                            "target"};
constexpr std::string_view kTargetKeys[] = {
    "name",   "platform",       "python",          "glibc",  "musl", "macos",
    "x86-64-level", "aarch64-version", "nvidia", "amd",    "intel", "properties",
    "free-threaded", "extras"};
constexpr std::string_view kNvidiaKeys[] = {"cuda-driver", "compute-capability"};
constexpr std::string_view kAmdKeys[] = {"rocm", "gfx"};
constexpr std::string_view kIntelKeys[] = {"device-ip"};

std::string quoted_list(std::span<const std::string_view> names) {
  std::vector<std::string> quoted;
  for (std::string_view name : names) quoted.push_back(in_backticks(name));
  return join(quoted, ", ");
}

// Reads one file; every error carries `path:line:column` and the dotted key.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Error error(const toml::source_region& where, std::string_view message) const {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path_), ":", where.begin.line, ":",
                              where.begin.column, ": ", message));
  }

  Result<std::string> string(const toml::node& node, std::string_view key) const {
    if (const auto* value = node.as_string()) return value->get();
    return error(node.source(), str_cat("`", key, "` must be a string"));
  }

  // A string or an array of strings (when `allow_single`).
  Result<std::vector<std::string>> strings(const toml::node& node, std::string_view key,
                                           bool allow_single) const {
    std::vector<std::string> out;
    if (allow_single && node.is_string()) {
      out.push_back(node.as_string()->get());
      return out;
    }
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      return error(node.source(), str_cat("`", key, "` must be ",
                                          allow_single ? "a string or " : "",
                                          "an array of strings"));
    }
    for (const toml::node& item : *array) {
      WV_ASSIGN_OR_RETURN(std::string value, string(item, key));
      out.push_back(std::move(value));
    }
    return out;
  }

  Result<void> check_keys(const toml::table& table, std::span<const std::string_view> allowed,
                          std::string_view where) const {
    for (const auto& [key, value] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
        return error(key.source(), str_cat("unknown key ", in_backticks(key.str()), " in ",
                                           where, ": expected one of ", quoted_list(allowed)));
      }
    }
    return {};
  }

  Result<MajorMinor> version(const toml::node& node, std::string_view key,
                             std::string_view what) const {
    WV_ASSIGN_OR_RETURN(std::string text, string(node, key));
    Result<MajorMinor> parsed = parse_major_minor(text, what);
    if (!parsed) return error(node.source(), str_cat("`", key, "`: ", parsed.error().message));
    return parsed;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool is_valid_target_name(std::string_view name) {
  if (name.empty() || !is_ascii_alnum(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return is_ascii_alnum(c) || c == '-' || c == '_' || c == '.';
  });
}

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
  std::vector<MajorMinor> capabilities;
  const toml::array* list = capability->as_array();
  if (list != nullptr) {
    if (list->empty()) {
      return reader.error(capability->source(), "`nvidia.compute-capability` must not be empty");
    }
    for (const toml::node& item : *list) {
      WV_ASSIGN_OR_RETURN(MajorMinor cc, reader.version(item, "nvidia.compute-capability",
                                                        "compute capability"));
      capabilities.push_back(cc);
    }
  } else {
    WV_ASSIGN_OR_RETURN(MajorMinor cc, reader.version(*capability, "nvidia.compute-capability",
                                                      "compute capability"));
    capabilities.push_back(cc);
  }
  profile.compute_capabilities.set(std::move(capabilities), FactSource::kDeclared);
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

Result<Target> read_target(const Reader& reader, const toml::node& node, std::size_t index,
                           const std::optional<std::string>& default_python) {
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

  const toml::node* platform_node = table->get("platform");
  if (platform_node == nullptr) {
    return reader.error(node.source(), str_cat(where, " has no `platform`"));
  }
  WV_ASSIGN_OR_RETURN(target.platform, reader.string(*platform_node, "platform"));
  Result<Platform> platform = parse_platform(target.platform);
  if (!platform) return reader.error(platform_node->source(), platform.error().message);
  HostProfile& profile = target.profile;
  profile.os.set(platform->os, FactSource::kDeclared);
  profile.arch.set(platform->arch, FactSource::kDeclared);
  const bool is_linux = platform->os == OsKind::kLinux;
  const bool is_musl = is_linux && platform->libc == LibcKind::kMusl;
  if (is_linux) profile.libc.set(platform->libc, FactSource::kDeclared);

  // Python: the target's, else the project default.
  if (const toml::node* python = table->get("python")) {
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(*python, "python", "Python version"));
    profile.python_version.set(version, FactSource::kDeclared);
  } else if (default_python) {
    Result<MajorMinor> version = parse_major_minor(*default_python, "Python version");
    if (version) profile.python_version.set(*version, FactSource::kDeclared);
  }
  if (!profile.python_version.known()) {
    return reader.error(node.source(),
                        str_cat(where, " has no Python version: set `python` in the target or "
                                       "in `[tool.wvlock]`"));
  }
  if (const toml::node* extras = table->get("extras")) {
    WV_ASSIGN_OR_RETURN(target.extras, reader.strings(*extras, "extras", false));
  }
  if (const toml::node* free_threaded = table->get("free-threaded")) {
    if (!free_threaded->is_boolean()) {
      return reader.error(free_threaded->source(), "`free-threaded` must be true or false");
    }
    profile.python_free_threaded.set(free_threaded->as_boolean()->get(), FactSource::kDeclared);
  }

  // Platform versions: each only where it means something.
  struct VersionKey {
    const char* key;
    bool allowed;
    const char* meaning;
    Fact<MajorMinor>* fact;
  };
  const VersionKey version_keys[] = {
      {"glibc", is_linux && !is_musl, "glibc version", &profile.libc_version},
      {"musl", is_musl, "musl version", &profile.libc_version},
      {"macos", platform->os == OsKind::kMacos, "macOS version", &profile.macos_version},
  };
  for (const VersionKey& entry : version_keys) {
    const toml::node* value = table->get(entry.key);
    if (value == nullptr) continue;
    if (!entry.allowed) {
      return reader.error(value->source(), str_cat("`", entry.key, "` does not apply to platform ",
                                                   in_backticks(target.platform), " of ", where));
    }
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(*value, entry.key, entry.meaning));
    entry.fact->set(version, FactSource::kDeclared);
  }
  if (is_linux && !profile.libc_version.known()) {
    profile.libc_version.set(default_platform_version(*platform), FactSource::kDefault);
  }
  if (platform->os == OsKind::kMacos && !profile.macos_version.known()) {
    profile.macos_version.set(default_platform_version(*platform), FactSource::kDefault);
  }

  // CPU.
  if (const toml::node* level = table->get("x86-64-level")) {
    if (platform->arch != "x86_64") {
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
  } else if (platform->arch == "x86_64") {
    profile.x86_64_level.set(1, FactSource::kDefault);  // the baseline every x86-64 CPU has
  }
  if (const toml::node* version = table->get("aarch64-version")) {
    if (platform->arch != "aarch64") {
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
  } else if (platform->arch == "aarch64") {
    profile.aarch64_version.set("8a", FactSource::kDefault);
  }

  // Accelerators.
  if (const toml::node* nvidia = table->get("nvidia")) {
    if (platform->os == OsKind::kMacos) {
      return reader.error(nvidia->source(), str_cat("`nvidia` does not apply to platform ",
                                                    in_backticks(target.platform), " of ", where));
    }
    WV_TRY(read_nvidia(reader, *nvidia, where, profile));
  }
  if (const toml::node* amd = table->get("amd")) {
    if (!is_linux) {
      return reader.error(amd->source(), str_cat("`amd` does not apply to platform ",
                                                 in_backticks(target.platform), " of ", where));
    }
    WV_TRY(read_amd(reader, *amd, where, profile));
  }
  if (const toml::node* intel = table->get("intel")) {
    WV_TRY(read_intel(reader, *intel, where, profile));
  }
  if (const toml::node* properties = table->get("properties")) {
    WV_TRY(read_properties(reader, *properties, where, profile));
  }
  return target;
}

Result<void> read_project_table(const Reader& reader, const toml::table& root,
                                ProjectConfig& config) {
  const toml::node* project_node = root.get("project");
  if (project_node == nullptr) return {};
  const toml::table* project = project_node->as_table();
  if (project == nullptr) return reader.error(project_node->source(), "`project` must be a table");
  if (const toml::node* name = project->get("name")) {
    WV_ASSIGN_OR_RETURN(config.name, reader.string(*name, "project.name"));
  }
  if (const toml::node* requires_python = project->get("requires-python")) {
    WV_ASSIGN_OR_RETURN(config.requires_python,
                        reader.string(*requires_python, "project.requires-python"));
  }
  if (const toml::node* dependencies = project->get("dependencies")) {
    WV_ASSIGN_OR_RETURN(config.dependencies,
                        reader.strings(*dependencies, "project.dependencies", false));
  }
  if (const toml::node* optional = project->get("optional-dependencies")) {
    const toml::table* table = optional->as_table();
    if (table == nullptr) {
      return reader.error(optional->source(), "`project.optional-dependencies` must be a table");
    }
    for (const auto& [extra, list] : *table) {
      WV_ASSIGN_OR_RETURN(config.optional_dependencies[std::string(extra.str())],
                          reader.strings(list, str_cat("project.optional-dependencies.",
                                                       extra.str()), false));
    }
  }
  return {};
}

Result<void> read_dependency_groups(const Reader& reader, const toml::table& root,
                                    ProjectConfig& config) {
  const toml::node* groups_node = root.get("dependency-groups");
  if (groups_node == nullptr) return {};
  const toml::table* groups = groups_node->as_table();
  if (groups == nullptr) {
    return reader.error(groups_node->source(), "`dependency-groups` must be a table");
  }
  for (const auto& [group, list_node] : *groups) {
    const std::string key = str_cat("dependency-groups.", group.str());
    const toml::array* list = list_node.as_array();
    if (list == nullptr) return reader.error(list_node.source(), str_cat("`", key, "` must be an array"));
    std::vector<DependencyGroupEntry>& entries = config.dependency_groups[std::string(group.str())];
    for (const toml::node& item : *list) {
      if (const auto* text = item.as_string()) {
        entries.push_back({text->get(), ""});
        continue;
      }
      const toml::table* include = item.as_table();
      const toml::node* name = include ? include->get("include-group") : nullptr;
      if (name == nullptr || include->size() != 1 || !name->is_string()) {
        return reader.error(item.source(),
                            str_cat("`", key, "` entries must be requirement strings or "
                                              "`{include-group = \"NAME\"}` tables"));
      }
      entries.push_back({"", name->as_string()->get()});
    }
  }
  return {};
}

Result<void> read_wvlock_table(const Reader& reader, const toml::table& root,
                               ProjectConfig& config) {
  const toml::node* tool_node = root.get("tool");
  const toml::table* tool = tool_node ? tool_node->as_table() : nullptr;
  const toml::node* wvlock_node = tool ? tool->get("wvlock") : nullptr;
  if (wvlock_node == nullptr) return {};
  const toml::table* wvlock = wvlock_node->as_table();
  if (wvlock == nullptr) return reader.error(wvlock_node->source(), "`tool.wvlock` must be a table");
  WV_TRY(reader.check_keys(*wvlock, kWvlockKeys, "`[tool.wvlock]`"));
  if (const toml::node* python = wvlock->get("python")) {
    WV_ASSIGN_OR_RETURN(MajorMinor version, reader.version(*python, "tool.wvlock.python",
                                                           "Python version"));
    config.python = version.to_string();
  }
  if (const toml::node* url = wvlock->get("index-url")) {
    WV_ASSIGN_OR_RETURN(config.index_url, reader.string(*url, "tool.wvlock.index-url"));
  }
  if (const toml::node* urls = wvlock->get("extra-index-url")) {
    WV_ASSIGN_OR_RETURN(config.extra_index_urls,
                        reader.strings(*urls, "tool.wvlock.extra-index-url", true));
  }
  if (const toml::node* links = wvlock->get("find-links")) {
    WV_ASSIGN_OR_RETURN(config.find_links, reader.strings(*links, "tool.wvlock.find-links", true));
  }
  if (const toml::node* prerelease = wvlock->get("prerelease")) {
    WV_ASSIGN_OR_RETURN(std::string mode, reader.string(*prerelease, "tool.wvlock.prerelease"));
    if (std::find(std::begin(kPrereleaseModes), std::end(kPrereleaseModes), mode) ==
        std::end(kPrereleaseModes)) {
      return reader.error(prerelease->source(),
                          str_cat("invalid `prerelease` ", in_backticks(mode), ": expected one of ",
                                  quoted_list(kPrereleaseModes)));
    }
    config.prerelease = mode;
  }
  if (const toml::node* providers = wvlock->get("enable-providers")) {
    WV_ASSIGN_OR_RETURN(config.enabled_providers,
                        reader.strings(*providers, "tool.wvlock.enable-providers", false));
  }
  if (const toml::node* targets = wvlock->get("target")) {
    const toml::array* list = targets->as_array();
    if (list == nullptr) {
      return reader.error(targets->source(),
                          "`tool.wvlock.target` must be an array of tables `[[tool.wvlock.target]]`");
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      WV_ASSIGN_OR_RETURN(Target target, read_target(reader, *list->get(i), i, config.python));
      if (config.find_target(target.name) != nullptr) {
        return reader.error(list->get(i)->source(),
                            str_cat("duplicate target name ", in_backticks(target.name)));
      }
      config.targets.push_back(std::move(target));
    }
  }
  return {};
}

}  // namespace

const Target* ProjectConfig::find_target(std::string_view target_name) const {
  for (const Target& target : targets) {
    if (target.name == target_name) return &target;
  }
  return nullptr;
}

Result<ProjectConfig> parse_project_file(std::string_view text, std::string_view path) {
  if (text.size() > limit_value(Limit::kTomlBytes)) {
    return limit_error(Limit::kTomlBytes, str_cat("project file ", in_backticks(path)), text.size());
  }
  const Reader reader{std::string(path)};
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    return make_error(ErrorCode::kParse,
                      str_cat(in_backticks(path), ":", error.source().begin.line, ":",
                              error.source().begin.column, ": invalid TOML: ",
                              std::string(error.description())));
  } catch (const std::exception& error) {  // e.g. std::bad_alloc on absurd input
    return make_error(ErrorCode::kParse,
                      str_cat(in_backticks(path), ": invalid TOML: ", error.what()));
  }
  ProjectConfig config;
  config.path = std::string(path);
  config.project_dir = path_parent(path);
  WV_TRY(read_project_table(reader, root, config));
  WV_TRY(read_dependency_groups(reader, root, config));
  WV_TRY(read_wvlock_table(reader, root, config));
  return config;
}

Result<ProjectConfig> read_project_file(const FileSystem& file_system, const std::string& path) {
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(path));
  return parse_project_file(text, path);
}

std::string resolve_project_path(const ProjectConfig& config, std::string_view value) {
  if (value.find("://") != std::string_view::npos || (!value.empty() && value[0] == '/')) {
    return std::string(value);
  }
  return path_join(config.project_dir, value);
}

}  // namespace wv::targets
