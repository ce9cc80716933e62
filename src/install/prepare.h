// The sync's first step after the plan (docs/install.md, "Safety"): every wheel the plan
// installs, on disk and verified, before anything in the environment changes. Locked wheels
// come from the WheelStore (checked against the lock's sha256 and size); packages the lock says
// to build are built for the environment's interpreter through the SourceBuilder.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "install/plan.h"
#include "install/sync.h"
#include "install/wheel_store.h"

namespace wv::install {

/// The note every failure before the commit carries.
std::string unchanged_note(const std::string& root);

/// A wheel ready to stage: a locked wheel fetched and verified, or one built here.
struct PreparedWheel {
  const PlanItem* item = nullptr;
  std::string path;  ///< the wheel file
};

struct PreparedWheels {
  /// The locked wheels in plan order, then the built ones: the order they are staged in (when
  /// two install one path, the later wins).
  std::vector<PreparedWheel> wheels;
  /// Each built item's verified source archive (an sdist or archive entry's file).
  std::map<const PlanItem*, std::string> sources;

  /// The verified archive `item` was built from, "" for none (a directory or vcs entry).
  std::string archive_of(const PlanItem* item) const;
};

/// Fetches every file the plan installs (in one batch) and builds the packages it builds.
/// `root` is the environment's: builds run its interpreter, errors say it is unchanged.
Result<PreparedWheels> prepare(const Plan& plan, const SyncOptions& options, WheelStore& store,
                               const std::string& root);

}  // namespace wv::install
