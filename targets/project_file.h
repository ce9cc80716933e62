// The project file (DESIGN.md §2): what wvlock reads from pyproject.toml — `[project]` name,
// requires-python, dependencies and optional-dependencies, `[dependency-groups]` (PEP 735) as
// raw strings for the lock layer, and `[tool.wvlock]` with its `[[tool.wvlock.target]]`
// tables. toml++ is used only in project_file.cc. Errors name the file, line, column and key;
// unknown keys in `[tool.wvlock]` and in a target are errors. Cheap to include.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_system.h"
#include "base/result.h"
#include "targets/target.h"

namespace wv::targets {

/// One entry of a PEP 735 dependency group: a requirement string or `{include-group = "x"}`.
struct DependencyGroupEntry {
  std::string requirement;    ///< "" for an include
  std::string include_group;  ///< "" for a requirement
  bool operator==(const DependencyGroupEntry&) const = default;
};

/// Everything wvlock takes from pyproject.toml. Paths are as written; resolve them with
/// resolve_project_path() (they are relative to the folder of pyproject.toml).
struct ProjectConfig {
  std::string path;         ///< the pyproject.toml read (for messages)
  std::string project_dir;  ///< its folder

  // [project]
  std::optional<std::string> name;
  std::optional<std::string> requires_python;
  std::vector<std::string> dependencies;
  std::map<std::string, std::vector<std::string>> optional_dependencies;
  // [dependency-groups]
  std::map<std::string, std::vector<DependencyGroupEntry>> dependency_groups;

  // [tool.wvlock]
  std::optional<std::string> python;  ///< default Python of every target, `3.12`
  std::optional<std::string> index_url;
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  std::optional<std::string> prerelease;  ///< as written; the lock layer interprets it
  /// Optional variant providers enabled for every target (`enable-providers = ["debug"]`).
  std::vector<std::string> enabled_providers;
  /// The declared targets, in file order.
  std::vector<Target> targets;

  /// The target named `name`, or nullptr.
  const Target* find_target(std::string_view name) const;
};

/// The values `prerelease` accepts (uv's names).
inline constexpr std::string_view kPrereleaseModes[] = {
    "disallow", "allow", "if-necessary", "explicit", "if-necessary-or-explicit"};

/// Parses pyproject.toml text. `path` names the file in messages and gives project_dir.
Result<ProjectConfig> parse_project_file(std::string_view text, std::string_view path);

/// Reads and parses `path` through `file_system`.
Result<ProjectConfig> read_project_file(const FileSystem& file_system, const std::string& path);

/// `value` resolved against the project folder: URLs (`scheme://`) and absolute paths are
/// returned unchanged.
std::string resolve_project_path(const ProjectConfig& config, std::string_view value);

}  // namespace wv::targets
