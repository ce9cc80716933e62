// pyproject.toml reading (DESIGN.md §2). The only file of targets/ that includes toml++;
// toml::parse_error is caught here and becomes an Error with file, line and column.
#include "targets/project_file.h"
#include "targets/prerelease.h"

#include <algorithm>
#include <filesystem>
#include <span>
#include <toml++/toml.h>

#include "src/base/limits.h"
#include "src/base/toml_guard.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "targets/default_targets.h"
#include "targets/python_pairs.h"

namespace wv::targets {
namespace {

constexpr std::string_view kWvlockKeys[] = {
    "package",    "python",     "index-url",  "extra-index-url",  "index",  "index-strategy", "sources",
    "find-links", "prerelease", "enable-providers", "keyring-provider", "default-groups", "target",
    "cpu-fallback", "constraint-dependencies", "override-dependencies", "workspace"};
// The `[tool.uv]` keys wvlock reads; uv's others are warnings (uv has many wvlock needs not).
constexpr std::string_view kUvKeys[] = {
    "package",        "index",          "index-url",  "extra-index-url",
    "index-strategy", "sources",        "find-links", "prerelease",
    "keyring-provider", "default-groups", "constraint-dependencies", "override-dependencies",
    "conflicts",      "environments",   "required-environments", "workspace"};
constexpr std::string_view kWorkspaceKeys[] = {"members", "exclude"};
constexpr std::string_view kIndexKeys[] = {"name", "url", "explicit", "default"};
// The kinds of source a `[tool.wvlock.sources]` entry may name, exactly one per entry, and the
// ones wvlock implements; check_source_kind() is the one place that tells them apart.
constexpr std::string_view kSourceKinds[] = {"index", "path", "url", "git", "workspace"};
constexpr std::string_view kSupportedSourceKinds[] = {"index", "path", "url", "git", "workspace"};
// The options each kind takes (beyond the conditions every entry may carry).
constexpr std::string_view kKindOptions[] = {"editable", "tag", "rev", "branch", "subdirectory"};
constexpr std::string_view kSourceKeys[] = {
    "index",  "path",     "url", "git", "workspace", "targets",     "marker",
    "extra",  "group",    "editable", "tag", "rev", "branch", "subdirectory"};
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
  /// `table` names the table read (`tool.wvlock`, or `tool.uv` whose keys wvlock does not act
  /// on are warnings collected in `warnings`).
  explicit Reader(std::string path, std::string table = "tool.wvlock",
                  std::vector<std::string>* warnings = nullptr)
      : path_(std::move(path)), table_(std::move(table)), warnings_(warnings) {}

  const std::string& table() const { return table_; }
  /// `tool.wvlock.NAME` (or `tool.uv.NAME`).
  std::string key(std::string_view name) const { return str_cat(table_, ".", name); }
  bool is_uv() const { return table_ == "tool.uv"; }

  void warn(const toml::source_region& where, std::string_view message) const {
    if (warnings_ == nullptr) return;
    warnings_->push_back(str_cat(in_backticks(path_), ":", where.begin.line, ":",
                                 where.begin.column, ": ", message));
  }

  Error error(const toml::source_region& where, std::string_view message) const {
    return error_at(static_cast<int>(where.begin.line), static_cast<int>(where.begin.column),
                    message);
  }

