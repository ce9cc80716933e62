// Whole small files read by path or URL (a `.metadata`, a variants file, a file hashed for its
// sha256), and the checks every part of IndexSource applies to what it reads: a body's bound,
// a listed sha256, and one more read past any cache when an answer is rejected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "src/base/result.h"
#include "src/index/prefetch.h"
#include "src/index/source_stats.h"

namespace wv::index {

// The header that asks for a file again after its answer was rejected (a wrong hash, a page
// that does not parse): a caching fetcher drops its copy, asks the server without revalidating
// it, and keeps the new answer in its place, so a bad copy is never served twice and a good
// one serves later offline runs (net/caching_fetcher.h).
inline constexpr std::pair<const char*, const char*> kRefetchHeader{"Cache-Control", "no-cache"};
// The same for a one-off read whose answer is not worth keeping (a whole wheel read to check a
// damaged range read: the download store, not the page cache, keeps wheels).
inline constexpr std::pair<const char*, const char*> kOneOffHeader{"Cache-Control", "no-store"};

/// The file's local path when it is on this machine: a plain path or a file:// URL.
std::optional<std::string> local_path(std::string_view url);

/// The size to report for a body over its limit: unknown when the transfer was cut short at
/// the limit, unless the server announced it.
std::optional<std::uint64_t> body_size(const FetchResponse& response);

/// `url` once more, past any cache; an error unless the server answers 200 within `limit`
/// (`rejected`, the reason the first answer was refused, when it answers otherwise).
Result<std::string> refetch_rejected(
    Fetcher& fetcher, const std::string& url, std::uint64_t limit, const Error& rejected,
    const std::pair<const char*, const char*>& header = kRefetchHeader);

/// kIntegrity unless `content` has the sha256 of `hashes` (no sha256 listed: nothing to check).
Result<void> check_sha256(std::string_view content,
                          const std::map<std::string, std::string>& hashes, std::string_view what);

/// The request for a small remote file. `pinned_sha256`: the digest a page gives for the file
/// ("" when none); `revalidate` (set_refresh()) holds only for a file no digest pins, whose
/// cached copy could be out of date.
FetchRequest small_file_request(const std::string& url, std::uint64_t limit,
                                std::string_view pinned_sha256, bool revalidate);

class SmallFiles {
 public:
  /// Remote reads go through `prefetched` (its answers first), refetches to `fetcher` (null:
  /// offline, a remote file fails with kUnsupported naming it).
  SmallFiles(const FileSystem& file_system, Fetcher* fetcher, PrefetchStore& prefetched,
             SourceStats& stats)
      : file_system_(file_system), fetcher_(fetcher), prefetched_(prefetched), stats_(stats) {}

  /// The whole file at `url_or_path`, within `limit` (`limit_id` names it in the error); see
  /// small_file_request() for `pinned_sha256` and `revalidate`. kNotFound for a 404 or 410.
  Result<std::string> read(const std::string& url_or_path, std::uint64_t limit, Limit limit_id,
                           std::string_view pinned_sha256 = "", bool revalidate = false);

  /// check_sha256() on `text`, read from `url`; when it fails and `url` is remote, `text` is
  /// read once more past any cache (refetch_rejected) and checked again, so a bad cached copy
  /// or a transfer damaged on the way is not the final word.
  Result<void> check_sha256_or_refetch(std::string& text, const std::string& url,
                                       std::uint64_t limit,
                                       const std::map<std::string, std::string>& hashes,
                                       std::string_view what);

 private:
  Result<std::string> read_remote(const std::string& url, std::uint64_t limit, Limit limit_id,
                                  std::string_view pinned_sha256, bool revalidate);

  const FileSystem& file_system_;
  Fetcher* fetcher_;
  PrefetchStore& prefetched_;
  SourceStats& stats_;
};

}  // namespace wv::index
