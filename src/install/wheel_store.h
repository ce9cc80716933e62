// Where sync gets the wheel files the lock names (DESIGN.md §6 "Safe"): a WheelStore returns
// the local path of a file whose sha256 and size were checked against the lock. The CLI
// implements it over src/net's verified cache (install/ never includes net/); local `path`
// and file:// wheels are served by LocalWheelStore, which checks them itself.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "lock/lockfile.h"

namespace wv::install {

/// How a file the lock names stands on this machine (`LocatedFile`).
enum class FileState {
  kVerified,       ///< present, with the locked size and sha256
  kMissing,        ///< a local file the lock names does not exist
  kMismatch,       ///< present with another size or sha256 (truncated or replaced)
  kUnreadable,     ///< the file system would not let it be read
  kNotDownloaded,  ///< a url whose copy is not in the download cache (checked at download)
};

/// A locked file as found here, without downloading anything.
struct LocatedFile {
  FileState state = FileState::kNotDownloaded;
  std::string path;  ///< where it is (or was looked for); "" when it was not looked for
  /// What is wrong, one sentence naming the file ("" when verified); the error sync reports.
  std::string problem;
};

/// Checks a local file against the lock's sha256 (and size when given): the one verification
/// behind sync's local files and `wvlock check`. `what` names the file in `problem`.
LocatedFile inspect_file(const std::string& path, std::string_view sha256,
                         std::optional<std::uint64_t> size, std::string_view what);

/// inspect_file() as an error for an installer: kIntegrity when the content does not match
/// (naming both digests or sizes), kIo when the file is missing or cannot be read (the lock
/// names it, so its absence is a file system problem, not bad input).
Result<void> verify_file(const std::string& path, std::string_view sha256,
                         std::optional<std::uint64_t> size, std::string_view what);

/// A source of verified wheel files.
class WheelStore {
 public:
  virtual ~WheelStore() = default;
  /// The local path of `file`'s content, checked against `file.sha256` and `file.size`.
  /// kIntegrity when the content does not match; kNetwork/kIo when unavailable.
  virtual Result<std::string> get(const lock::LockedFile& file) = 0;
  /// get() for every file (sync asks once for the whole plan); a network store downloads them
  /// in parallel (CachingFetcher::fetch_verified_all). Results keep request order.
  virtual std::vector<Result<std::string>> get_all(const std::vector<const lock::LockedFile*>& files) {
    std::vector<Result<std::string>> results;
    results.reserve(files.size());
    for (const lock::LockedFile* file : files) results.push_back(get(*file));
    return results;
  }
  /// Where `file` is on this machine and whether it matches the lock, without the network and
  /// without changing anything (`wvlock check`). By default nothing is here: kNotDownloaded.
  virtual LocatedFile locate(const lock::LockedFile& file) {
    (void)file;
    return LocatedFile{};
  }
  /// The local path a file with a `path` names, without checking it ("" when it needs a
  /// download): what direct_url.json records for a wheel served from the unpacked cache.
  virtual std::string local_path(const lock::LockedFile& file) const {
    (void)file;
    return "";
  }
  /// The path get() would check and return, for a caller that checks it with verify_file()
  /// itself while it reads the file, and trusts nothing read from it before that passes (sync
  /// extracts a big wheel into the cache's staging as its hash is computed); "" when only
  /// get() serves it (a download).
  virtual std::string unverified_path(const lock::LockedFile& file) const {
    (void)file;
    return "";
  }
};

/// Serves wheels with a `path` (relative to the lockfile's folder) or a file:// url, checking
/// each; other urls go to `fallback` (the CLI's network store), or fail when there is none.
/// get() and locate() find and verify a local file the same way.
class LocalWheelStore final : public WheelStore {
 public:
  explicit LocalWheelStore(std::string lock_dir, WheelStore* fallback = nullptr)
      : lock_dir_(std::move(lock_dir)), fallback_(fallback) {}
  Result<std::string> get(const lock::LockedFile& file) override;
  /// Local files checked here; the url ones go to the fallback in one batch (parallel there).
  std::vector<Result<std::string>> get_all(const std::vector<const lock::LockedFile*>& files) override;
  /// A local file verified in place (absolute path); a url asks the fallback's locate().
  LocatedFile locate(const lock::LockedFile& file) override;
  /// The local path `file` names, "" when it needs a download.
  std::string local_path(const lock::LockedFile& file) const override;
  /// The absolute local path `file` names, "" when it needs a download.
  std::string unverified_path(const lock::LockedFile& file) const override;

 private:
  std::string lock_dir_;
  WheelStore* fallback_;
};

/// A WheelStore over callables, so the CLI can serve urls from src/net's verified cache
/// (`CachingFetcher::fetch_verified` / `fetch_verified_all`) without install/ including net/.
class CallbackWheelStore final : public WheelStore {
 public:
  using Get = std::function<Result<std::string>(const lock::LockedFile&)>;
  using GetAll =
      std::function<std::vector<Result<std::string>>(const std::vector<const lock::LockedFile*>&)>;
  /// `get_all` may be empty (then get() is called per file).
  explicit CallbackWheelStore(Get get, GetAll get_all = {})
      : get_(std::move(get)), get_all_(std::move(get_all)) {}
  Result<std::string> get(const lock::LockedFile& file) override { return get_(file); }
  std::vector<Result<std::string>> get_all(const std::vector<const lock::LockedFile*>& files) override {
    return get_all_ ? get_all_(files) : WheelStore::get_all(files);
  }

 private:
  Get get_;
  GetAll get_all_;
};

}  // namespace wv::install