  Error error_at(int line, int column, std::string_view message) const {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path_), ":", line, ":", column, ": ", message));
  }

  Result<bool> boolean(const toml::node& node, std::string_view key) const {
    if (const auto* value = node.as_boolean()) return value->get();
    return error(node.source(), str_cat("`", key, "` must be true or false"));
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

  // Keys outside `allowed` are errors; in `[tool.uv]` they are uv's own settings, which wvlock
  // reads past with a warning.
  Result<void> check_keys(const toml::table& table, std::span<const std::string_view> allowed,
                          std::string_view where) const {
    for (const auto& [key, value] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
        if (is_uv()) {
          warn(key.source(), str_cat("wvlock does not act on ", in_backticks(key.str()), " in ",
                                     where, ": ignored"));
          continue;
        }
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
  std::string table_;
  std::vector<std::string>* warnings_;
};

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

// The Pythons of targets that declare none, asked of the caller once per file.
class LazyDefaultPythons {
 public:
  LazyDefaultPythons(const DefaultPythons& ask, const ProjectConfig& config)
      : ask_(ask), config_(config) {}
  Result<std::vector<MajorMinor>> get() {
    if (!answer_) {
      answer_ = ask_ ? ask_(config_) : Result<std::vector<MajorMinor>>(std::vector<MajorMinor>{});
    }
    return *answer_;
  }

 private:
  const DefaultPythons& ask_;
  const ProjectConfig& config_;
  std::optional<Result<std::vector<MajorMinor>>> answer_;
};

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

  // Python: the target's, else the project's, else the caller's default (.python-version...).
  std::vector<MajorMinor> pythons = project_pythons;
  if (const toml::node* python = table->get("python")) {
    WV_ASSIGN_OR_RETURN(pythons, read_pythons(reader, *python, "python"));
  } else if (pythons.empty()) {
    WV_ASSIGN_OR_RETURN(pythons, default_pythons.get());
  }
  if (pythons.empty()) {
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
  return expand_pythons(target, pythons);
}

Result<void> read_project_table(const Reader& reader, const toml::table& root,
                                ProjectConfig& config) {
  const toml::node* project_node = root.get("project");
  if (project_node == nullptr) return {};
  const toml::table* project = project_node->as_table();
  if (project == nullptr) return reader.error(project_node->source(), "`project` must be a table");
  if (const toml::node* name = project->get("name")) {
    WV_ASSIGN_OR_RETURN(config.name, reader.string(*name, "project.name"));
    config.name_line = static_cast<int>(name->source().begin.line);
    config.name_column = static_cast<int>(name->source().begin.column);
  }
  if (const toml::node* version = project->get("version")) {
    WV_ASSIGN_OR_RETURN(config.version, reader.string(*version, "project.version"));
  }
  if (const toml::node* dynamic = project->get("dynamic")) {
    WV_ASSIGN_OR_RETURN(config.dynamic, reader.strings(*dynamic, "project.dynamic", false));
    for (std::string& field : config.dynamic) field = to_lower(field);
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

// `[build-system]` (PEP 518 `requires`, PEP 517 `build-backend` and `backend-path`).
Result<void> read_build_system(const Reader& reader, const toml::table& root,
                               ProjectConfig& config) {
  const toml::node* node = root.get("build-system");
  if (node == nullptr) return {};
  const toml::table* table = node->as_table();
  if (table == nullptr) return reader.error(node->source(), "`build-system` must be a table");
  BuildSystemConfig build;
  if (const toml::node* requires_node = table->get("requires")) {
    WV_ASSIGN_OR_RETURN(build.requirements, reader.strings(*requires_node, "build-system.requires", false));
  }
  if (const toml::node* backend = table->get("build-backend")) {
    WV_ASSIGN_OR_RETURN(build.backend, reader.string(*backend, "build-system.build-backend"));
  }
  if (const toml::node* backend_path = table->get("backend-path")) {
    WV_ASSIGN_OR_RETURN(build.backend_path,
                        reader.strings(*backend_path, "build-system.backend-path", false));
  }
  config.build_system = std::move(build);
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

// ---- Indexes and sources (DESIGN.md §2.1) ----

bool is_valid_index_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return is_ascii_alnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool contains(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A table's entries in the order they were written (toml++ keeps them sorted by key), so the
// first error reported is the first in the file.
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(
    const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [key, value] : table) entries.emplace_back(&key, &value);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& x = a.first->source().begin;
    const toml::source_position& y = b.first->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return entries;
}

// Where `key` is written in `table` (the table's own position when it is not there).
toml::source_region key_region(const toml::table& table, std::string_view key) {
  for (const auto& [name, value] : table) {
    if (name.str() == key) return name.source();
  }
  return table.source();
}

IndexConfig positioned_index(std::string name, std::string url, const toml::node& where) {
  IndexConfig index;
  index.name = std::move(name);
  index.url = std::move(url);
  index.line = static_cast<int>(where.source().begin.line);
  index.column = static_cast<int>(where.source().begin.column);
  return index;
}

Result<IndexConfig> read_index(const Reader& reader, const toml::node& node, std::size_t position) {
  const std::string where_index = str_cat("`[[", reader.key("index"), "]]` #", position + 1);
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where_index, " must be a table"));
  const toml::node* name_node = table->get("name");
  std::string name;
  if (name_node != nullptr) {
    WV_ASSIGN_OR_RETURN(name, reader.string(*name_node, "name"));
  } else if (reader.is_uv()) {
    name = str_cat("index-", position + 1);  // uv's indexes need a name only to be pinned to
  } else {
    return reader.error(node.source(), str_cat(where_index, " has no `name`"));
  }
  if (!is_valid_index_name(name)) {
    return reader.error(name_node->source(),
                        str_cat("invalid index name ", in_backticks(name),
                                ": expected ASCII letters, digits, `-`, `_` or `.`"));
  }
  const std::string where = str_cat("index ", in_backticks(name));
  WV_TRY(reader.check_keys(*table, kIndexKeys, where));
  const toml::node* url_node = table->get("url");
  if (url_node == nullptr) return reader.error(node.source(), str_cat(where, " has no `url`"));
  WV_ASSIGN_OR_RETURN(std::string url, reader.string(*url_node, "url"));
  if (url.empty()) {
    return reader.error(url_node->source(),
                        str_cat("`url` of ", where, " is empty: give a URL, `file://` URL or path"));
  }
  IndexConfig index = positioned_index(std::move(name), std::move(url), node);
  if (const toml::node* explicit_node = table->get("explicit")) {
    WV_ASSIGN_OR_RETURN(index.explicit_only, reader.boolean(*explicit_node, "explicit"));
  }
  if (const toml::node* default_node = table->get("default")) {
    WV_ASSIGN_OR_RETURN(index.is_default, reader.boolean(*default_node, "default"));
  }
  return index;
}

Result<std::string> shorthand_url(const Reader& reader, const toml::node& node,
                                  std::string_view key) {
  WV_ASSIGN_OR_RETURN(std::string url, reader.string(node, key));
  if (url.empty()) {
    return reader.error(node.source(),
                        str_cat("`", key, "` is empty: give a URL, `file://` URL or path"));
  }
  return url;
}

// `[[tool.wvlock.index]]`, `index-url`, `extra-index-url` -> config.indexes in asking order.
Result<void> read_indexes(const Reader& reader, const toml::table& wvlock, ProjectConfig& config) {
  std::vector<IndexConfig> declared;  // the tables, then the shorthands, as read
  if (const toml::node* list_node = wvlock.get("index")) {
    const toml::array* list = list_node->as_array();
    if (list == nullptr) {
      return reader.error(list_node->source(),
                          str_cat("`", reader.key("index"), "` must be an array of tables `[[",
                                  reader.key("index"), "]]`"));
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      WV_ASSIGN_OR_RETURN(IndexConfig index, read_index(reader, *list->get(i), i));
      declared.push_back(std::move(index));
    }
  }
  if (const toml::node* url_node = wvlock.get("index-url")) {
    WV_ASSIGN_OR_RETURN(std::string url, shorthand_url(reader, *url_node, reader.key("index-url")));
    config.index_url = url;
    IndexConfig index = positioned_index("index-url", std::move(url), *url_node);
    index.is_default = true;
    declared.push_back(std::move(index));
  }
  if (const toml::node* urls_node = wvlock.get("extra-index-url")) {
    std::vector<const toml::node*> items;
    if (const toml::array* array = urls_node->as_array()) {
      for (const toml::node& item : *array) items.push_back(&item);
    } else if (urls_node->is_string()) {
      items.push_back(urls_node);
    } else {
      return reader.error(urls_node->source(),
                          str_cat("`", reader.key("extra-index-url"),
                                  "` must be a string or an array of strings"));
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      WV_ASSIGN_OR_RETURN(std::string url,
                          shorthand_url(reader, *items[i], reader.key("extra-index-url")));
      config.extra_index_urls.push_back(url);
      std::string name = i == 0 ? std::string("extra-index-url")
                                : str_cat("extra-index-url-", i + 1);
      declared.push_back(positioned_index(std::move(name), std::move(url), *items[i]));
    }
  }

  // One name per index and at most one default; the later one in the file is reported.
  std::vector<const IndexConfig*> by_position;
  for (const IndexConfig& index : declared) by_position.push_back(&index);
  std::stable_sort(by_position.begin(), by_position.end(),
                   [](const IndexConfig* a, const IndexConfig* b) {
                     return a->line != b->line ? a->line < b->line : a->column < b->column;
                   });
  const auto label = [](const IndexConfig& index) {
    return index.name == "index-url" ? std::string("`index-url`")
                                     : str_cat("index ", in_backticks(index.name));
  };
  const IndexConfig* default_index = nullptr;
  for (std::size_t i = 0; i < by_position.size(); ++i) {
    const IndexConfig& index = *by_position[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (by_position[j]->name == index.name) {
        return reader.error_at(index.line, index.column,
                               str_cat("duplicate index name ", in_backticks(index.name),
                                       ": line ", by_position[j]->line,
                                       " declares it already; give each index its own name"));
      }
    }
    if (!index.is_default) continue;
    if (default_index != nullptr) {
      return reader.error_at(
          index.line, index.column,
          str_cat("a second default index: ", label(index), " and ", label(*default_index),
                  " (line ", default_index->line, ") are both the default; at most one index "
                  "may be the default (`default = true`, or `index-url`)"));
    }
    default_index = &index;
  }
  for (const IndexConfig& index : declared) {
    if (!index.is_default) config.indexes.push_back(index);
  }
  if (default_index != nullptr) config.indexes.push_back(*default_index);
  return {};
}

// `index-strategy`.
Result<void> read_index_strategy(const Reader& reader, const toml::table& wvlock,
                                 ProjectConfig& config) {
  if (const toml::node* strategy_node = wvlock.get("index-strategy")) {
    WV_ASSIGN_OR_RETURN(std::string strategy,
                        reader.string(*strategy_node, reader.key("index-strategy")));
    if (!contains(kIndexStrategies, strategy)) {
      return reader.error(strategy_node->source(),
                          str_cat("invalid `index-strategy` ", in_backticks(strategy),
                                  ": expected one of ", quoted_list(kIndexStrategies)));
    }
    config.index_best_match = strategy == "unsafe-best-match";
  }
  return {};
}

// The one place that knows which kinds of source exist and which wvlock supports: an entry
// names exactly one kind, and only the supported kinds (today `index`) pass.
Result<void> check_source_kind(const Reader& reader, const toml::table& table,
                               std::string_view where) {
  std::vector<std::string_view> kinds;
  for (std::string_view kind : kSourceKinds) {
    if (table.contains(kind)) kinds.push_back(kind);
  }
  if (kinds.size() > 1) {
    return reader.error(key_region(table, kinds[1]),
                        str_cat(where, " has two kinds of source, ", in_backticks(kinds[0]),
                                " and ", in_backticks(kinds[1]),
                                ": an entry takes exactly one of ", quoted_list(kSourceKinds)));
  }
  if (kinds.size() == 1 && !contains(kSupportedSourceKinds, kinds[0])) {
    return reader.error(key_region(table, kinds[0]),
                        str_cat(where, ": wvlock does not support ", in_backticks(kinds[0]),
                                " sources (workspaces) yet; use `path = \"../member\"` for a "
                                "sibling project"));
  }
  const std::string_view kind = kinds.empty() ? std::string_view() : kinds[0];
  for (std::string_view option : kKindOptions) {
    if (!table.contains(option)) continue;
    const bool fits = (kind == "git" && option != "editable") ||
                      (kind == "path" && (option == "editable" || option == "subdirectory")) ||
                      (kind == "url" && option == "subdirectory");
    if (fits) continue;
    return reader.error(key_region(table, option),
                        str_cat(where, ": ", in_backticks(option), " does not apply to ",
                                kind.empty() ? std::string("an entry without a source")
                                             : str_cat("a `", kind, "` source"),
                                option == "editable" ? " (only `path` folders install editable)"
                                                     : ""));
  }
  int refs = 0;
  for (std::string_view ref : {"tag", "branch", "rev"}) refs += table.contains(ref) ? 1 : 0;
  if (refs > 1) {
    return reader.error(table.source(),
                        str_cat(where, " names more than one of `tag`, `branch` and `rev`: a "
                                       "git source takes at most one"));
  }
  if (kinds.empty()) {
    return reader.error(table.source(),
                        str_cat(where, " names no source: give one of `index = \"NAME\"`, "
                                       "`path`, `url` or `git`"));
  }
  return {};
}

// The PEP 503 / 685 normalised keys of `names` (extras, dependency groups).
template <class Map>
std::vector<std::string> normalized_keys(const Map& names) {
  std::vector<std::string> keys;
  for (const auto& [name, value] : names) keys.push_back(pkg::normalize_name(name));
  return keys;
}

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Does `entry` apply to `target`? The rule documented on SourceEntry. Errors only when the
// marker cannot be parsed or evaluated there.
Result<bool> entry_applies(const ProjectConfig& config, const SourceEntry& entry,
                           const Target& target) {
  if (!entry.targets.empty() &&
      std::none_of(entry.targets.begin(), entry.targets.end(),
                   [&](const std::string& name) { return answers_to(target, name); })) {
    return false;
  }
  if (!entry.extra.empty()) {
    const bool locked = std::any_of(target.extras.begin(), target.extras.end(),
                                    [&](const std::string& extra) {
                                      return pkg::normalize_name(extra) == entry.extra;
                                    });
    if (!locked) return false;
  }
  if (entry.marker.empty()) return true;
  WV_ASSIGN_OR_RETURN(pkg::Marker marker, pkg::parse_marker(entry.marker));
  WV_ASSIGN_OR_RETURN(pkg::MarkerEnvironment environment, marker_environment(target.profile));
  const pkg::PreparedEnvironment prepared(std::move(environment));
  const std::vector<std::string> groups = normalized_keys(config.dependency_groups);
  pkg::MarkerContext context;
  context.environment = &prepared;
  context.extras = target.extras;
  context.dependency_groups = groups;
  return marker.evaluate(context);
}

// `index = "NAME"`: a declared index.
Result<void> read_index_pin(const Reader& reader, const toml::node& index_node,
                            std::string_view where, const ProjectConfig& config,
                            SourceEntry& entry) {
  entry.kind = SourceEntry::Kind::kIndex;
  WV_ASSIGN_OR_RETURN(entry.index, reader.string(index_node, "index"));
  if (config.find_index(entry.index) == nullptr) {
    std::vector<std::string> names;
    for (const IndexConfig& index : config.indexes) names.push_back(index.name);
    return reader.error(index_node.source(),
                        str_cat(where, " names index ", in_backticks(entry.index),
                                ", which is not declared: ",
                                names.empty() ? str_cat("no index is declared; add a "
                                                        "`[[", reader.key("index"), "]]` table")
                                              : str_cat("declared indexes are ",
                                                        join_backticked(names))));
  }
  return {};
}

// `path`, `url` or `git` with their options (check_source_kind() has checked which apply).
Result<void> read_direct_entry(const Reader& reader, const toml::table& table,
                               std::string_view where, SourceEntry& entry) {
  const auto text = [&](std::string_view key, std::string& out) -> Result<void> {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    WV_ASSIGN_OR_RETURN(out, reader.string(*node, key));
    if (out.empty() || out.find('\0') != std::string::npos) {
      return reader.error(node->source(), str_cat("`", key, "` of ", where, " is empty"));
    }
    return {};
  };
  if (table.contains("path")) {
    entry.kind = SourceEntry::Kind::kPath;
    WV_TRY(text("path", entry.location));
  } else if (table.contains("url")) {
    entry.kind = SourceEntry::Kind::kUrl;
    WV_TRY(text("url", entry.location));
    if (!is_http_url(entry.location) && !(is_url(entry.location) && is_file_url(entry.location))) {
      return reader.error(table.get("url")->source(),
                          str_cat("`url` of ", where, " must be an http(s):// or file:// URL of "
                                  "an archive; use `path` for a local file or folder and `git` "
                                  "for a repository"));
    }
  } else {
    entry.kind = SourceEntry::Kind::kGit;
    WV_TRY(text("git", entry.location));
    WV_TRY(text("tag", entry.tag));
    WV_TRY(text("branch", entry.branch));
    WV_TRY(text("rev", entry.rev));
  }
  WV_TRY(text("subdirectory", entry.subdirectory));
  if (entry.subdirectory.find("..") != std::string::npos ||
      (!entry.subdirectory.empty() && entry.subdirectory[0] == '/')) {
    return reader.error(table.get("subdirectory")->source(),
                        str_cat("`subdirectory` of ", where,
                                " must be a relative path inside the source"));
  }
  if (const toml::node* editable = table.get("editable")) {
    WV_ASSIGN_OR_RETURN(entry.editable, reader.boolean(*editable, "editable"));
  }
  return {};
}

Result<SourceEntry> read_source_entry(const Reader& reader, const toml::table& table,
                                      std::string_view package, const ProjectConfig& config) {
  const std::string where = str_cat("source of ", in_backticks(package));
  WV_TRY(reader.check_keys(table, kSourceKeys, where));
  WV_TRY(check_source_kind(reader, table, where));
  SourceEntry entry;
  entry.line = static_cast<int>(table.source().begin.line);
  entry.column = static_cast<int>(table.source().begin.column);

  if (const toml::node* index_node = table.get("index")) {
    WV_TRY(read_index_pin(reader, *index_node, where, config, entry));
  } else if (const toml::node* workspace = table.get("workspace")) {
    WV_ASSIGN_OR_RETURN(bool member, reader.boolean(*workspace, "workspace"));
    if (!member) {
      return reader.error(workspace->source(),
                          str_cat("`workspace = false` in ", where, " names no source: drop the "
                                  "entry, or write `workspace = true` for a workspace member"));
    }
    entry.kind = SourceEntry::Kind::kWorkspace;
  } else {
    WV_TRY(read_direct_entry(reader, table, where, entry));
  }
  if (const toml::node* targets_node = table.get("targets")) {
    WV_ASSIGN_OR_RETURN(entry.targets, reader.strings(*targets_node, "targets", false));
    if (entry.targets.empty()) {
      return reader.error(targets_node->source(),
                          str_cat("`targets = []` in ", where, " applies to no target: name at "
                                  "least one target, or drop `targets` to apply to every target"));
    }
    for (const std::string& name : entry.targets) {
      if (std::any_of(config.targets.begin(), config.targets.end(),
                      [&](const Target& target) { return answers_to(target, name); })) {
        continue;
      }
      std::vector<std::string> names;
      for (const Target& target : config.targets) names.push_back(target.name);
      return reader.error(targets_node->source(),
                          str_cat(where, " names target ", in_backticks(name),
                                  ", which is not declared: ",
                                  names.empty() ? std::string("no `[[tool.wvlock.target]]` is "
                                                              "declared")
                                                : str_cat("declared targets are ",
                                                          join_backticked(names))));
    }
  }
  if (const toml::node* marker_node = table.get("marker")) {
    WV_ASSIGN_OR_RETURN(entry.marker, reader.string(*marker_node, "marker"));
    Result<pkg::Marker> marker = pkg::parse_marker(entry.marker);
    if (!marker) {
      return reader.error(marker_node->source(), str_cat("invalid `marker` in ", where, ": ",
                                                         marker.error().message));
    }
  }
  if (table.contains("extra") && table.contains("group")) {
    return reader.error(key_region(table, "group"),
                        str_cat(where, " has both `extra` and `group`: an entry takes at most "
                                       "one of them"));
  }
  if (const toml::node* extra_node = table.get("extra")) {
    WV_ASSIGN_OR_RETURN(std::string extra, reader.string(*extra_node, "extra"));
    entry.extra = pkg::normalize_name(extra);
    const std::vector<std::string> extras = normalized_keys(config.optional_dependencies);
    if (!has(extras, entry.extra)) {
      return reader.error(extra_node->source(),
                          str_cat(where, " names extra ", in_backticks(extra),
                                  ", which `[project.optional-dependencies]` does not declare",
                                  extras.empty() ? std::string()
                                                 : str_cat(": declared extras are ",
                                                           join_backticked(extras))));
    }
  }
  if (const toml::node* group_node = table.get("group")) {
    WV_ASSIGN_OR_RETURN(std::string group, reader.string(*group_node, "group"));
    entry.group = pkg::normalize_name(group);
    const std::vector<std::string> groups = normalized_keys(config.dependency_groups);
    if (!has(groups, entry.group)) {
      return reader.error(group_node->source(),
                          str_cat(where, " names group ", in_backticks(group),
                                  ", which `[dependency-groups]` does not declare",
                                  groups.empty() ? std::string()
                                                 : str_cat(": declared groups are ",
                                                           join_backticked(groups))));
    }
  }
  if (const toml::node* marker_node = table.get("marker")) {
    for (const Target& target : config.targets) {
      Result<bool> applies = entry_applies(config, entry, target);
      if (!applies) {
        return reader.error(marker_node->source(),
                            str_cat("the `marker` of ", where, " cannot be evaluated for target ",
                                    in_backticks(target.name), ": ", applies.error().message));
      }
    }
  }
  return entry;
}

// Two entries of one package that apply to one target: an error at the second.
Result<void> check_one_source_per_target(const Reader& reader, const ProjectConfig& config,
                                         std::string_view package,
                                         const std::vector<SourceEntry>& entries) {
  const auto overlap = [&](const SourceEntry& first, const SourceEntry& second,
                           std::string_view target) {
    return reader.error_at(
        second.line, second.column,
        str_cat("two sources of ", in_backticks(package), " apply to ", target,
                ": the entries at ",
                first.line == second.line
                    ? str_cat(first.line, ":", first.column, " and ", second.line, ":",
                              second.column)
                    : str_cat("lines ", first.line, " and ", second.line),
                "; give them disjoint `targets`, `marker` or `extra`"));
  };
  for (const Target& target : config.targets) {
    const SourceEntry* first = nullptr;
    for (const SourceEntry& entry : entries) {
      Result<bool> applies = entry_applies(config, entry, target);
      if (!applies) {
        return reader.error_at(entry.line, entry.column,
                               str_cat("the `marker` of a source of ", in_backticks(package),
                                       " cannot be evaluated for target ",
                                       in_backticks(target.name), ": ",
                                       applies.error().message));
      }
      if (!*applies) continue;
      if (first != nullptr) {
        return overlap(*first, entry, str_cat("target ", in_backticks(target.name)));
      }
      first = &entry;
    }
  }
  if (config.targets.empty()) {  // no declared target: entries without conditions still clash
    const SourceEntry* first = nullptr;
    for (const SourceEntry& entry : entries) {
      if (!entry.targets.empty() || !entry.marker.empty() || !entry.extra.empty()) continue;
      if (first != nullptr) return overlap(*first, entry, "every target");
      first = &entry;
    }
  }
  return {};
}

// `[tool.wvlock.sources]`; reads after the indexes, targets, extras and groups it refers to.
// A package `[tool.wvlock.sources]` already names keeps those entries: uv's are read for the
// others only (`[tool.wvlock]` wins key by key).
Result<void> read_sources(const Reader& reader, const toml::table& wvlock, ProjectConfig& config) {
  const toml::node* sources_node = wvlock.get("sources");
  if (sources_node == nullptr) return {};
  const toml::table* sources = sources_node->as_table();
  const std::string table_name = str_cat("`[", reader.key("sources"), "]`");
  if (sources == nullptr) {
    return reader.error(sources_node->source(),
                        str_cat("`", reader.key("sources"), "` must be a table: ", table_name,
                                " with `package = { index = \"NAME\" }`"));
  }
  const std::map<pkg::PackageName, std::vector<SourceEntry>> earlier = config.sources;
  std::map<std::string, std::string> spellings;  // normalised -> as written
  for (const auto& [key, value] : in_file_order(*sources)) {
    const std::string package(key->str());
    Result<pkg::PackageName> parsed = pkg::parse_package_name(package);
    if (!parsed) {
      return reader.error(key->source(),
                          str_cat("invalid package name ", in_backticks(package),
                                  " in ", table_name));
    }
    const std::string& normalized = parsed->str();
    if (auto seen = spellings.find(normalized); seen != spellings.end()) {
      return reader.error(key->source(),
                          str_cat(in_backticks(package), " and ", in_backticks(seen->second),
                                  " in ", table_name, " name one package ",
                                  in_backticks(normalized), ": put all its entries under one key"));
    }
    spellings.emplace(normalized, package);
    if (earlier.count(*parsed)) continue;
    const std::string key_name = reader.key(str_cat("sources.", package));
    std::vector<const toml::table*> tables;
    if (const toml::table* single = value->as_table()) {
      tables.push_back(single);
    } else if (const toml::array* list = value->as_array()) {
      if (list->empty()) {
        return reader.error(value->source(),
                            str_cat("`", key_name, "` is an empty list: give at least one entry "
                                                   "or remove the key"));
      }
      for (const toml::node& item : *list) {
        const toml::table* table = item.as_table();
        if (table == nullptr) {
          return reader.error(item.source(),
                              str_cat("entries of `", key_name, "` must be inline tables like "
                                                                "`{ index = \"NAME\" }`"));
        }
        tables.push_back(table);
      }
    } else {
      return reader.error(value->source(),
                          str_cat("`", key_name, "` must be an inline table like "
                                                 "`{ index = \"NAME\" }` or an array of them"));
    }
    std::vector<SourceEntry> entries;
    for (const toml::table* table : tables) {
      WV_ASSIGN_OR_RETURN(SourceEntry entry, read_source_entry(reader, *table, package, config));
      entries.push_back(std::move(entry));
    }
    if (entries.empty()) continue;
    WV_TRY(check_one_source_per_target(reader, config, package, entries));
    config.sources.emplace(*parsed, std::move(entries));
  }
  return {};
}

// `default-groups` (uv's): a list of declared groups, or "all". Reads after the groups.
Result<void> read_default_groups(const Reader& reader, const toml::table& wvlock,
                                 ProjectConfig& config) {
  const toml::node* node = wvlock.get("default-groups");
  if (node == nullptr) return {};
  std::vector<std::string> declared = normalized_keys(config.dependency_groups);
  std::sort(declared.begin(), declared.end());
  if (const auto* text = node->as_string()) {
    if (text->get() != "all") {
      return reader.error(node->source(), str_cat("`", reader.key("default-groups"), "` must be a list of "
                                                  "dependency groups or \"all\", not ",
                                                  in_backticks(text->get())));
    }
    config.default_groups = declared;
    return {};
  }
  WV_ASSIGN_OR_RETURN(std::vector<std::string> groups,
                      reader.strings(*node, reader.key("default-groups"), false));
  std::vector<std::string> normalized;
  for (const std::string& group : groups) {
    const std::string name = pkg::normalize_name(group);
    if (!has(declared, name)) {
      return reader.error(node->source(),
                          str_cat("`", reader.key("default-groups"), "` names group ", in_backticks(group),
                                  ", which `[dependency-groups]` does not declare",
                                  declared.empty() ? std::string(": it declares none")
                                                   : str_cat(": declared groups are ",
                                                             join_backticked(declared))));
    }
    if (!has(normalized, name)) normalized.push_back(name);
  }
  std::sort(normalized.begin(), normalized.end());
  config.default_groups = std::move(normalized);
  return {};
}

// `prerelease`.
Result<void> read_prerelease(const Reader& reader, const toml::node& node, ProjectConfig& config) {
  WV_ASSIGN_OR_RETURN(std::string mode, reader.string(node, reader.key("prerelease")));
  if (!parse_prerelease_mode(mode)) {
    return reader.error(node.source(),
                        str_cat("invalid `prerelease` ", in_backticks(mode), ": expected one of ",
                                quoted_list(kPrereleaseModes)));
  }
  config.prerelease = mode;
  return {};
}

// `keyring-provider`.
Result<void> read_keyring(const Reader& reader, const toml::node& node, ProjectConfig& config) {
  WV_ASSIGN_OR_RETURN(std::string provider, reader.string(node, reader.key("keyring-provider")));
  if (std::find(std::begin(kKeyringProviders), std::end(kKeyringProviders), provider) ==
      std::end(kKeyringProviders)) {
    return reader.error(node.source(),
                        str_cat("invalid `keyring-provider` ", in_backticks(provider),
                                ": expected one of ", quoted_list(kKeyringProviders)));
  }
  config.keyring_provider = provider;
  return {};
}

// `constraint-dependencies` / `override-dependencies`: PEP 508 requirements on packages by
// name (the lock layer parses them; a direct reference is refused there).
Result<std::vector<std::string>> read_requirement_list(const Reader& reader, const toml::node& node,
                                                       std::string_view key) {
  const toml::array* list = node.as_array();
  if (list == nullptr) {
    return reader.error(node.source(), str_cat("`", reader.key(key), "` must be an array of "
                                               "requirement strings such as \"numpy<2\""));
  }
  std::vector<std::string> out;
  for (const toml::node& item : *list) {
    if (item.is_table() && reader.is_uv()) {  // uv's scoped override `{ package = ..., ... }`
      reader.warn(item.source(), str_cat("wvlock does not act on scoped entries of `",
                                         reader.key(key), "`: ignored"));
      continue;
    }
    WV_ASSIGN_OR_RETURN(std::string text, reader.string(item, reader.key(key)));
    out.push_back(std::move(text));
  }
  return out;
}

// uv's `conflicts`: sets of extras (or groups) that are not installed together. Read after the
// extras and groups they name.
Result<void> read_conflicts(const Reader& reader, const toml::node& node, ProjectConfig& config) {
  const std::string key = reader.key("conflicts");
  const toml::array* sets = node.as_array();
  if (sets == nullptr) {
    return reader.error(node.source(), str_cat("`", key, "` must be an array of arrays like "
                                               "`[[{ extra = \"cpu\" }, { extra = \"cu128\" }]]`"));
  }
  const std::vector<std::string> extras = normalized_keys(config.optional_dependencies);
  const std::vector<std::string> groups = normalized_keys(config.dependency_groups);
  for (const toml::node& set_node : *sets) {
    const toml::array* set = set_node.as_array();
    if (set == nullptr || set->size() < 2) {
      return reader.error(set_node.source(), str_cat("each set of `", key, "` must be an array "
                                                     "of at least two `{ extra = \"NAME\" }` "
                                                     "or `{ group = \"NAME\" }` tables"));
    }
    ConflictSet conflict;
    for (const toml::node& item_node : *set) {
      const toml::table* item = item_node.as_table();
      if (item == nullptr || item->contains("extra") == item->contains("group")) {
        return reader.error(item_node.source(), str_cat("an entry of `", key, "` must be a table "
                                                        "with one of `extra` or `group`"));
      }
      if (item->contains("package")) {
        reader.warn(key_region(*item, "package"),
                    str_cat("wvlock does not act on `package` in `", key,
                            "` (workspace members): the conflict is read as the project's own"));
      }
      const bool is_extra = item->contains("extra");
      const toml::node& name_node = *item->get(is_extra ? "extra" : "group");
      WV_ASSIGN_OR_RETURN(std::string name, reader.string(name_node, is_extra ? "extra" : "group"));
      const std::string normalized = pkg::normalize_name(name);
      const std::vector<std::string>& declared = is_extra ? extras : groups;
      if (!has(declared, normalized)) {
        return reader.error(name_node.source(),
                            str_cat("`", key, "` names ", is_extra ? "extra " : "group ",
                                    in_backticks(name), ", which ",
                                    is_extra ? "`[project.optional-dependencies]`"
                                             : "`[dependency-groups]`",
                                    " does not declare"));
      }
      if (is_extra) {
        conflict.push_back(normalized);
      } else {
        reader.warn(name_node.source(),
                    str_cat("wvlock locks every dependency group in every target: the conflict "
                            "on group ", in_backticks(name), " in `", key, "` is not acted on"));
      }
    }
    if (conflict.size() >= 2) config.conflicts.push_back(std::move(conflict));
  }
  return {};
}

// uv's `environments` and `required-environments`: markers; each that names a platform becomes
// a target when none is declared.
struct EnvironmentMarker {
  std::string marker;
  toml::source_region where;
};

Result<std::vector<EnvironmentMarker>> read_environments(const Reader& reader,
                                                         const toml::table& uv) {
  std::vector<EnvironmentMarker> out;
  for (std::string_view key : {"environments", "required-environments"}) {
    const toml::node* node = uv.get(key);
    if (node == nullptr) continue;
    std::vector<const toml::node*> items;
    if (const toml::array* list = node->as_array()) {
      for (const toml::node& item : *list) items.push_back(&item);
    } else {
      items.push_back(node);
    }
    for (const toml::node* item : items) {
      WV_ASSIGN_OR_RETURN(std::string marker, reader.string(*item, reader.key(key)));
      if (Result<pkg::Marker> parsed = pkg::parse_marker(marker); !parsed) {
        return reader.error(item->source(), str_cat("invalid marker in `", reader.key(key),
                                                    "`: ", parsed.error().message));
      }
      out.push_back({std::move(marker), item->source()});
    }
  }
  return out;
}

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

// The table at `tool.NAME`; nullptr when the file has none.
Result<const toml::table*> tool_table(const Reader& reader, const toml::table& root,
                                      std::string_view name) {
  const toml::node* tool_node = root.get("tool");
  const toml::table* tool = tool_node ? tool_node->as_table() : nullptr;
  const toml::node* node = tool ? tool->get(name) : nullptr;
  if (node == nullptr) return static_cast<const toml::table*>(nullptr);
  const toml::table* table = node->as_table();
  if (table == nullptr) return reader.error(node->source(), str_cat("`tool.", name, "` must be a table"));
  return table;
}

// `[tool.wvlock.workspace]` (or uv's): `members` and `exclude`, each a list of globs.
Result<WorkspaceConfig> read_workspace(const Reader& reader, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return reader.error(node.source(), str_cat("`", reader.key("workspace"), "` must be a table"));
  }
  WV_TRY(reader.check_keys(*table, kWorkspaceKeys, str_cat("`[", reader.key("workspace"), "]`")));
  WorkspaceConfig workspace;
  for (auto [key, out] : {std::pair{"members", &workspace.members},
                          std::pair{"exclude", &workspace.exclude}}) {
    const toml::node* list_node = table->get(key);
    if (list_node == nullptr) continue;
    const std::string dotted = str_cat(reader.key("workspace"), ".", key);
    const toml::array* list = list_node->as_array();
    if (list == nullptr) {
      return reader.error(list_node->source(), str_cat("`", dotted, "` must be an array of globs"));
    }
    for (const toml::node& item : *list) {
      WV_ASSIGN_OR_RETURN(std::string glob, reader.string(item, dotted));
      if (glob.empty() || glob[0] == '/' || glob.find('\0') != std::string::npos) {
        return reader.error(item.source(), str_cat("`", dotted, "` entries are globs relative to "
                                                   "the workspace root, not ", in_backticks(glob)));
      }
      out->push_back({std::move(glob), static_cast<int>(item.source().begin.line),
                      static_cast<int>(item.source().begin.column)});
    }
  }
  return workspace;
}

// `[tool.wvlock]` and uv's `[tool.uv]`: each setting from `[tool.wvlock]` when it gives it, else
// from `[tool.uv]` (the indexes as one setting: `[tool.wvlock]`'s when it declares any; the
// sources package by package).
Result<void> read_tool_tables(const std::string& path, const toml::table& root,
                              ProjectConfig& config, const DefaultPythons& default_pythons,
                              const DefaultTarget& default_target) {
  const Reader reader{path};
  const Reader uv_reader{path, "tool.uv", &config.warnings};
  WV_ASSIGN_OR_RETURN(const toml::table* wvlock, tool_table(reader, root, "wvlock"));
  WV_ASSIGN_OR_RETURN(const toml::table* uv, tool_table(uv_reader, root, "uv"));
  if (wvlock) WV_TRY(reader.check_keys(*wvlock, kWvlockKeys, "`[tool.wvlock]`"));
  if (uv) WV_TRY(uv_reader.check_keys(*uv, kUvKeys, "`[tool.uv]`"));  // warnings only
  // The table that gives `key` and its reader; {nullptr, nullptr} when neither does.
  const auto from = [&](std::string_view key) -> std::pair<const Reader*, const toml::node*> {
    if (wvlock && wvlock->contains(key)) return {&reader, wvlock->get(key)};
    if (uv && uv->contains(key)) return {&uv_reader, uv->get(key)};
    return {nullptr, nullptr};
  };

  if (auto [r, node] = from("package"); node) {
    WV_ASSIGN_OR_RETURN(config.package, r->boolean(*node, r->key("package")));
  }
  if (wvlock) {
    if (const toml::node* fallback = wvlock->get("cpu-fallback")) {
      WV_ASSIGN_OR_RETURN(config.cpu_fallback, reader.boolean(*fallback, "tool.wvlock.cpu-fallback"));
    }
    if (const toml::node* python = wvlock->get("python")) {
      WV_ASSIGN_OR_RETURN(config.python, read_pythons(reader, *python, "tool.wvlock.python"));
    }
  }
  const auto declares_indexes = [](const toml::table* table) {
    return table && (table->contains("index") || table->contains("index-url") ||
                     table->contains("extra-index-url"));
  };
  if (declares_indexes(wvlock)) {
    WV_TRY(read_indexes(reader, *wvlock, config));
  } else if (declares_indexes(uv)) {
    WV_TRY(read_indexes(uv_reader, *uv, config));
  }
  if (auto [r, node] = from("index-strategy"); node) {
    WV_TRY(read_index_strategy(*r, wvlock && r == &reader ? *wvlock : *uv, config));
  }
  if (auto [r, node] = from("find-links"); node) {
    WV_ASSIGN_OR_RETURN(config.find_links, r->strings(*node, r->key("find-links"), true));
  }
  if (auto [r, node] = from("prerelease"); node) WV_TRY(read_prerelease(*r, *node, config));
  if (auto [r, node] = from("keyring-provider"); node) WV_TRY(read_keyring(*r, *node, config));
  if (auto [r, node] = from("default-groups"); node) {
    WV_TRY(read_default_groups(*r, r == &reader ? *wvlock : *uv, config));
  }
  if (wvlock) {
    if (const toml::node* providers = wvlock->get("enable-providers")) {
      WV_ASSIGN_OR_RETURN(config.enabled_providers,
                          reader.strings(*providers, "tool.wvlock.enable-providers", false));
    }
  }
  if (auto [r, node] = from("constraint-dependencies"); node) {
    WV_ASSIGN_OR_RETURN(config.constraint_dependencies,
                        read_requirement_list(*r, *node, "constraint-dependencies"));
  }
  if (auto [r, node] = from("override-dependencies"); node) {
    WV_ASSIGN_OR_RETURN(config.override_dependencies,
                        read_requirement_list(*r, *node, "override-dependencies"));
  }
  const toml::node* conflicts = uv ? uv->get("conflicts") : nullptr;
  if (conflicts) WV_TRY(read_conflicts(uv_reader, *conflicts, config));

  LazyDefaultPythons lazy_defaults(default_pythons, config);
  if (const toml::node* targets = wvlock ? wvlock->get("target") : nullptr) {
    WV_TRY(read_declared_targets(reader, *targets, config, lazy_defaults));
    if (conflicts) WV_TRY(check_declared_conflicts(uv_reader, *conflicts, config));
  } else {
    std::vector<EnvironmentMarker> environments;
    if (uv) {
      WV_ASSIGN_OR_RETURN(environments, read_environments(uv_reader, *uv));
    }
    WV_TRY(add_default_targets(uv_reader, environments, config, lazy_defaults, default_target));
  }
  if (wvlock) WV_TRY(read_sources(reader, *wvlock, config));
  if (uv) WV_TRY(read_sources(uv_reader, *uv, config));
  if (auto [r, node] = from("workspace"); node) {
    WV_ASSIGN_OR_RETURN(config.workspace, read_workspace(*r, *node));
  }
  return {};
}

}  // namespace

std::vector<std::string> ProjectConfig::default_group_names() const {
  if (default_groups) return *default_groups;
  for (const auto& [group, entries] : dependency_groups) {
    if (pkg::normalize_name(group) == "dev") return {"dev"};
  }
  return {};
}

const Target* ProjectConfig::find_target(std::string_view target_name) const {
  for (const Target& target : targets) {
    if (same_target_name(target.name, target_name)) return &target;
  }
  return nullptr;
}

const IndexConfig* ProjectConfig::find_index(std::string_view index_name) const {
  for (const IndexConfig& index : indexes) {
    if (index.name == index_name) return &index;
  }
  return nullptr;
}

const SourceEntry* applicable_source(const ProjectConfig& config, const pkg::PackageName& package,
                                     const Target& target) {
  const auto found = config.sources.find(package);
  if (found == config.sources.end()) return nullptr;
  for (const SourceEntry& entry : found->second) {
    Result<bool> applies = entry_applies(config, entry, target);
    if (applies && *applies) return &entry;
  }
  return nullptr;
}

Result<ProjectConfig> parse_project_file(std::string_view text, std::string_view path,
                                         const DefaultPythons& default_pythons,
                                         const DefaultTarget& default_target) {
  if (text.size() > limit_value(Limit::kTomlBytes)) {
    return limit_error(Limit::kTomlBytes, str_cat("project file ", in_backticks(path)), text.size());
  }
  WV_TRY(check_toml_nesting(text, limit_value(Limit::kTomlDepth),
                            str_cat("project file ", in_backticks(path))));
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
  WV_TRY(read_build_system(reader, root, config));
  WV_TRY(read_dependency_groups(reader, root, config));
  WV_TRY(read_tool_tables(std::string(path), root, config, default_pythons, default_target));
  return config;
}

Result<ProjectConfig> read_project_file(const FileSystem& file_system, const std::string& path,
                                        const DefaultPythons& default_pythons,
                                        const DefaultTarget& default_target) {
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(path));
  return parse_project_file(text, path, default_pythons, default_target);
}

