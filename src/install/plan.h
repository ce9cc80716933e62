// The install plan (docs/install.md, "The plan"): what sync does to each distribution of the
// selected closure and to every other installed one, and how it is shown — text for people,
// JSON for tools (docs/json.md, `wvlock sync --json`). Pure: no I/O.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/json_writer.h"
#include "src/install/environment.h"
#include "src/install/select.h"
#include "lock/lockfile.h"
#include "src/pkg/name.h"

namespace wv::install {

/// kUpgrade/kDowngrade: another version is installed (compared as PEP 440 versions; two that
/// cannot be compared count as an upgrade); kReinstall: the same version, but another build
/// (wvlock recorded another wheel file) or `--reinstall`.
enum class PlanAction { kInstall, kUpgrade, kDowngrade, kReinstall, kRemove, kKeep };

/// `install`, `upgrade`, `downgrade`, `reinstall`, `remove`, `keep`.
std::string_view to_string(PlanAction action);

/// The action writes the distribution's files (its wheel is fetched, staged and moved in).
bool installs_files(PlanAction action);
/// The action takes the installed copy's files away.
bool removes_files(PlanAction action);

struct PlanItem {
  PlanAction action = PlanAction::kKeep;
  /// The lock's package, or the installed distribution removed or kept; empty only for an
  /// installed distribution with no valid name (InstalledDistribution::name).
  pkg::PackageName name;
  /// That distribution's folder name, which shows it in place of a name.
  std::string folder_name;
  std::string_view shown_name() const {
    return name.empty() ? std::string_view(folder_name) : std::string_view(name.str());
  }
  std::string version;      ///< the version after sync ("" for kRemove)
  std::string old_version;  ///< installed version ("" for kInstall)
  std::string wheel;        ///< the wheel file to install ("" for kRemove/kKeep)
  const lock::LockedFile* file = nullptr;
  /// Built from source at sync (file is nullptr): the package entry, and what the installed
  /// copy records of its source (SourceIdentity) so that a re-sync keeps it while it holds.
  const lock::LockedPackage* build = nullptr;
  bool download = false;  ///< the file comes from a url (not a local path)
  /// kKeep of a distribution the lock does not name, kept because of `--inexact`.
  bool unlisted = false;
  /// The file's local path when it lies outside the lockfile's folder (an absolute `path`,
  /// which PEP 751 allows): named in the plan so that nobody installs it unawares.
  std::string outside_path;
};

struct Plan {
  std::string target;
  std::string target_reason;  ///< the selected target's verdict (`lock-time choices fit unchanged`)
  /// Packages of the target that get another kept wheel than the lock's first choice.
  std::vector<WheelChange> wheel_changes;
  std::string environment;  ///< the venv's absolute path
  /// The environment's interpreter.
  std::string python_version;
  std::string python_executable;
  /// `created`, `recreated`, or "" for an existing environment kept; and for `recreated`, why.
  std::string environment_change;
  std::string environment_reason;
  std::vector<PlanItem> items;  ///< sorted by name
  int count(PlanAction action) const;
  /// kKeep items of distributions the lock does not name (`--inexact`).
  int count_unlisted() const;
};

/// What an installed copy of a built package records in place of a wheel name and sha256:
/// "sdist:NAME"/"archive:NAME" with the file's sha256, "git:URL" with the commit, "directory:PATH"
/// with a digest of the files that define its metadata (pyproject.toml, setup.cfg, setup.py),
/// and whether it was built editable. A re-sync keeps an installed copy whose record matches.
struct SourceIdentity {
  std::string name;
  std::string digest;
};

struct PlanOptions {
  /// Reinstall every package of the closure even when the installed build matches.
  bool reinstall = false;
  /// `--inexact`: distributions the lock does not name are kept, not removed.
  bool inexact = false;
};

/// The identity of each of the selection's packages that is built from source.
using SourceIdentities = std::map<pkg::PackageName, SourceIdentity>;

/// Plans from a selection and what is installed.
Plan make_plan(const TargetChoice& selection, const std::vector<InstalledDistribution>& installed,
               const PlanOptions& options, const SourceIdentities& identities = {});

/// `+ name version (wheel, download)`, `~ name old -> new (upgrade, wheel)`, `- name old`,
/// `= name version (not in the lock, kept: --inexact)`, then one line counting packages per
/// action; `verbose` also lists kept packages.
/// Sets `outside_path` of every item whose file names an absolute local path outside `lock_dir`.
void name_outside_paths(Plan& plan, const std::string& lock_dir);

std::string render_plan(const Plan& plan, bool dry_run, bool verbose = false);

/// The plan's part of `wvlock sync --json` (docs/json.md): `"target"`, `"venv"`, `"python"`,
/// `"packages"` as keys of the object being written.
void write_plan_json(JsonWriter& json, const Plan& plan);

}  // namespace wv::install
