// A wheelhouse (docs/guides/clusters.md): a flat folder holding the files some targets
// install, each under its own file name, with `SHA256SUMS` listing them in sha256sum's format
// (so `sha256sum -c SHA256SUMS` checks a copy). `wvlock fetch --into DIR` writes one; `wvlock
// sync --wheelhouse DIR` takes each locked file from it by name and sha256 before the download
// cache and the network, so a node with no network and an empty cache syncs from it. Nothing
// in it is trusted: a file serves only when its sha256 is the lock's, and the folder may be
// copied anywhere (nothing in it names its own path).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/wheel_store.h"

namespace wv::install {

inline constexpr std::string_view kWheelhouseManifest = "SHA256SUMS";

/// Whether `name` can be a file of a flat folder: one path component, not hidden, no control
/// character (a hostile lock's `../x` never leaves the folder).
bool is_flat_file_name(std::string_view name);

/// `dir` must be a folder (kInvalidInput naming it otherwise): what `--wheelhouse` checks.
Result<void> check_wheelhouse(const std::string& dir);

/// Serves locked files from a wheelhouse; a file it lacks, or holds with another sha256 (a
/// wheelhouse of another lock), goes to `fallback` (the download cache and network).
class WheelhouseStore final : public WheelStore {
 public:
  WheelhouseStore(std::string dir, WheelStore* fallback)
      : dir_(std::move(dir)), fallback_(fallback) {}
  Result<std::string> get(const lock::LockedFile& file) override;
  std::vector<Result<std::string>> get_all(const std::vector<const lock::LockedFile*>& files) override;
  LocatedFile locate(const lock::LockedFile& file) override;

 private:
  /// The path of `file` in the wheelhouse when it is there with the locked sha256, else "".
  std::string find(const lock::LockedFile& file) const;

  std::string dir_;
  WheelStore* fallback_;
};

/// Puts the verified file at `source` into the wheelhouse `dir` as `file.name` and returns
/// its path: kept when the file there has the locked sha256 already, else cloned where the
/// file system can or copied (never hard-linked: the folder is meant to be carried away),
/// through a temporary name and a rename, so a reader never sees half a file.
Result<std::string> add_to_wheelhouse(FileSystem& file_system, const std::string& dir,
                                      const std::string& source, const lock::LockedFile& file);

/// Writes `dir/SHA256SUMS` (atomically): `files` (name, sha256) and the lines of the one there
/// whose file is still present and not named again, sorted by name.
Result<void> write_wheelhouse_manifest(FileSystem& file_system, const std::string& dir,
                                       const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace wv::install
