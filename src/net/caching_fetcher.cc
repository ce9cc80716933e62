#include "src/net/caching_fetcher.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <set>

#include "src/base/credentials.h"
#include "src/base/hash.h"
#include "src/base/hex.h"
#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/net/cache_metadata.h"
#include "src/net/http_freshness.h"
#include "src/base/url.h"

namespace wv::net {

namespace {

// Folder names carry a layout version: a new layout starts a new folder and old ones are ignored.
// v2: sidecars carry `stored-at` and `fresh-until`, which a v1 reader would reject.
constexpr std::string_view kHttpFolder = "http-v2";
constexpr std::string_view kFilesFolder = "files-v1/sha256";
constexpr std::string_view kDerivedFolder = "derived-v1";
// A download's temporary file not written to for this long belongs to a process that died
// (a live one writes at least every stall timeout, or starts the file again).
constexpr std::int64_t kAbandonedAfterSeconds = 10 * 60;
// A derived entry: this header line, the sha256 of the value, a newline, the value.
constexpr std::string_view kDerivedMagic = "wvlock-derived 1 ";
// What a download of unknown size counts for when batches are sized.
constexpr std::uint64_t kUnknownDownloadSize = 64ull << 20;

// Whether the request's Cache-Control names `directive`.
bool asks(const FetchRequest& request, std::string_view directive) {
  for (const auto& [name, value] : request.headers) {
    if (iequals(name, "cache-control") && to_lower(value).find(directive) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// `no-store`: answer from the server, keep nothing. `no-cache`: the caller rejected what the
// cache (or the server) gave it for this request before; answer from the server, without
// revalidating the copy, and keep the new answer in its place.
bool asks_no_store(const FetchRequest& request) { return asks(request, "no-store"); }
bool asks_refetch(const FetchRequest& request) {
  return asks(request, "no-cache") && !asks_no_store(request);
}

// The request whose entry a no-store or no-cache request replaces: the same one without
// Cache-Control.
FetchRequest without_cache_control(FetchRequest request) {
  std::erase_if(request.headers, [](const auto& header) { return iequals(header.first, "cache-control"); });
  return request;
}

bool is_cacheable(const FetchRequest& request) {
  if (request.range || is_file_url(request.url)) return false;
  Result<UrlParts> parts = split_url(request.url);
  if (!parts || (parts->scheme != "http" && parts->scheme != "https")) return false;
  // A caller that sends its own validators manages its own copy.
  for (const auto& [name, value] : request.headers) {
    if (iequals(name, "if-none-match") || iequals(name, "if-modified-since")) return false;
  }
  return !asks_no_store(request) && !asks_refetch(request);
}

bool forbids_storing(const FetchResponse& response) {
  auto it = response.headers.find("cache-control");
  return it != response.headers.end() && to_lower(it->second).find("no-store") != std::string::npos;
}

Error offline_miss(const std::string& url) {
  return make_error(ErrorCode::kNetwork, str_cat("offline: ", in_backticks(redact_url(url)),
                                                 " is not in the cache and needs the network"))
      .with_note("hint: run once without `--offline` to fill the cache");
}

// Hop-by-hop and per-response headers that must not be replayed from the cache.
bool is_replayable_header(const std::string& name) {
  return name != "connection" && name != "keep-alive" && name != "transfer-encoding" &&
         name != "set-cookie" && name != "date" && name != "age";
}

// Whether `entry` answers `request` without the server: a body of the hash the request names
// (it cannot be out of date), or a copy still inside its freshness lifetime. A clock that went
// back before the copy was stored makes it stale, never fresh for longer.
bool serves_unasked(const CacheMetadata& entry, const FetchRequest& request, std::int64_t now) {
  if (request.revalidate) return false;
  if (!request.expected_sha256.empty() && entry.body_sha256 == to_lower(request.expected_sha256)) {
    return true;
  }
  return entry.stored_at > 0 && entry.stored_at <= now && now < entry.fresh_until;
}

}  // namespace

struct CachingFetcher::Cached {
  CacheMetadata metadata;
  std::string body;
};

FetchResponse CachingFetcher::from_cache(Cached&& entry) {
  return FetchResponse{entry.metadata.status, std::move(entry.metadata.headers),
                       std::move(entry.body), std::move(entry.metadata.effective_url)};
}

CachingFetcher::CachingFetcher(Fetcher& upstream, FileSystem& file_system, CacheOptions options)
    : upstream_(upstream), file_system_(file_system), options_(std::move(options)) {
  // An empty folder would put the cache at the file system root.
  WV_CHECK(!options_.directory.empty(), "CachingFetcher needs a cache folder");
}

std::string CachingFetcher::entry_path(const FetchRequest& request) const {
  // The key covers the URL and the request headers (Accept picks the page format), sorted so
  // their order does not matter. Credentials in the URL are left out: a key is a fast hash,
  // not a safe place for a password, and the answer is the resource's whoever asks.
  std::vector<std::string> headers;
  for (const auto& [name, value] : request.headers) headers.push_back(to_lower(name) + ":" + value);
  std::sort(headers.begin(), headers.end());
  Fingerprint fingerprint;
  fingerprint.add(kHttpFolder).add(strip_credentials(request.url));
  for (const std::string& header : headers) fingerprint.add(header);
  std::string key = fingerprint.finish().to_hex();
  return path_join(path_join(path_join(options_.directory, kHttpFolder), key.substr(0, 2)), key);
}

std::string CachingFetcher::verified_path(std::string_view sha256) const {
  std::string hex = to_lower(sha256);
  return path_join(path_join(path_join(options_.directory, kFilesFolder), hex.substr(0, 2)), hex);
}

std::optional<CachingFetcher::Cached> CachingFetcher::load(const FetchRequest& request) {
  std::string base = entry_path(request);
  Result<std::string> metadata_text = file_system_.read_file(base + ".meta");
  if (!metadata_text) return std::nullopt;
  Result<CacheMetadata> metadata = parse_cache_metadata(*metadata_text);
  Result<std::string> body =
      metadata ? file_system_.read_file(base + ".body", Limit::kDownloadBytes,
                                        std::max<std::uint64_t>(metadata->body_size, 1))
               : Result<std::string>(metadata.error());
  // The sidecar names the size and hash of its body: a pair from two different writes, a
  // truncated body or a damaged sidecar is a miss, and the entry is dropped.
  if (!metadata || !body || body->size() != metadata->body_size ||
      sha256_hex(*body) != metadata->body_sha256) {
    log_debug(
        str_cat("cache: discarding the damaged entry for ", in_backticks(redact_url(request.url))));
    (void)file_system_.remove(base + ".meta");
    (void)file_system_.remove(base + ".body");
    return std::nullopt;
  }
  return Cached{std::move(*metadata), std::move(*body)};
}

bool CachingFetcher::sidecar_names(const std::string& path, std::string_view body_sha256) {
  Result<std::string> text = file_system_.read_file(path);
  if (!text) return false;
  Result<CacheMetadata> on_disk = parse_cache_metadata(*text);
  return on_disk && on_disk->body_sha256 == body_sha256;
}

std::int64_t CachingFetcher::now() const {
  return options_.now ? options_.now() : std::int64_t(std::time(nullptr));
}

void CachingFetcher::store(const FetchRequest& request, const FetchResponse& response) {
  std::string base = entry_path(request);
  CacheMetadata metadata;
  metadata.stored_at = now();
  metadata.fresh_until = fresh_until(response.headers, metadata.stored_at);
  // Bare URLs: a user name can be a token (`https://TOKEN@host/`), so none is stored.
  metadata.url = strip_credentials(request.url);
  metadata.effective_url = strip_credentials(response.effective_url);
  metadata.status = response.status;
  metadata.body_size = response.body.size();
  metadata.body_sha256 = sha256_hex(response.body);
  for (const auto& [name, value] : response.headers) {
    if (is_replayable_header(name)) metadata.headers[name] = value;
  }
  // Body first, sidecar last: a reader trusts a body only through a sidecar naming its hash.
  Result<void> written = file_system_.create_directories(path_parent(base));
  // Not durable (no fsync): a reader trusts a body only when it matches the hash its sidecar
  // names, so a file a crash left empty or short is a miss, never a wrong answer.
  if (written) written = file_system_.write_file_atomic(base + ".body", response.body, false);
  if (written) {
    written = file_system_.write_file_atomic(base + ".meta", serialize_cache_metadata(metadata),
                                             false);
  }
  if (!written) warn_unwritable(written.error());
}

void CachingFetcher::warn_unwritable(const Error& error) {
  std::string message = str_cat("cannot write the cache: ", error.message);
  if (warned_unwritable_.exchange(true)) {
    log_debug(message);
    return;
  }
  log_warning(str_cat(message, " (wvlock goes on without storing; further failures to write the "
                               "cache are shown with --verbose)"));
}

void CachingFetcher::sweep_abandoned_downloads(const std::string& folder) {
  Result<std::vector<DirectoryEntry>> entries = file_system_.list_directory(folder);
  if (!entries) return;  // not created yet
  const std::int64_t now = std::int64_t(std::time(nullptr));
  for (const DirectoryEntry& entry : *entries) {
    if (entry.type != FileType::kRegular || entry.name.find(".tmp.") == std::string::npos) continue;
    const std::string path = path_join(folder, entry.name);
    Result<FileInfo> info = file_system_.stat(path);
    if (!info || now - info->modified_unix_seconds < kAbandonedAfterSeconds) continue;
    log_debug(str_cat("cache: removing the abandoned download ", in_backticks(path)));
    (void)file_system_.remove(path);
  }
}

std::string CachingFetcher::derived_path(std::string_view key) const {
  std::string hex = sha256_hex(key);
  return path_join(path_join(path_join(options_.directory, kDerivedFolder), hex.substr(0, 2)), hex);
}

std::optional<std::string> CachingFetcher::load_derived(std::string_view key) {
  const std::string path = derived_path(key);
  Result<std::string> text = file_system_.read_file(path);
  if (!text) return std::nullopt;
  std::string_view view = *text;
  const std::size_t header = kDerivedMagic.size() + 64 + 1;
  if (view.size() >= header && view.substr(0, kDerivedMagic.size()) == kDerivedMagic &&
      view[header - 1] == '\n' &&
      sha256_hex(view.substr(header)) == view.substr(kDerivedMagic.size(), 64)) {
    return std::string(view.substr(header));
  }
  log_debug(str_cat("cache: discarding the damaged entry ", in_backticks(path)));
  (void)file_system_.remove(path);
  return std::nullopt;
}

void CachingFetcher::store_derived(std::string_view key, std::string_view value) {
  const std::string path = derived_path(key);
  Result<void> written = file_system_.create_directories(path_parent(path));
  if (written) {
    written = file_system_.write_file_atomic(
        path, str_cat(kDerivedMagic, sha256_hex(value), "\n", value), false);
  }
  if (!written) warn_unwritable(written.error());
}

Result<FetchResponse> CachingFetcher::fetch(const FetchRequest& request) {
  std::vector<Result<FetchResponse>> results = fetch_all({request});
  return std::move(results.front());
}

std::vector<Result<FetchResponse>> CachingFetcher::fetch_all(
    const std::vector<FetchRequest>& requests) {
  const std::size_t count = requests.size();
  std::vector<std::optional<Result<FetchResponse>>> results(count);
  std::vector<std::optional<Cached>> cached(count);
  std::vector<FetchRequest> upstream_requests;
  std::vector<std::size_t> upstream_of;  // request index of each upstream request

  for (std::size_t i = 0; i < count; ++i) {
    const FetchRequest& request = requests[i];
    if (!is_cacheable(request)) {
      if (asks_no_store(request) || asks_refetch(request)) {
        // The caller found the cached answer bad (a wrong hash, a page that does not parse):
        // drop it, so it is never served again, and answer from the server.
        std::string base = entry_path(without_cache_control(request));
        (void)file_system_.remove(base + ".meta");
        (void)file_system_.remove(base + ".body");
      }
      if (options_.offline && !is_file_url(request.url)) {
        results[i] = offline_miss(request.url);
        continue;
      }
      upstream_requests.push_back(request);
      upstream_of.push_back(i);
      continue;
    }
    cached[i] = load(request);
    // Offline, any copy answers; online, a fresh or hash-pinned one does.
    if (cached[i] && (options_.offline || serves_unasked(cached[i]->metadata, request, now()))) {
      results[i] = from_cache(std::move(*cached[i]));
      continue;
    }
    if (options_.offline) {
      results[i] = offline_miss(request.url);
      continue;
    }
    FetchRequest conditional = request;
    if (cached[i]) {
      const auto& headers = cached[i]->metadata.headers;
      if (auto it = headers.find("etag"); it != headers.end()) {
        conditional.headers.emplace_back("If-None-Match", it->second);
      }
      if (auto it = headers.find("last-modified"); it != headers.end()) {
        conditional.headers.emplace_back("If-Modified-Since", it->second);
      }
    }
    upstream_requests.push_back(std::move(conditional));
    upstream_of.push_back(i);
  }

  std::vector<Result<FetchResponse>> answers;
  if (!upstream_requests.empty()) answers = upstream_.fetch_all(upstream_requests);
  for (std::size_t j = 0; j < answers.size(); ++j) {
    std::size_t i = upstream_of[j];
    const FetchRequest& request = requests[i];
    Result<FetchResponse>& answer = answers[j];
    if (!is_cacheable(request)) {
      // A refetch's answer takes the dropped copy's place (the caller checks it as it did the
      // first; a bad one is dropped and refetched again on its next use).
      if (asks_refetch(request) && answer && answer->status == 200 && !answer->body_cut &&
          !forbids_storing(*answer)) {
        store(without_cache_control(request), *answer);
      }
      results[i] = std::move(answer);
      continue;
    }
    if (!answer) {
      Error error = std::move(answer).error();
      if (cached[i]) error.notes.push_back("hint: `--offline` serves the cached copy");
      results[i] = std::move(error);
      continue;
    }
    FetchResponse& response = *answer;
    if (response.status == 304 && cached[i]) {
      log_debug(str_cat("cache: ", in_backticks(redact_url(request.url)), " is unchanged (304)"));
      Cached& entry = *cached[i];
      // A 304 may carry new validators and a new lifetime; keep them, and count the copy's
      // freshness from now (RFC 9111 §4.3.4).
      std::map<std::string, std::string> lifetime_headers = entry.metadata.headers;
      bool changed = false;
      for (const auto& [name, value] : response.headers) {
        if ((name == "etag" || name == "last-modified" || name == "cache-control" ||
             name == "expires") &&
            entry.metadata.headers[name] != value) {
          entry.metadata.headers[name] = value;
          changed = true;
        }
        lifetime_headers[name] = value;
      }
      const std::int64_t received = now();
      const std::int64_t until = fresh_until(lifetime_headers, received);
      // Rewritten only when it says something new (validators, or a lifetime to renew), and
      // only over the sidecar this copy came with: another process may have stored a newer
      // body meanwhile, and pairing its body with this sidecar would drop both.
      changed = changed || until > received;
      if (changed && sidecar_names(entry_path(request) + ".meta", entry.metadata.body_sha256)) {
        entry.metadata.stored_at = received;
        entry.metadata.fresh_until = until;
        Result<void> written = file_system_.write_file_atomic(
            entry_path(request) + ".meta", serialize_cache_metadata(entry.metadata), false);
        if (!written) warn_unwritable(written.error());
      }
      results[i] = from_cache(std::move(entry));
      continue;
    }
    // A cut body (over the request's max_body_bytes) is not the resource: never stored.
    if (response.status == 200 && !response.body_cut && !forbids_storing(response)) {
      store(request, response);
    }
    results[i] = std::move(answer);
  }

  std::vector<Result<FetchResponse>> out;
  out.reserve(count);
  for (std::optional<Result<FetchResponse>>& result : results) out.push_back(std::move(*result));
  return out;
}

Result<std::string> CachingFetcher::fetch_verified(const std::string& url,
                                                   std::string_view expected_sha256,
                                                   std::optional<std::uint64_t> expected_size) {
  std::vector<Result<std::string>> results =
      fetch_verified_all({VerifiedDownload{url, std::string(expected_sha256), expected_size}});
  return std::move(results.front());
}

std::vector<Result<std::string>> CachingFetcher::fetch_verified_all(
    const std::vector<VerifiedDownload>& downloads) {
  const std::size_t count = downloads.size();
  std::vector<std::optional<Result<std::string>>> results(count);
  std::vector<FetchRequest> requests;
  std::vector<std::size_t> request_of;

  std::set<std::string> swept;  // store folders already cleared of abandoned downloads
  for (std::size_t i = 0; i < count; ++i) {
    const VerifiedDownload& download = downloads[i];
    std::string expected = to_lower(download.sha256);
    if (!is_hex64(expected)) {
      results[i] =
          make_error(ErrorCode::kInvalidInput,
                     str_cat("invalid sha256 ", in_backticks(download.sha256), " for ",
                             in_backticks(redact_url(download.url)), ": expected 64 hex digits"));
      continue;
    }
    std::string path = verified_path(expected);
    if (Result<FileInfo> info = file_system_.stat(path); info && info->type == FileType::kRegular) {
      // Checked on every use: a cached file that no longer has its hash is never handed out.
      bool size_ok = !download.size || info->size == *download.size;
      Result<std::string> actual = size_ok ? sha256_file_hex(path) : Result<std::string>("");
      if (size_ok && actual && *actual == expected) {
        results[i] = path;
        continue;
      }
      log_warning(str_cat("discarding the corrupted cache file ", in_backticks(path), " of ",
                          in_backticks(redact_url(download.url))));
      (void)file_system_.remove(path);
    }
    if (options_.offline && !is_file_url(download.url)) {
      results[i] = offline_miss(download.url);
      continue;
    }
    // A known size bounds the body exactly; otherwise the download-bytes limit does. The body
    // streams into a temporary file beside its place in the store, renamed once verified.
    FetchRequest request{download.url, {}, std::nullopt,
                         download.size ? std::max<std::uint64_t>(*download.size, 1)
                                       : limit_value(Limit::kDownloadBytes)};
    if (swept.insert(path_parent(path)).second) sweep_abandoned_downloads(path_parent(path));
    Result<void> folder = file_system_.create_directories(path_parent(path));
    if (!folder) {
      results[i] = std::move(folder).error().with_context(
          str_cat("storing ", in_backticks(redact_url(download.url)), " in the cache"));
      continue;
    }
    static std::atomic<std::uint64_t> downloads_started{0};
    request.body_path =
        str_cat(path, ".tmp.", std::uint64_t(::getpid()), ".d", downloads_started.fetch_add(1));
    requests.push_back(std::move(request));
    request_of.push_back(i);
  }

  auto settle = [&](std::size_t i, const FetchRequest& request, Result<FetchResponse>& answer) {
    const VerifiedDownload& download = downloads[i];
    std::string shown = in_backticks(redact_url(download.url));
    // The streamed file becomes the store's copy only once verified; otherwise it goes.
    struct TemporaryGuard {
      FileSystem& file_system;
      const std::string& path;
      bool keep = false;
      ~TemporaryGuard() {
        if (!keep) (void)file_system.remove(path);
      }
    } temporary{file_system_, request.body_path};
    if (!answer) {
      results[i] = std::move(answer).error();
      return;
    }
    const FetchResponse& response = *answer;
    const std::uint64_t received = response.streamed ? response.streamed_bytes : response.body.size();
    if (response.status != 200) {
      results[i] = make_error(
          response.status == 404 ? ErrorCode::kNotFound : ErrorCode::kNetwork,
          str_cat("cannot download ", shown, ": the server answered HTTP ", response.status));
      return;
    }
    if (response.body_cut && !download.size) {
      results[i] = limit_error(Limit::kDownloadBytes, str_cat("the download of ", shown),
                               std::nullopt);
      return;
    }
    if (response.body_cut) {
      results[i] = make_error(ErrorCode::kIntegrity,
                              str_cat("the download of ", shown, " is larger than the expected ",
                                      *download.size, " bytes"));
      return;
    }
    if (download.size && received != *download.size) {
      results[i] = make_error(ErrorCode::kIntegrity,
                              str_cat("the download of ", shown, " is ", received,
                                      " bytes, expected ", *download.size));
      return;
    }
    std::string expected = to_lower(download.sha256);
    std::string actual = response.streamed ? response.streamed_sha256 : sha256_hex(response.body);
    if (actual != expected) {
      results[i] = make_error(ErrorCode::kIntegrity,
                              str_cat("the download of ", shown, " has sha256 ",
                                      in_backticks(actual), ", expected ", in_backticks(expected)));
      return;
    }
    std::string path = verified_path(expected);
    // Rename is atomic: a reader sees no file or the whole verified one.
    Result<void> written = response.streamed
                               ? file_system_.rename(request.body_path, path)
                               : file_system_.write_file_atomic(path, response.body, false);
    temporary.keep = response.streamed && bool(written);
    if (!written) {
      results[i] =
          std::move(written).error().with_context(str_cat("storing ", shown, " in the cache"));
      return;
    }
    results[i] = path;
  };

  // Downloads go upstream in batches of bounded total size (each batch in parallel). With the
  // curl fetcher bodies stream to their files; a fetcher that ignores body_path holds them in
  // memory, and the bound keeps that in check: a batch's bodies are dropped before the next.
  std::size_t batch_begin = 0;
  while (batch_begin < requests.size()) {
    std::size_t batch_end = batch_begin;
    std::uint64_t batch_bytes = 0;
    while (batch_end < requests.size()) {
      const VerifiedDownload& download = downloads[request_of[batch_end]];
      std::uint64_t bytes = download.size ? *download.size : kUnknownDownloadSize;
      if (batch_end > batch_begin && batch_bytes + bytes > options_.max_batch_bytes) break;
      batch_bytes += bytes;
      ++batch_end;
    }
    std::vector<Result<FetchResponse>> answers = upstream_.fetch_all(
        std::vector<FetchRequest>(requests.begin() + std::ptrdiff_t(batch_begin),
                                  requests.begin() + std::ptrdiff_t(batch_end)));
    for (std::size_t j = batch_begin; j < batch_end; ++j) {
      settle(request_of[j], requests[j], answers[j - batch_begin]);
    }
    batch_begin = batch_end;
  }

  std::vector<Result<std::string>> out;
  out.reserve(count);
  for (std::optional<Result<std::string>>& result : results) out.push_back(std::move(*result));
  return out;
}

Result<std::string> default_cache_directory(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  if (std::optional<std::string> own = getenv("WVLOCK_CACHE_DIR"); own && !own->empty()) {
    return *own;
  }
  if (std::optional<std::string> xdg = getenv("XDG_CACHE_HOME");
      xdg && !xdg->empty() && (*xdg)[0] == '/') {
    return path_join(*xdg, "wvlock");
  }
  if (std::optional<std::string> home = getenv("HOME"); home && !home->empty()) {
    return path_join(path_join(*home, ".cache"), "wvlock");
  }
  return make_error(ErrorCode::kNotFound,
                    "cannot choose a cache folder: neither `XDG_CACHE_HOME` nor `HOME` is set")
      .with_note("hint: pass `--cache-dir DIR`");
}

}  // namespace wv::net
