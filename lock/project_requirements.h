// What resolution reads from the project: its requirements, extras, dependency groups and
// the pre-release policy — parsed, normalised, and fingerprinted for the lockfile's input-hash.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/requirement.h"
#include "targets/prerelease.h"
#include "targets/project_file.h"

namespace wv::lock {

using targets::PrereleaseMode;

struct ProjectRequirements {
  std::string name;
  std::string requires_python;
  std::vector<pkg::Requirement> dependencies;
  /// `[project.optional-dependencies]`: extra (PEP 685 normalised) -> requirements.
  std::map<pkg::ExtraName, std::vector<pkg::Requirement>> optional_dependencies;
  /// `[dependency-groups]` (PEP 735, normalised names) with `include-group` already expanded.
  std::map<pkg::ExtraName, std::vector<pkg::Requirement>> dependency_groups;
  /// The groups an install takes when none is asked for (PEP 751 `default-groups`; uv's
  /// `default-groups`, whose default is `dev` when declared), normalised and sorted.
  std::vector<pkg::ExtraName> default_groups;
  PrereleaseMode prerelease = PrereleaseMode::kIfNecessaryOrExplicit;
  /// Set when the project is itself a package (a `[build-system]`, or `package = true`): the
  /// lock gets its entry, a directory at "." that sync installs editable, with this version
  /// ("" when pyproject.toml does not state it or declares it dynamic: the backend's to tell).
  std::optional<std::string> package_version;
  /// The workspace's members other than the root (docs/user-guide.md, "Workspaces"): each is
  /// resolved for every target like a root requirement, but is not one of the root's roots;
  /// its package entry is marked LockedPackage::workspace_member. Each names its folder
  /// through the targets' direct sources.
  std::vector<pkg::Requirement> workspace_members;
  /// `constraint-dependencies` (uv's): each narrows its package's versions wherever a
  /// requirement names that package, and never adds it. A constraint's marker is evaluated in
  /// each target.
  std::vector<pkg::Requirement> constraints;
  /// `override-dependencies` (uv's): the overrides of a package replace every requirement on it
  /// (the project's own and every dependency's), where that requirement applies; several
  /// overrides of one package are told apart by their markers.
  std::vector<pkg::Requirement> overrides;
};

/// Parses requirement strings as pyproject.toml lists them; errors name `where` and the item.
Result<std::vector<pkg::Requirement>> parse_requirements(const std::vector<std::string>& items,
                                                         std::string_view where);

/// Expands PEP 735 groups as the project declares them: each entry a requirement string or an
/// `{include-group = "name"}`. Cycles and unknown groups are errors.
Result<std::map<pkg::ExtraName, std::vector<pkg::Requirement>>> expand_dependency_groups(
    const std::map<std::string, std::vector<targets::DependencyGroupEntry>>& groups);

/// The requirements of the project extra or group `name` in `declared` (optional_dependencies
/// or dependency_groups); nullptr when it declares none of that name. `name` is a solver
/// node's text, which came from one of the keys.
const std::vector<pkg::Requirement>* find_declared(
    const std::map<pkg::ExtraName, std::vector<pkg::Requirement>>& declared, std::string_view name);

}  // namespace wv::lock
