// The sync's first step after the plan (docs/install.md, "Safety"): every wheel the plan
// installs, on disk and verified, before anything in the environment changes. Locked wheels
// come from the WheelStore (checked against the lock's sha256 and size); packages the lock says
// to build are built for the environment's interpreter through the SourceBuilder.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/install/unpacked_cache.h"
#include "src/install/plan.h"
#include "src/install/sync.h"
#include "src/install/wheel_store.h"
#include "src/install/write_back.h"

namespace wv::install {

/// The note every failure before the commit carries.
std::string unchanged_note(const std::string& root);

/// A wheel ready to stage: a locked wheel in the unpacked cache, or fetched and verified, or
/// one built here.
struct PreparedWheel {
  const PlanItem* item = nullptr;
  /// The wheel file ("" for a url wheel served from the cache, which was not fetched).
  std::string path;
  /// Its unpacked-cache entry, to link from; nullopt: unpack `path` privately (a built wheel,
  /// or a sync without a cache folder).
  std::optional<CacheEntry> entry;
  /// A local wheel not yet checked against the lock: prepare() checks it as it extracts it
  /// into the cache, and returns none unchecked.
  bool unverified = false;
};

struct PreparedWheels {
  /// The locked wheels in plan order, then the built ones: the order they are staged in (when
  /// two install one path, the later wins).
  std::vector<PreparedWheel> wheels;
  /// Each built item's verified source archive (an sdist or archive entry's file).
  std::map<const PlanItem*, std::string> sources;
  /// Held while the staged files are linked from the cache (prune and clean wait for it).
  CacheLock cache_lock;
  std::size_t cache_hits = 0;  ///< wheels linked from entries already there
  std::size_t extracted = 0;   ///< wheels extracted into the cache by this sync
  /// Started once wheels were extracted into the cache (install/write_back.h); waited for
  /// when the prepared wheels go, after the commit.
  std::unique_ptr<BackgroundFlush> flush;

  /// The verified archive `item` was built from, "" for none (a directory or vcs entry).
  std::string archive_of(const PlanItem* item) const;
};

/// Finds each locked wheel in the unpacked cache (unless `--reinstall`), fetches the others and
/// every source archive (in one batch), extracts the fetched wheels into the cache, and builds
/// the packages it builds.
/// `root` is the environment's: builds run its interpreter, errors say it is unchanged.
Result<PreparedWheels> prepare(const Plan& plan, const SyncOptions& options, WheelStore& store,
                               const std::string& root, FileSystem& file_system);

}  // namespace wv::install
