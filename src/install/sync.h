// `wvlock sync` (DESIGN.md §1, §6): lockfile + live host profile -> target selection ->
// install plan -> the environment. All or nothing: every wheel is fetched (verified against
// the lock), unpacked and verified into a staging folder inside the environment, then moved in
// under a journal; an error midway restores the environment, and a journal left by a killed
// sync is rolled back by the next one (which says so). One sync per environment at a time.
// Refused before anything changes: a file placed where a folder is (unless every file in it
// leaves with this sync), a folder where a file is, a write through a symlink, replacing a file
// that no distribution this sync upgrades or removes records, and a lock entry, wheel file
// name, .dist-info folder or METADATA disagreeing on a distribution's name or version.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "install/environment.h"
#include "install/select.h"
#include "install/source_builder.h"
#include "install/wheel_store.h"
#include "install/wheel_unpack.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {

struct SyncOptions {
  /// The environment (a venv folder); created with `python -m venv --without-pip` if absent.
  std::string venv = ".venv";
  /// The interpreter that creates the venv.
  std::string python = "python3";
  SelectOptions select;
  /// Plan only: nothing is fetched or written (not even the venv).
  bool dry_run = false;
  /// Reinstall every package of the closure even when the installed build matches.
  bool reinstall = false;
  UnpackLimits limits;
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
  /// Test hook: fail after this many file moves of the commit, as a crash would (-1: never).
  int fail_after_moves = -1;
  /// Test hook: with fail_after_moves, leave the journal instead of rolling back at once
  /// (what a killed process leaves behind).
  bool leave_journal_on_failure = false;
};

enum class PlanAction { kInstall, kUpgrade, kRemove, kKeep };

struct PlanItem {
  PlanAction action = PlanAction::kKeep;
  std::string name;
  std::string version;      ///< the version after sync ("" for kRemove)
  std::string old_version;  ///< installed version ("" for kInstall)
  std::string wheel;        ///< the wheel file to install ("" for kRemove/kKeep)
  const lock::LockedFile* file = nullptr;
  /// Built from source at sync (file is nullptr): the package entry, and what the installed
  /// copy records of its source (SourceIdentity) so that a re-sync keeps it while it holds.
  const lock::LockedPackage* build = nullptr;
  bool download = false;  ///< the file comes from a url (not a local path)
};

struct Plan {
  std::string target;
  std::string environment;  ///< the venv's absolute path
  std::vector<PlanItem> items;  ///< sorted by name
  int count(PlanAction action) const;
};

struct SyncReport {
  Selection selection;
  Plan plan;
  bool created_environment = false;
  bool dry_run = false;
  /// Things the user should know: a repaired interrupted sync, packages kept from another
  /// installer.
  std::vector<std::string> notes;
};

/// What an installed copy of a built package records in place of a wheel name and sha256:
/// "sdist:NAME"/"archive:NAME" with the file's sha256, "git:URL" with the commit, "directory:PATH"
/// with a digest of the files that define its metadata (pyproject.toml, setup.cfg, setup.py),
/// and whether it was built editable. A re-sync keeps an installed copy whose record matches.
struct SourceIdentity {
  std::string name;
  std::string digest;
};

/// Plans from a selection and what is installed. `identities` (package name -> identity)
/// covers the selection's packages that are built from source.
Plan make_plan(const Selection& selection, const std::vector<InstalledDistribution>& installed,
               bool reinstall, const std::map<std::string, SourceIdentity>& identities = {});

/// The whole sync. `live` is the detected host profile (its Python facts are replaced by the
/// environment's interpreter's).
Result<SyncReport> sync(const SyncOptions& options, const lock::Lockfile& lockfile,
                        const targets::HostProfile& live, WheelStore& store);

/// Rolls back an interrupted sync's journal, if any. Returns a note saying what was repaired
/// ("" when there was no journal). Called by sync() under the sync lock.
Result<std::string> repair_environment(const std::string& root);

/// `+ name version (wheel, download)`, `~ name old -> new`, `- name old`, `= name version`,
/// then a summary line; `verbose` also lists kept packages.
std::string render_plan(const Plan& plan, bool dry_run, bool verbose = false);

}  // namespace wv::install