Result<std::optional<WorkspaceConfig>> parse_workspace_table(std::string_view text,
                                                             std::string_view path) {
  // A file this cannot read is no workspace root: the search goes on above it.
  if (text.size() > limit_value(Limit::kTomlBytes) ||
      !check_toml_nesting(text, limit_value(Limit::kTomlDepth), path)) {
    return std::optional<WorkspaceConfig>();
  }
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const std::exception&) {
    return std::optional<WorkspaceConfig>();  // not a root we can read: keep looking above
  }
  const Reader reader{std::string(path)};
  const Reader uv_reader{std::string(path), "tool.uv"};
  for (auto [name, r] : {std::pair{"wvlock", &reader}, std::pair{"uv", &uv_reader}}) {
    WV_ASSIGN_OR_RETURN(const toml::table* tool, tool_table(*r, root, name));
    const toml::node* node = tool ? tool->get("workspace") : nullptr;
    if (node == nullptr) continue;
    WV_ASSIGN_OR_RETURN(WorkspaceConfig workspace, read_workspace(*r, *node));
    return std::optional<WorkspaceConfig>(std::move(workspace));
  }
  return std::optional<WorkspaceConfig>();
}

std::string resolve_project_path(const ProjectConfig& config, std::string_view value) {
  if (is_url(value) || (!value.empty() && value[0] == '/')) {
    return std::string(value);
  }
  return path_join(config.project_dir, value);
}

