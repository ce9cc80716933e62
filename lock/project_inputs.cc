#include "lock/project_inputs.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "src/base/contained_path.h"
#include "src/base/credentials.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pkg/direct_source.h"
#include "src/pkg/name.h"
#include "src/pkg/source_tree.h"
#include "src/pkg/version.h"
#include "targets/prerelease.h"
#include "targets/providers.h"

namespace wv::lock {
namespace {

// Constraints and overrides name packages by version: a direct reference is not one.
Result<std::vector<pkg::Requirement>> parse_package_requirements(
    const std::vector<std::string>& items, std::string_view where) {
  WV_ASSIGN_OR_RETURN(std::vector<pkg::Requirement> requirements, parse_requirements(items, where));
  for (const pkg::Requirement& requirement : requirements) {
    if (requirement.url) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(where, ": ", in_backticks(requirement.to_string()),
                                " is a direct reference; constraints and overrides take version "
                                "specifiers (a source goes in `[tool.wvlock.sources]`)"));
    }
  }
  return requirements;
}

// The root project's own requirements, constraints and overrides, and its settings.
Result<ProjectRequirements> root_requirements(const targets::ProjectConfig& config) {
  const std::string& path = config.path;
  ProjectRequirements requirements;
  requirements.name = config.name.value_or("");
  requirements.requires_python = config.requires_python.value_or("");
  if (config.is_package() && config.name) {
    const bool dynamic_version = std::find(config.dynamic.begin(), config.dynamic.end(),
                                           "version") != config.dynamic.end();
    std::string version;
    if (config.version && !dynamic_version) {
      auto parsed = pkg::parse_version(*config.version);
      if (parsed) version = parsed->to_string();
    }
    requirements.package_version = version;
  }
  WV_ASSIGN_OR_RETURN(requirements.dependencies,
                      parse_requirements(config.dependencies,
                                         str_cat(path, ": [project] dependencies")));
  for (const auto& [extra, items] : config.optional_dependencies) {
    const std::string where = str_cat(path, ": [project.optional-dependencies] ", extra);
    Result<pkg::ExtraName> name = pkg::parse_extra_name(extra);
    if (!name) return std::move(name).error().with_context(where);
    WV_ASSIGN_OR_RETURN(requirements.optional_dependencies[*name], parse_requirements(items, where));
  }
  auto expanded = expand_dependency_groups(config.dependency_groups);
  if (!expanded) return std::move(expanded).error().with_context(path);
  requirements.dependency_groups = std::move(*expanded);
  for (const std::string& group : config.default_group_names()) {
    // The reader kept only declared groups: their names passed expand_dependency_groups.
    WV_ASSIGN_OR_RETURN(pkg::ExtraName name, pkg::parse_extra_name(group));
    requirements.default_groups.push_back(std::move(name));
  }
  // The project reader accepted only the names of kPrereleaseModes.
  if (config.prerelease) {
    requirements.prerelease =
        targets::parse_prerelease_mode(*config.prerelease).value_or(requirements.prerelease);
  }
  WV_ASSIGN_OR_RETURN(requirements.constraints,
                      parse_package_requirements(config.constraint_dependencies,
                                                 str_cat(path, ": constraint-dependencies")));
  WV_ASSIGN_OR_RETURN(requirements.overrides,
                      parse_package_requirements(config.override_dependencies,
                                                 str_cat(path, ": override-dependencies")));
  return requirements;
}

// Each member, with every extra it declares, so that `--package NAME --extra X` installs from
// the lock.
Result<void> add_member_requirements(const std::vector<targets::WorkspaceMember>& members,
                                     ProjectRequirements& requirements) {
  for (const targets::WorkspaceMember& member : members) {
    std::vector<std::string> extras;
    for (const auto& [extra, items] : member.config.optional_dependencies) {
      Result<pkg::ExtraName> name = pkg::parse_extra_name(extra);
      if (!name) return std::move(name).error().with_context(member.config.path);
      extras.push_back(name->str());
    }
    WV_ASSIGN_OR_RETURN(pkg::Requirement requirement,
                        pkg::parse_requirement(extras.empty() ? member.name.str()
                                                              : str_cat(member.name, "[", join(extras, ","), "]")));
    requirements.workspace_members.push_back(std::move(requirement));
  }
  return {};
}

