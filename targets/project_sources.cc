// The sources of the project file: `[tool.wvlock.sources]` (and uv's) entries, the one that
// applies to a target (applicable_source) and the direct reference it names (direct_source)
// (DESIGN.md §2.1).
#include <algorithm>
#include <map>
#include <toml++/toml.h>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "targets/project_reader.h"
#include "targets/python_pairs.h"

namespace wv::targets::project_reader {
namespace {

// The kinds of source a `[tool.wvlock.sources]` entry may name, exactly one per entry, and the
// ones wvlock implements; check_source_kind() is the one place that tells them apart.
constexpr std::string_view kSourceKinds[] = {"index", "path", "url", "git", "workspace"};
constexpr std::string_view kSupportedSourceKinds[] = {"index", "path", "url", "git", "workspace"};
// The options each kind takes (beyond the conditions every entry may carry).
constexpr std::string_view kKindOptions[] = {"editable", "tag", "rev", "branch", "subdirectory"};
constexpr std::string_view kSourceKeys[] = {
    "index",  "path",     "url", "git", "workspace", "targets",     "marker",
    "extra",  "group",    "editable", "tag", "rev", "branch", "subdirectory"};

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

// Where the entry points: an index, a workspace member, or a path, URL or git repository.
Result<void> read_entry_source(const Reader& reader, const toml::table& table,
                               std::string_view where, const ProjectConfig& config,
                               SourceEntry& entry) {
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
  return {};
}

// `targets`: declared targets the entry applies to.
Result<void> read_entry_targets(const Reader& reader, const toml::table& table,
                                std::string_view where, const ProjectConfig& config,
                                SourceEntry& entry) {
  const toml::node* targets_node = table.get("targets");
  if (targets_node == nullptr) return {};
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
  return {};
}

// `extra` or `group`: one the project declares.
Result<void> read_entry_extra_or_group(const Reader& reader, const toml::table& table,
                                       std::string_view where, const ProjectConfig& config,
                                       SourceEntry& entry) {
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

  WV_TRY(read_entry_source(reader, table, where, config, entry));
  WV_TRY(read_entry_targets(reader, table, where, config, entry));
  if (const toml::node* marker_node = table.get("marker")) {
    WV_ASSIGN_OR_RETURN(entry.marker, reader.string(*marker_node, "marker"));
    Result<pkg::Marker> marker = pkg::parse_marker(entry.marker);
    if (!marker) {
      return reader.error(marker_node->source(), str_cat("invalid `marker` in ", where, ": ",
                                                         marker.error().message));
    }
  }
  WV_TRY(read_entry_extra_or_group(reader, table, where, config, entry));
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

}  // namespace

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

}  // namespace wv::targets::project_reader

namespace wv::targets {

using project_reader::entry_applies;

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