Result<pkg::DirectSource> direct_source(const ProjectConfig& config, const SourceEntry& entry) {
  pkg::DirectSource source;
  source.subdirectory = entry.subdirectory;
  switch (entry.kind) {
    case SourceEntry::Kind::kIndex:
    case SourceEntry::Kind::kWorkspace:
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("the source entry at line ", entry.line,
                                " names an index or a workspace member"));
    case SourceEntry::Kind::kPath: {
      source.location = absolute_path(resolve_project_path(config, entry.location));
      source.kind = pkg::is_archive_name(source.location) ? pkg::DirectKind::kArchive
                                                          : pkg::DirectKind::kDirectory;
      if (entry.editable && source.kind != pkg::DirectKind::kDirectory) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(config.path, ":", entry.line, ":", entry.column,
                                  ": `editable = true` needs a folder, and ",
                                  in_backticks(entry.location), " is an archive"));
      }
      source.editable = entry.editable;
      return source;
    }
    case SourceEntry::Kind::kUrl: {
      auto parsed = pkg::parse_direct_url(entry.location);
      if (!parsed) return std::move(parsed).error().with_context(str_cat(config.path, ":", entry.line));
      if (!entry.subdirectory.empty()) parsed->subdirectory = entry.subdirectory;
      return *parsed;
    }
    case SourceEntry::Kind::kGit: {
      source.kind = pkg::DirectKind::kGit;
      source.location = entry.location;
      if (source.location.rfind("git+", 0) == 0) source.location = source.location.substr(4);
      if (!is_url(source.location) && source.location.find('@') == std::string::npos) {
        // A local repository, relative to the project like every path.
        source.location = absolute_path(resolve_project_path(config, source.location));
      }
      source.tag = entry.tag;
      source.branch = entry.branch;
      source.rev = entry.rev;
      return source;
    }
  }
  return source;
}

}  // namespace wv::targets