// The project's own direct references (`name @ URL`) become the package's source for every
// target, unless `[tool.wvlock.sources]` already gives one there.
Result<void> add_direct_references(const ProjectRequirements& requirements,
                                   TargetContext& context, std::string_view path) {
  std::vector<const pkg::Requirement*> all;
  for (const pkg::Requirement& requirement : requirements.dependencies) all.push_back(&requirement);
  for (const auto& [extra, list] : requirements.optional_dependencies) {
    for (const pkg::Requirement& requirement : list) all.push_back(&requirement);
  }
  for (const auto& [group, list] : requirements.dependency_groups) {
    for (const pkg::Requirement& requirement : list) all.push_back(&requirement);
  }
  for (const pkg::Requirement* requirement : all) {
    if (!requirement->url) continue;
    auto direct = pkg::parse_direct_url(*requirement->url);
    if (!direct) return std::move(direct).error().with_context(path);
    Result<pkg::PackageName> name = requirement->package_name();
    if (!name) return std::move(name).error().with_context(path);
    context.direct_sources.emplace(std::move(*name), std::move(*direct));
  }
  return {};
}

// The sources of one target: the root's entries, then each member's for the packages the
// root gives no source (a member's entries apply to the whole lock, since one resolution per
// target serves every member), then every member as an editable folder.
Result<void> add_target_sources(const targets::ProjectConfig& root,
                                const std::vector<targets::WorkspaceMember>& members,
                                const targets::Target& target, TargetContext& context) {
  std::vector<const targets::ProjectConfig*> configs{&root};
  for (const targets::WorkspaceMember& member : members) configs.push_back(&member.config);
  for (const targets::ProjectConfig* config : configs) {
    for (const auto& [package, entries] : config->sources) {
      if (config != &root && root.sources.count(package)) continue;
      if (context.pinned_indexes.count(package) || context.direct_sources.count(package)) continue;
      const targets::SourceEntry* entry = targets::applicable_source(*config, package, target);
      if (entry == nullptr || entry->kind == targets::SourceEntry::Kind::kWorkspace) continue;
      if (entry->kind == targets::SourceEntry::Kind::kIndex) {
        context.pinned_indexes[package] = entry->index;
        continue;
      }
      auto direct = targets::direct_source(*config, *entry);
      if (!direct) return std::move(direct).error().with_context(config->path);
      context.direct_sources[package] = std::move(*direct);
    }
  }
  for (const targets::WorkspaceMember& member : members) {
    pkg::DirectSource source;
    source.kind = pkg::DirectKind::kDirectory;
    source.location = member.dir;
    source.editable = true;
    context.direct_sources[member.name] = std::move(source);
  }
  return {};
}

// One context per declared target, in declared order, with its extras and sources.
Result<std::vector<TargetContext>> target_contexts(
    const targets::ProjectConfig& config, const std::vector<targets::WorkspaceMember>& members,
    const ProjectRequirements& requirements, bool complete_tags) {
  std::vector<TargetContext> contexts;
  targets::ProviderOptions provider_options;
  provider_options.enabled_optional = config.enabled_providers;
  for (const targets::Target& target : config.targets) {
    WV_ASSIGN_OR_RETURN(TargetContext context,
                        make_target_context(target, provider_options, complete_tags));
    for (const std::string& extra : target.extras) {
      Result<pkg::ExtraName> name = pkg::parse_extra_name(extra);
      if (!name) return std::move(name).error().with_context(str_cat("target ", target.name));
      context.extras.push_back(std::move(*name));
    }
    WV_TRY(add_target_sources(config, members, target, context));
    WV_TRY(add_direct_references(requirements, context, config.path));
    contexts.push_back(std::move(context));
  }
  return contexts;
}

// `path` relative to the project folder, as the lockfile spells it (`../lib/pyproject.toml`).
std::string project_relative_path(const targets::ProjectConfig& config, const std::string& path) {
  return relative_path(path, config.project_dir);
}

// A path source's pyproject.toml (and setup.cfg / setup.py) is part of what the lock read: a
// change there makes the lock stale (`--check`, sync's freshness check). Each is read only
// inside the folder (links followed, contained_path.h): one that leads out of it is refused.
Result<void> add_source_tree_inputs(const targets::ProjectConfig& config,
                                    const FileSystem& file_system, ProjectInputs& project) {
  std::set<std::string> seen;
  for (const TargetContext& target : project.targets) {
    for (const auto& [name, direct] : target.direct_sources) {
      if (direct.kind != pkg::DirectKind::kDirectory || !seen.insert(direct.key()).second) continue;
      std::string text = str_cat("source-tree:", name);
      Result<std::string> tree = resolve_inside(direct.location, direct.subdirectory,
                                                str_cat("the folder ", in_backticks(direct.location)));
      if (!tree && tree.error().code != ErrorCode::kNotFound) return std::move(tree).error();
      for (std::string_view leaf : pkg::kMetadataFiles) {
        if (!tree) break;  // no folder: the lock says so
        Result<std::string> path = resolve_inside(*tree, leaf, str_cat("the folder ", in_backticks(*tree)));
        if (!path && path.error().code != ErrorCode::kNotFound) return std::move(path).error();
        if (!path) continue;
        Result<std::string> content = file_system.read_file(*path);
        if (!content) continue;
        text += str_cat("\n", leaf, "\n", *content);
        project.input_files[project_relative_path(config, path_join(*tree, leaf))] =
            "sha256:" + sha256_hex(*content);
      }
      project.inputs.push_back(std::move(text));
    }
  }
  return {};
}

