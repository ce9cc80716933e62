// Workspaces (docs/user-guide.md, "Workspaces"): a root pyproject.toml whose
// `[tool.wvlock.workspace]` (or uv's `[tool.uv.workspace]`) names member folders by glob. One
// lock and one `.venv` at the root serve every member; members are editable directory sources
// of each other and of the root.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "lock/lockfile.h"
#include "src/cli/options.h"
#include "src/pkg/name.h"
#include "targets/project_file.h"
#include "targets/workspace_member.h"

namespace wv::cli {

using targets::WorkspaceMember;

struct Workspace {
  std::vector<WorkspaceMember> members;  ///< the root excluded, sorted by folder
  const WorkspaceMember* find(const pkg::PackageName& name) const;
};

/// Where a command started inside a workspace: its root, and the member whose folder it
/// started in ("" at the root or outside any member).
struct WorkspaceLocation {
  std::string root_dir;
  std::string member_dir;  ///< absolute; "" when the start folder is the root
};

/// The workspace `start` belongs to: `start` itself when its pyproject.toml declares one, else
/// the nearest folder above whose workspace lists `start` as a member (uv's discovery);
/// nullopt when none does.
Result<std::optional<WorkspaceLocation>> find_workspace(const FileSystem& file_system,
                                                        const std::string& start);

/// The `[project] name` of the member folder `dir`.
Result<pkg::PackageName> member_name_at(const FileSystem& file_system, const std::string& dir);

/// Expands the root's member globs (less `exclude`), reads each member's pyproject.toml and
/// checks the workspace: a member folder missing or without pyproject.toml, a glob that matches
/// nothing, a member with the root's name, two members of one name, and a `workspace = true`
/// source naming a non-member (in the root or a member) are kInvalidInput errors at
/// `file:line:column`.
Result<Workspace> load_workspace(const FileSystem& file_system, const targets::ProjectConfig& root);

/// `--package NAME` and `--all-packages` of tree and export: the names that are packages of
/// the workspace lock (its members and the root project), else the member the command started
/// in, select what `lockfile`'s targets root at (lock::select_members, with `extras` moved to
/// the members named); returns the names that are not (tree's subtree meaning).
Result<std::vector<pkg::PackageName>> view_workspace_packages(
    const GlobalOptions& options, lock::Lockfile& lockfile, std::vector<pkg::PackageName> names,
    bool all, std::vector<pkg::ExtraName>* extras);

}  // namespace wv::cli
