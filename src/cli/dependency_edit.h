// What `wvlock add` and `wvlock remove` share: the dependency array their flags select, the
// project's pyproject.toml and pylock.toml as they were, and the lock and sync that follow an
// edit. A lock that fails puts both files back byte for byte, as uv does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/options.h"
#include "src/pkg/pyproject_edit.h"

namespace wv::cli {

/// The flags of an edit: `--group NAME`, `--dev` (= `--group dev`), `--optional EXTRA`,
/// `--no-sync` (lock only), `--frozen` (edit only).
struct EditFlags {
  pkg::DependencyList list;
  bool no_sync = false;
  bool frozen = false;
};

/// Takes the flags above from `arguments`; a usage error for two lists at once.
Result<EditFlags> extract_edit_flags(Arguments& arguments);

/// pyproject.toml and pylock.toml as they were before the edit.
struct ProjectFiles {
  std::string pyproject_path;
  std::string pyproject;
  std::string lock_path;
  std::optional<std::string> lock;  ///< nullopt when there was none
};

/// Reads both; kNotFound (with `wvlock init` as the remedy) without a pyproject.toml.
Result<ProjectFiles> read_project_files(const GlobalOptions& options, FileSystem& file_system);

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
