// pyproject.toml reading (DESIGN.md §2). The reader's entry points and the tables of
// `[project]`, `[build-system]`, groups, conflicts, environments and the tool tables; the other
// tables are read in project_targets.cc, project_indexes.cc and project_sources.cc, which share
// targets/project_reader.h. toml++ is included only by these files;
// toml::parse_error is caught here and becomes an Error with file, line and column.
#include "targets/project_file.h"
#include "targets/prerelease.h"

#include <algorithm>
#include <toml++/toml.h>

#include "src/base/limits.h"
#include "src/base/toml_guard.h"
#include "src/base/str.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "targets/default_targets.h"
#include "targets/project_reader.h"

namespace wv::targets::project_reader {
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

// `[tool.wvlock]` and `[tool.uv]` (either may be absent) with their readers.
struct ToolTables {
  const Reader& reader;
  const Reader& uv_reader;
  const toml::table* wvlock;
  const toml::table* uv;

  // The table that gives `key` and its reader; {nullptr, nullptr} when neither does.
  std::pair<const Reader*, const toml::node*> from(std::string_view key) const {
    if (wvlock && wvlock->contains(key)) return {&reader, wvlock->get(key)};
    if (uv && uv->contains(key)) return {&uv_reader, uv->get(key)};
    return {nullptr, nullptr};
  }
};

// The settings that name no target or source: each from `[tool.wvlock]` when it gives it, else
// from `[tool.uv]` (the indexes as one setting: `[tool.wvlock]`'s when it declares any).
Result<void> read_settings(const ToolTables& tools, ProjectConfig& config) {
  const Reader& reader = tools.reader;
  const Reader& uv_reader = tools.uv_reader;
  const toml::table* wvlock = tools.wvlock;
  const toml::table* uv = tools.uv;
  if (auto [r, node] = tools.from("package"); node) {
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
  if (auto [r, node] = tools.from("index-strategy"); node) {
    WV_TRY(read_index_strategy(*r, wvlock && r == &reader ? *wvlock : *uv, config));
  }
  if (auto [r, node] = tools.from("find-links"); node) {
    WV_ASSIGN_OR_RETURN(config.find_links, r->strings(*node, r->key("find-links"), true));
  }
  if (auto [r, node] = tools.from("prerelease"); node) WV_TRY(read_prerelease(*r, *node, config));
  if (auto [r, node] = tools.from("keyring-provider"); node) {
    WV_TRY(read_keyring(*r, *node, config));
  }
  if (auto [r, node] = tools.from("default-groups"); node) {
    WV_TRY(read_default_groups(*r, r == &reader ? *wvlock : *uv, config));
  }
  if (wvlock) {
    if (const toml::node* providers = wvlock->get("enable-providers")) {
      WV_ASSIGN_OR_RETURN(config.enabled_providers,
                          reader.strings(*providers, "tool.wvlock.enable-providers", false));
    }
  }
  if (auto [r, node] = tools.from("constraint-dependencies"); node) {
    WV_ASSIGN_OR_RETURN(config.constraint_dependencies,
                        read_requirement_list(*r, *node, "constraint-dependencies"));
  }
  if (auto [r, node] = tools.from("override-dependencies"); node) {
    WV_ASSIGN_OR_RETURN(config.override_dependencies,
                        read_requirement_list(*r, *node, "override-dependencies"));
  }
  return {};
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
  const ToolTables tools{reader, uv_reader, wvlock, uv};
  WV_TRY(read_settings(tools, config));
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
  if (auto [r, node] = tools.from("workspace"); node) {
    WV_ASSIGN_OR_RETURN(config.workspace, read_workspace(*r, *node));
  }
  return {};
}

}  // namespace

}  // namespace wv::targets::project_reader

namespace wv::targets {

using project_reader::read_tool_tables;
using project_reader::read_workspace;
using project_reader::Reader;
using project_reader::tool_table;
using project_reader::read_project_table;
using project_reader::read_build_system;
using project_reader::read_dependency_groups;

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

}  // namespace wv::targets

