// The on-disk cache of wvlock (docs/network.md §Cache): a wv::Fetcher decorator that keeps index
// pages and metadata revalidated with ETag / Last-Modified, serves them alone in offline mode,
// a content-addressed store of downloaded files keyed by their SHA-256, verified on every use,
// and values derived from such files (wv::DerivedCache). All writes are atomic (temporary file + rename), so a killed process leaves no half entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/derived_cache.h"
#include "src/base/fetcher.h"
#include "src/base/file_system.h"

namespace wv::net {

struct CacheOptions {
  /// The cache folder (created on first write); see default_cache_directory().
  std::string directory;
  /// Serve only from the cache; a miss is a kNetwork error naming the URL.
  bool offline = false;
  /// fetch_verified_all() sends downloads upstream in parallel batches of at most this many
  /// expected bytes (a download of unknown size counts 64 MiB), since bodies are held in memory.
  std::uint64_t max_batch_bytes = 1ull << 30;
  /// The clock freshness is judged by (Unix seconds); null: the system clock. For tests.
  std::function<std::int64_t()> now;
};

/// A file to download and verify: the URL and the hash (and size, when known) the lock records.
struct VerifiedDownload {
  std::string url;
  std::string sha256;  ///< 64 hex digits
  std::optional<std::uint64_t> size;
};

/// Caches GET responses of any Fetcher. Cached: status-200 http(s) responses to requests without
/// a range (`Cache-Control: no-store` excepted). A copy is served without asking the server
/// while it is fresh (net/http_freshness.h: `max-age`, `Expires`, `immutable`) or when the
/// request names the body's hash and the copy has it (`expected_sha256`), unless the request
/// asks to `revalidate`; otherwise online use revalidates it with If-None-Match /
/// If-Modified-Since and a 304 serves the cached body (and renews its freshness). file: URLs and ranges pass
/// through (offline too, for file: URLs). A request carrying `Cache-Control: no-cache` (a caller
/// that rejected the answer it got: a wrong hash, a page that does not parse) deletes the entry
/// of the same request without that header, goes to the server without validators, and stores
/// the new answer in its place (offline: a miss). `Cache-Control: no-store` does the same but
/// stores nothing.
class CachingFetcher final : public Fetcher, public DerivedCache {
 public:
  /// `upstream` and `file_system` must outlive the cache; `options.directory` must not be empty.
  CachingFetcher(Fetcher& upstream, FileSystem& file_system, CacheOptions options);

  Result<FetchResponse> fetch(const FetchRequest& request) override;
  /// Looks every request up, then sends the misses and revalidations upstream in one
  /// fetch_all() (so they run in parallel). Results keep request order.
  std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& requests) override;

  /// The path of a local copy of `url` whose SHA-256 (and size) are the expected ones: a cached
  /// copy, re-hashed now (a corrupted one is discarded and fetched again), or a fresh download,
  /// verified before it is stored. A mismatching download is kIntegrity and never stored.
  Result<std::string> fetch_verified(const std::string& url, std::string_view expected_sha256,
                                     std::optional<std::uint64_t> expected_size);
  /// fetch_verified() for many files; downloads run in parallel. Results keep request order.
  std::vector<Result<std::string>> fetch_verified_all(
      const std::vector<VerifiedDownload>& downloads);

  /// A derived value is stored with the sha256 of its bytes and checked on every load: a
  /// damaged or truncated one is a miss and is dropped. Served offline too.
  std::optional<std::string> load_derived(std::string_view key) override;
  void store_derived(std::string_view key, std::string_view value) override;
  /// Where the value stored under `key` lives.
  std::string derived_path(std::string_view key) const;

  const std::string& directory() const { return options_.directory; }
  bool offline() const { return options_.offline; }

  /// Where the body and sidecar of a cached request live (for tests and `wvlock cache` tools).
  std::string entry_path(const FetchRequest& request) const;
  /// Where the verified file with this SHA-256 lives in the content-addressed store.
  std::string verified_path(std::string_view sha256) const;

 private:
  struct Cached;
  std::optional<Cached> load(const FetchRequest& request);
  /// A cached entry as the response it stands for.
  static FetchResponse from_cache(Cached&& entry);
  std::int64_t now() const;
  /// Whether the sidecar at `path` still belongs to the body with this sha256.
  bool sidecar_names(const std::string& path, std::string_view body_sha256);
  void store(const FetchRequest& request, const FetchResponse& response);
  /// Logs the first failed cache write of this run; later ones only at debug level (a full
  /// disk would otherwise print one warning per page).
  void warn_unwritable(const Error& error);
  /// Removes the temporary files of downloads in `folder` that a killed process left (not
  /// written to for ten minutes): a killed download of a multi-gigabyte wheel would otherwise
  /// keep its partial file for ever.
  void sweep_abandoned_downloads(const std::string& folder);

  Fetcher& upstream_;
  FileSystem& file_system_;
  CacheOptions options_;
  std::atomic<bool> warned_unwritable_{false};
};

/// `$XDG_CACHE_HOME/wvlock` when XDG_CACHE_HOME is an absolute path, else `$HOME/.cache/wvlock`;
/// kNotFound when neither is set. `getenv` is injected for tests.
Result<std::string> default_cache_directory(
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

}  // namespace wv::net
