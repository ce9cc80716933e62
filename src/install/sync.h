// `wvlock sync` (DESIGN.md §1, §6): lockfile + live host profile -> target selection ->
// install plan -> the environment. All or nothing, in steps: every wheel is fetched (verified
// against the lock) or built (prepare.h), unpacked and verified into a staging folder inside
// the environment (stage.h), then moved in under a journal (commit.h, journal.h); an error
// midway restores the environment, and a journal left by a killed sync is rolled back by the
// next one (which says so). One sync per environment at a time. A new environment is kept only
// when its sync succeeds (new_environment.h).
// Refused before anything changes: a file placed where a folder is (unless every file in it
// leaves with this sync), a folder where a file is, a write through a symlink, replacing a file
// that no distribution this sync upgrades or removes records, and a lock entry, wheel file
// name, .dist-info folder or METADATA disagreeing on a distribution's name or version.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/environment.h"
#include "src/install/new_environment.h"
#include "src/install/plan.h"
#include "src/install/python_request.h"
#include "src/install/select.h"
#include "src/install/source_builder.h"
#include "src/install/wheel_store.h"
#include "src/install/wheel_link.h"
#include "src/install/wheel_unpack.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {

struct SyncOptions {
  /// The environment (a venv folder); created with `python -m venv --without-pip` if absent.
  std::string venv = ".venv";
  /// The interpreter that creates the venv.
  std::string python = "python3";
  /// `--python`, already found as `python`: an existing environment that does not meet it is
  /// recreated (new_environment.h); without it an existing environment is used as it is.
  std::optional<PythonRequest> python_request;
  SelectOptions select;
  /// Plan only: nothing is fetched or written (not even the venv).
  bool dry_run = false;
  /// Reinstall every package of the closure even when the installed build matches.
  bool reinstall = false;
  /// `--inexact`: keep installed distributions the lock does not name.
  bool inexact = false;
  UnpackLimits limits;
  /// The unpacked-wheel cache (install/unpacked_cache.h), "" for none: each wheel is then
  /// unpacked into the staging folder.
  std::string cache_dir;
  /// How files come from the cache into the environment (`--link-mode`).
  LinkMode link_mode = LinkMode::kAuto;
  /// `--compile-bytecode`: byte-compile the installed modules with the environment's
  /// interpreter, recorded in RECORD.
  bool compile_bytecode = false;
  /// Builds the packages the lock says to build (sdists, directories, git, archives); nullptr:
  /// such a package is an error naming it.
  SourceBuilder* builder = nullptr;
  /// `--no-build`: a package that would have to be built is refused, named, before anything
  /// changes.
  bool no_build = false;
  /// `--no-install-project`: the project's own entry is not installed.
  bool install_project = true;
  /// `--no-editable`: directory entries (the project too) install as regular wheels.
  bool editable = true;
  /// The lockfile's folder: directory entries' paths are relative to it.
  std::string lock_dir = ".";
  /// Every access the sync makes to the environment's files (the journal, the staging folder,
  /// the checks, the moves, the flushes); nullptr: the real file system.
  FileSystem* file_system = nullptr;
};

struct SyncReport {
  TargetChoice selection;
  Plan plan;
  bool created_environment = false;
  bool recreated_environment = false;
  bool dry_run = false;
  /// The host facts selection ran with (the live profile with the interpreter's Python), and
  /// every target's verdict, once selection ran: also when it refused (then `refused`).
  std::optional<targets::HostProfile> host;
  std::vector<TargetVerdict> verdicts;
  bool refused = false;
  /// Wheels linked from the unpacked cache as they were, and extracted into it by this sync.
  std::size_t cache_hits = 0;
  std::size_t extracted = 0;
  /// How the installed files got into the environment.
  LinkCounts links;
  /// Things the user should know: a repaired interrupted sync, packages kept from another
  /// installer.
  std::vector<std::string> notes;
  /// The environment's install scheme, once its interpreter was read (for the no-op state
  /// record, sync_state.h).
  std::optional<InstallScheme> scheme;
  /// True when the environment was left as it was: every package kept, nothing removed,
  /// nothing created (what a state record may be written after).
  bool changed_nothing() const;
};

/// The whole sync. `live` is the detected host profile (its Python facts are replaced by the
/// environment's interpreter's).
Result<SyncReport> sync(const SyncOptions& options, const lock::Lockfile& lockfile,
                        const targets::HostProfile& live, WheelStore& store);

/// The same, recording into `report` as it goes, so that a failed sync still says what it had
/// decided: the host facts and verdicts of a refused selection, the plan of a failed install.
Result<void> sync_into(SyncReport& report, const SyncOptions& options,
                       const lock::Lockfile& lockfile, const targets::HostProfile& live,
                       WheelStore& store);

/// `wvlock sync --json` (docs/json.md): the plan and outcome, or, for a refused selection,
/// every target's verdict. `error` is the failure's message ("" for none).
std::string render_sync_json(const SyncReport& report, const lock::Lockfile& lockfile,
                             const std::string& error);

}  // namespace wv::install
