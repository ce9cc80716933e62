// Staging (docs/install.md, "Safety"): every prepared wheel unpacked and verified into its own
// numbered folder of a staging folder inside the environment (a tree mirroring it), in
// parallel, and what they install merged: which wheel wins each destination, the archive
// member behind each file, and no file of one wheel where another puts a folder. Nothing
// outside the staging folder changes.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/plan.h"
#include "src/install/prepare.h"
#include "src/install/select.h"
#include "src/install/sync.h"
#include "src/install/wheel_link.h"
#include "src/install/wheel_unpack.h"
#include "lock/lockfile.h"

namespace wv::install {

/// `root/.wvlock-staging-PID`: emptied and made by create(), removed (quietly) when the object
/// goes. A file system failing by then (a killed process) leaves it to the next sync's repair.
class StagingFolder {
 public:
  StagingFolder(FileSystem& file_system, const std::string& root);
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  ~StagingFolder();
  Result<void> create();
  const std::string& name() const { return name_; }  ///< under the root
  const std::string& path() const { return path_; }

 private:
  FileSystem& file_system_;
  std::string name_;
  std::string path_;
};

/// What the staged wheels install, merged.
struct StagedFiles {
  std::string staging;              ///< the staging folder
  std::vector<std::string> wheels;  ///< each staged wheel's file name, by its number
  /// destination -> the number of the wheel that wins it: when two wheels install the same
  /// path the later one wins, as with a sequential install.
  std::map<std::string, std::size_t> source_of;
  /// (wheel, destination) -> its archive member ("" for the files wvlock writes itself).
  std::map<std::pair<std::size_t, std::string>, std::string> member_of;
  std::vector<std::string> placed;  ///< destinations, first-seen order
  LinkCounts links;                 ///< how the files got there

  /// "`member` of wheel `W`" (or "wheel `W`'s installed metadata") for a destination.
  std::string source(const std::string& rel) const;
  /// `N/rel`: the staged copy of a destination, relative to the staging folder (the journal's
  /// P entry).
  std::string staged_rel(const std::string& rel) const;
  /// The same, absolute.
  std::string staged_path(const std::string& rel) const;
};

/// What every wheel's unpacking depends on besides the wheel.
struct StageRequest {
  const std::string& root;  ///< the environment
  const lock::Lockfile& lockfile;
  const TargetChoice& selection;
  const SyncOptions& options;
  const InstallScheme& scheme;
  /// The identity each built package records (package name -> identity).
  const SourceIdentities& identities;
  FileSystem& file_system;
};

/// How one wheel gets into its staging folder (`options.staging`): linked from its cache entry
/// with `mode`, or unpacked and verified there; RECORD is written later (write_record), once
/// the byte code, if any, is known.
Result<LinkedWheel> stage_wheel(FileSystem& file_system, const PreparedWheel& wheel,
                                const UnpackOptions& options, LinkMode mode);

/// Stages every prepared wheel (wheel N into `staging/N`), checks each installs the
/// distribution its plan item names, and merges what they install.
Result<StagedFiles> stage(const PreparedWheels& prepared, const StageRequest& request,
                          const StagingFolder& staging);

}  // namespace wv::install
