// What the commands share: the project file read once and its workspace found, turned into the
// lock layer's inputs (lock::project_inputs), and the package source and network stack wired
// together (the only place that knows both src/index and src/net).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/pep517/builder.h"
#include "src/cli/options.h"
#include "lock/catalog.h"
#include "lock/lockfile.h"
#include "lock/project_inputs.h"
#include "lock/project_requirements.h"
#include "lock/resolve.h"
#include "lock/target_context.h"
#include "src/pkg/source.h"
#include "targets/project_file.h"
#include "src/cli/workspace.h"

namespace wv::cli {

class NetworkStack;

/// What a loaded project is for: locking (every target's context complete), or checking a
/// lock's freshness and wiring builds (the input-hash and the sources; no tag lists).
enum class ProjectUse { kLock, kCheck };

struct LoadedProject {
  targets::ProjectConfig config;
  lock::ProjectRequirements requirements;
  std::vector<lock::TargetContext> targets;
  std::string lockfile_path;        ///< <project>/pylock.toml
  std::vector<std::string> inputs;  ///< index locations, for the input-hash
  /// Lockfile::input_files of a lock written now.
  std::map<std::string, std::string> input_files;
  /// kCheck: the targets have no tag lists, so this cannot lock.
  ProjectUse use = ProjectUse::kLock;
  /// The members of the workspace the project is the root of (none outside a workspace).
  Workspace workspace;
};

/// Reads `<project>/pyproject.toml` and prepares every declared target for `use`.
Result<LoadedProject> load_project(const GlobalOptions& options, FileSystem& file_system,
                                   ProjectUse use = ProjectUse::kLock);

/// The `note:` that tells a project which declares no target what it was locked for (this
/// host, or uv's `environments`) and how to declare targets; nothing for declared targets.
void note_default_targets(const targets::ProjectConfig& config);

/// The package source of a project: find-links folders first, then the indexes in uv's asking
/// order (targets::ProjectConfig::indexes, the default last; explicit ones only for pinned
/// packages), over a cached curl fetcher (offline: cache and local paths only).
class ProjectSource {
 public:
  /// `network`: a stack the command already has, used instead of a new one (it must outlive
  /// the source); nullptr makes the source's own.
  static Result<std::unique_ptr<ProjectSource>> open(const GlobalOptions& options,
                                                     const LoadedProject& project,
                                                     FileSystem& file_system,
                                                     NetworkStack* network = nullptr);
  virtual ~ProjectSource() = default;
  virtual pkg::PackageSource& source() = 0;
  /// A fresh lock-layer view of source() (its caches start empty), with every named index
  /// registered for pinning.
  virtual std::unique_ptr<lock::Catalog> make_catalog() = 0;
  /// Reads sdists and source trees and builds wheels, over this source's indexes and cache.
  virtual build::Builder& builder() = 0;
  /// Git sources keep the commits `previous` locked for them, except the packages upgraded.
  virtual void keep_locked_commits(const lock::Lockfile& previous, bool upgrade_all,
                                   const std::set<pkg::PackageName>& upgrade_packages) = 0;
  /// Where a listed file goes in the lockfile: URLs as `url`, local files as a `path`
  /// relative to the project folder.
  virtual lock::LockedFile locate(const pkg::Distribution& file) const = 0;
  /// A source location as the lockfile's `index`: URLs as they are, folders relative to the
  /// project folder.
  virtual std::string describe_index(const std::string& location) const = 0;
};

/// The download cache folder for `options` (explicit, $XDG_CACHE_HOME/wvlock or
/// ~/.cache/wvlock).
std::string cache_directory(const GlobalOptions& options);

/// Whether `lockfile` was written from the project as it is now (its input-hash matches).
bool lock_is_fresh(const LoadedProject& project, const lock::Lockfile& lockfile);

/// What changed since `lockfile` was written, for a stale lock's message: the path source
/// files whose digest differs (`../lib/pyproject.toml`), else pyproject.toml.
std::string stale_reason(const LoadedProject& project, const lock::Lockfile& lockfile);

/// A stale lockfile at `path` (`reason`: stale_reason()), with what to run (`remedy`, after
/// "run `wvlock lock`").
Error stale_lockfile(std::string_view path, std::string_view reason, std::string_view remedy = "");

/// Reads `<project>/pylock.toml`; kNotFound when there is none.
Result<lock::Lockfile> read_project_lockfile(const LoadedProject& project,
                                             const FileSystem& file_system);

}  // namespace wv::cli
