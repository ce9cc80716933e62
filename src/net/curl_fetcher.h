// wv::Fetcher over libcurl (docs/network.md): one shared connection pool, parallel transfers,
// retries with exponential backoff, timeouts, proxies, .netrc credentials, TLS always verified,
// file:// URLs and byte ranges. The only header of the curl fetcher; curl itself stays in the .cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/base/fetcher.h"
#include "src/net/proxy.h"

namespace wv::net {

/// When to draw the progress bar on stderr.
enum class ProgressMode {
  kAuto,   ///< only when stderr is a terminal and a batch runs longer than `progress_delay`
  kNever,  ///< never (quiet mode)
};

/// Tunables of a CurlFetcher; the defaults suit an interactive `wvlock` run.
struct CurlFetcherOptions {
  /// Attempts per transfer, the first included (>= 1).
  int max_attempts = 4;
  /// Wait before the second attempt; doubled before each later one, capped at `max_backoff`.
  std::chrono::milliseconds initial_backoff{250};
  std::chrono::milliseconds max_backoff{8000};
  std::chrono::milliseconds connect_timeout{15000};
  /// Bound on one attempt of a request held in memory (a page, a metadata file), from start to
  /// last byte. A download streamed to a file (`FetchRequest::body_path`) has no total bound:
  /// a 2.5 GB GPU wheel over a slow link may take hours, and must not be cut and retried for
  /// ever; `stall_timeout` and `min_speed` end a dead or trickling one.
  std::chrono::milliseconds transfer_timeout{std::chrono::minutes(30)};
  /// An attempt slower than `min_speed` bytes a second over this long (a server that sends
  /// nothing, or trickles) is abandoned (and retried).
  std::chrono::milliseconds stall_timeout{30000};
  std::uint64_t min_speed = 1024;
  /// Transfers of one fetch_all() that run at the same time (uv's default for
  /// UV_CONCURRENT_DOWNLOADS): a lock's batch of a level of every target's graph holds ~50
  /// pages or `.metadata` files, which 16 at a time took three round trips.
  std::size_t max_parallel = 50;
  std::string user_agent = "wvlock/0.1.0";
  /// Credentials for hosts without user info in the URL come from a netrc file.
  bool use_netrc = true;
  /// The netrc file; empty means curl's default, `$HOME/.netrc`.
  std::string netrc_path;
  /// Proxies; nullopt reads HTTP(S)_PROXY / ALL_PROXY / NO_PROXY from the process environment.
  std::optional<ProxySettings> proxy;
  /// A PEM bundle of trusted certificates (CURLOPT_CAINFO), in place of the system bundle;
  /// empty means the system's. Verification of the peer and host name is always on: there is
  /// deliberately no option to disable it.
  std::string ca_bundle;
  /// A folder of hashed certificates (`openssl rehash`; OpenSSL takes several separated by
  /// `:`), trusted besides the bundle (CURLOPT_CAPATH); empty means the system's default.
  std::string ca_path;
  ProgressMode progress = ProgressMode::kAuto;
  std::chrono::milliseconds progress_delay{1000};
};

/// The real network. Thread-safe: concurrent fetch() / fetch_all() calls share one connection
/// pool, DNS cache and TLS session cache.
class CurlFetcher final : public Fetcher {
 public:
  explicit CurlFetcher(CurlFetcherOptions options = {});
  ~CurlFetcher() override;
  CurlFetcher(const CurlFetcher&) = delete;
  CurlFetcher& operator=(const CurlFetcher&) = delete;

  /// One transfer (see fetch_all()).
  Result<FetchResponse> fetch(const FetchRequest& request) override;
  /// Runs up to `max_parallel` transfers at once; results keep request order. An HTTP status
  /// is a response, except 5xx (and 429), which are retried and become a kNetwork error once
  /// the attempts are spent; connection failures, timeouts and truncated bodies are retried the
  /// same way. file:// URLs are read directly: 200 (206 for a range), kNotFound when absent.
  std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& requests) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wv::net