// One source entry as the input-hash reads it, for the root's entries and the members' alike;
// none for an index entry (it is in each target's pins) or a workspace entry (a member's folder).
std::optional<std::string> source_input(const targets::SourceEntry& entry) {
  if (entry.kind == targets::SourceEntry::Kind::kIndex) return std::nullopt;
  if (entry.kind == targets::SourceEntry::Kind::kWorkspace) return std::nullopt;
  return str_cat(static_cast<int>(entry.kind), ",", strip_credentials(entry.location), ",",
                 entry.tag, ",", entry.branch, ",", entry.rev, ",", entry.subdirectory,
                 entry.editable ? ",editable" : "", ",", join(entry.targets, "+"), ",",
                 entry.marker, ",", entry.extra, ",", entry.group);
}

// What the lock read from the members besides their pyproject.toml (in input_files as
// directory sources): their folders and their own source entries.
void add_workspace_inputs(const std::vector<targets::WorkspaceMember>& members,
                          std::vector<std::string>& inputs) {
  for (const targets::WorkspaceMember& member : members) {
    inputs.push_back("workspace-member:" + member.relative);
    for (const auto& [package, entries] : member.config.sources) {
      for (const targets::SourceEntry& entry : entries) {
        if (auto input = source_input(entry)) {
          inputs.push_back(str_cat("member-source:", member.relative, ":", package, "=", *input));
        }
      }
    }
  }
}

// The root's source entries, whether it is a package, and its indexes.
void add_config_inputs(const targets::ProjectConfig& config, std::vector<std::string>& inputs) {
  for (const auto& [package, entries] : config.sources) {
    for (const targets::SourceEntry& entry : entries) {
      if (auto input = source_input(entry)) {
        inputs.push_back(str_cat("source:", package, "=", *input));
      }
    }
  }
  if (config.is_package()) inputs.push_back("project-package");
  for (const targets::IndexConfig& index : config.indexes) {
    // The shorthands keep their earlier spelling, so their locks keep their input-hash.
    if (index.name == "index-url" && config.index_url) {
      inputs.push_back("index-url:" + strip_credentials(index.url));
    } else if (index.name.rfind("extra-index-url", 0) == 0 && !index.explicit_only &&
               std::find(config.extra_index_urls.begin(), config.extra_index_urls.end(),
                         index.url) != config.extra_index_urls.end()) {
      inputs.push_back("extra-index-url:" + strip_credentials(index.url));
    } else {
      inputs.push_back(str_cat("index:", index.name, "=", strip_credentials(index.url),
                               index.explicit_only ? ",explicit" : "",
                               index.is_default ? ",default" : ""));
    }
  }
  if (config.index_best_match) inputs.push_back("index-strategy:unsafe-best-match");
}

}  // namespace

Result<ProjectInputs> project_inputs(const targets::ProjectConfig& config,
                                     const std::vector<targets::WorkspaceMember>& members,
                                     const FileSystem& file_system, bool complete_tags) {
  if (config.targets.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(config.path, ": no target to lock for: every `environments` marker "
                                           "of `[tool.uv]` was skipped; declare "
                                           "`[[tool.wvlock.target]]` (docs/targets.md)"));
  }
  ProjectInputs project;
  WV_ASSIGN_OR_RETURN(project.requirements, root_requirements(config));
  WV_ASSIGN_OR_RETURN(project.targets,
                      target_contexts(config, members, project.requirements, complete_tags));
  WV_TRY(add_member_requirements(members, project.requirements));
  for (const std::string& folder : config.find_links) project.inputs.push_back("find-links:" + folder);
  WV_TRY(add_source_tree_inputs(config, file_system, project));
  add_workspace_inputs(members, project.inputs);
  add_config_inputs(config, project.inputs);
  return project;
}

}  // namespace wv::lock
