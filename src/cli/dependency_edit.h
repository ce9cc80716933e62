// What `wvlock add` and `wvlock remove` share: the dependency array their flags select, the
// pyproject.toml they edit (the root's, or a workspace member's) and the root's pylock.toml as
// they were, and the lock and sync that follow an edit. A lock that fails puts both files back
// byte for byte, as uv does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/options.h"
#include "src/pkg/name.h"
#include "src/pkg/pyproject_edit.h"

namespace wv::cli {

/// The flags of an edit: `--group NAME`, `--dev` (= `--group dev`), `--optional EXTRA`,
/// `--no-sync` (lock only), `--frozen` (edit only), `--package NAME` (a workspace member).
struct EditFlags {
  pkg::DependencyList list;
  bool no_sync = false;
  bool frozen = false;
  std::optional<pkg::PackageName> package;
};

/// Takes the flags above from `arguments`; a usage error for two lists at once.
Result<EditFlags> extract_edit_flags(Arguments& arguments);

/// The project an edit changes (uv's rule): the workspace member `--package` names, else the
/// member the command started in (GlobalOptions::workspace_member_dir), else the project at
/// `project_dir`; the lock is always the one at `project_dir` (the workspace root).
struct EditTarget {
  std::string pyproject_dir;  ///< the folder whose pyproject.toml is edited
  std::string member_dir;     ///< "" when that is the root; else the member's folder
  std::vector<pkg::PackageName> members;  ///< every member of the workspace (none outside one)
  bool is_member(const pkg::PackageName& name) const;
};

/// Finds the project to edit; `--package` naming no member is kInvalidInput naming the members.
Result<EditTarget> find_edit_target(const GlobalOptions& options, const FileSystem& file_system,
                                    const std::optional<pkg::PackageName>& package);

/// `options` for the lock and sync after an edit of `target`: sync works on the edited member.
GlobalOptions options_for(const GlobalOptions& options, const EditTarget& target);

/// The sources table the project keeps (`uv` when it writes `[tool.uv.sources]`, else
/// `wvlock`), where a new entry goes.
Result<std::string> sources_tool(std::string_view text, std::string_view path);

/// pyproject.toml and pylock.toml as they were before the edit.
struct ProjectFiles {
  std::string pyproject_path;
  std::string pyproject;
  std::string lock_path;
  std::optional<std::string> lock;  ///< nullopt when there was none
};

/// Reads `target`'s pyproject.toml and the pylock.toml at `options.project_dir`; kNotFound (with
/// `wvlock init` as the remedy) without a pyproject.toml.
Result<ProjectFiles> read_project_files(const GlobalOptions& options, const EditTarget& target,
                                        FileSystem& file_system);

/// Writes `text` as pyproject.toml.
Result<void> write_pyproject(FileSystem& file_system, const ProjectFiles& files,
                             std::string_view text);

/// Puts both files back as they were (a lockfile that did not exist is removed).
void restore_project_files(FileSystem& file_system, const ProjectFiles& files);

/// `wvlock lock`, then `wvlock sync` (with `sync_arguments`) unless `no_sync`: the exit code.
/// A lock that fails restores `files` and returns lock's code.
int lock_and_sync(const GlobalOptions& options, FileSystem& file_system, const ProjectFiles& files,
                  bool no_sync, std::vector<std::string> sync_arguments = {});

/// `wvlock lock` alone; restores `files` when it fails.
int lock_or_restore(const GlobalOptions& options, FileSystem& file_system,
                    const ProjectFiles& files);

/// `wvlock sync` with `sync_arguments`.
int sync_project(const GlobalOptions& options, std::vector<std::string> sync_arguments);

}  // namespace wv::cli
