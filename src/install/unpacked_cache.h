// The unpacked-wheel cache: each wheel extracted once per machine (install/wheel_extract.h),
// keyed by the sha256 the lock names, so a sync into a fresh environment links files instead of
// inflating the wheel again (DESIGN.md §6; docs/install.md "The unpacked-wheel cache").
//
// Layout under `<cache>/unpacked-v1/`: `<sha[0:2]>/<sha>/manifest` (what the wheel holds, each
// file's RECORD hash, size, and the size and mtime it had when extracted) and `.../files/`
// (the archive's members as it lays them out). An entry is built in `.tmp/` and renamed into
// place in one step, so a reader sees a whole entry or none; two processes adding one wheel
// both extract, the first rename wins and the other uses it. On every use each file's size and
// mtime are compared with the manifest: a file written through a hard link from an environment
// changes both, and the entry is then discarded and extracted again. `verify()` re-hashes.
// A shared lock (`.lock`) is held while a sync reads entries; prune and clean take it
// exclusively, so they never remove an entry a sync is linking from. Whoever can write in the
// cache folder could swap a folder or file of it for a symlink: each one is checked to be no
// symlink and on the cache folder's file system before it is written, linked from or removed
// through; an entry that is not is damaged, a symlink is unlinked, never followed
// (docs/hardening.md, "Round three").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/environment.h"
#include "src/install/wheel_extract.h"
#include "src/pkg/name.h"

namespace wv::install {

/// The folder of the cache inside the wvlock cache folder.
inline constexpr std::string_view kUnpackedFolder = "unpacked-v1";

/// One usable entry.
struct CacheEntry {
  std::string sha256;
  std::string wheel;  ///< the wheel's file name
  std::string tree;   ///< the extracted files' root
  ExtractedWheel contents;
};

/// An entry as the cache commands see it.
struct CacheEntryInfo {
  std::string sha256;
  std::string wheel;  ///< "" when the manifest cannot be read
  std::string folder;
  std::uint64_t bytes = 0;      ///< the files' sizes, summed
  std::int64_t last_used_ns = 0;  ///< when a sync last used it (0: unknown)
};

/// What a cache command removed or found.
struct CacheSweep {
  struct Removed {
    CacheEntryInfo entry;
    std::string reason;  ///< "damaged: ...", "unused for N days", "asked", "leftover"
  };
  std::vector<Removed> removed;
  std::size_t checked = 0;  ///< entries looked at
  std::uint64_t bytes_freed = 0;
};

/// flock on the cache's `.lock`: shared for syncs, exclusive for prune and clean.
class CacheLock : public FileLock {
 public:
  /// Waits for the lock (saying so once on stderr when it has to wait).
  static Result<CacheLock> acquire(const std::string& cache_root, bool exclusive);
  /// The shared lock of a cache this user cannot write (another user's, read-only storage):
  /// `.lock` opened read-only (flock needs no write access), never created; kNotFound when the
  /// cache has no `unpacked-v1/.lock` (then it has no entries either).
  static Result<CacheLock> acquire_read_only(const std::string& cache_root);
  using FileLock::FileLock;
};

/// Whether this process may write the wvlock cache folder `cache_dir`: the nearest of its
/// `unpacked-v1`, itself and their parents that exists decides (write access for the
/// effective user; a read-only mount is not writable). A cache that another user filled on
/// shared storage is read here without any write (UnpackedCache's `read_only`).
bool cache_writable(const std::string& cache_dir);

class UnpackedCache {
 public:
  /// `cache_dir`: the wvlock cache folder; the entries live in its `unpacked-v1/`.
  /// `read_only`: find() only reads (a damaged entry is skipped, not removed; no `used`
  /// marks; nothing is created) and add() refuses.
  UnpackedCache(FileSystem& file_system, const std::string& cache_dir, bool read_only = false);
  const std::string& root() const { return root_; }
  bool read_only() const { return read_only_; }

  /// The entry for `sha256` when it is present and whole (every file with its recorded size
  /// and mtime); a damaged one is removed with a warning, and nullopt returned.
  Result<std::optional<CacheEntry>> find(std::string_view sha256);
  /// Extracts the wheel at `wheel_path` (already verified against `sha256`) into a new entry.
  /// `replace` (`--reinstall`): an entry already there is replaced by the new extraction.
  Result<CacheEntry> add(std::string_view sha256, const std::string& wheel_path,
                         const ExtractOptions& options, bool replace);

  /// Every entry, sorted by sha256.
  Result<std::vector<CacheEntryInfo>> list() const;
  /// Re-hashes every file of every entry against its RECORD hash; bad entries are removed.
  Result<CacheSweep> verify();
  /// Removes leftovers of interrupted writes, damaged entries (size or mtime changed) and
  /// entries no sync used for `max_age_days`.
  Result<CacheSweep> prune(std::int64_t max_age_days);
  /// Removes every entry, or those of the named distributions (normalised names).
  Result<CacheSweep> clean(const std::vector<pkg::PackageName>& names);

 private:
  // `device`: the cache folder's file system; every folder and file used must be on it and
  // be no symlink (check_own in unpacked_cache.cc).
  std::string entry_folder(std::string_view sha256) const;
  Result<void> discard(const std::string& folder, std::uint64_t device);
  Result<void> drop(const std::string& folder, std::uint64_t device, std::string_view damage);
  Result<void> publish(const std::string& temporary, const std::string& folder,
                       std::uint64_t device);
  Result<CacheEntry> read_entry(std::string_view sha256, const std::string& folder,
                                std::uint64_t device, bool check_files, std::string* damage) const;
  void mark_used(const std::string& folder, std::uint64_t device);

  FileSystem& file_system_;
  std::string root_;
  bool read_only_ = false;
};

}  // namespace wv::install
