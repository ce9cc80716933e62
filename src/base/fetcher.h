// Network access as an interface: src/net implements it over libcurl, tests over loopback or a
// fake. Layers above take a Fetcher&; only the CLI wires the real one in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"

namespace wv {

struct FetchRequest {
  std::string url;
  /// Extra request headers, e.g. {"Accept", "application/vnd.pypi.simple.v1+json"}.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Inclusive byte range [first, last]; a negative `first` asks for the last -first bytes.
  std::optional<std::pair<std::int64_t, std::int64_t>> range;
  /// 0: no bound. Otherwise the transfer stops once the body holds more than this many bytes
  /// (max_body_bytes + 1 are kept) and the response has `body_cut` set: the caller reports its
  /// own limit, and a hostile server cannot make wvlock hold an endless body in memory.
  std::uint64_t max_body_bytes = 0;
  /// When set, the body goes to this file (created, and truncated again at each attempt) as it
  /// arrives, hashed on the way, instead of into FetchResponse::body: a download needs no
  /// memory for its size. The response then has `streamed` set. A fetcher may ignore it (the
  /// body is then in `body`, `streamed` false), so callers handle both. A file that cannot be
  /// written is a kIo error, not retried.
  std::string body_path;
  /// Ask the server even when a cache holds a fresh copy (`--refresh`): the copy is revalidated.
  bool revalidate = false;
  /// The body's SHA-256 when the caller knows it (a `.metadata` or variants file that a page
  /// pins by hash): a cached body with this digest cannot be out of date, so a cache serves it
  /// without asking the server. 64 hex digits, or "".
  std::string expected_sha256;
};

struct FetchResponse {
  int status = 0;  ///< HTTP status; 200 for a file:// read
  /// Response headers, names lower-cased.
  std::map<std::string, std::string> headers;
  std::string body;
  std::string effective_url;  ///< after redirects
  /// The body was cut after max_body_bytes + 1 bytes (it is larger than the request allowed).
  bool body_cut = false;
  /// The body went to the request's `body_path`; `body` is empty.
  bool streamed = false;
  std::uint64_t streamed_bytes = 0;  ///< the bytes written to `body_path`
  std::string streamed_sha256;       ///< their SHA-256, 64 lower-case hex digits
};

class Fetcher {
 public:
  virtual ~Fetcher() = default;
  /// One transfer. A transport failure (or retries exhausted) is an Error of kind kNetwork;
  /// an HTTP error status is a response the caller inspects.
  virtual Result<FetchResponse> fetch(const FetchRequest& request) = 0;
  /// Several transfers; implementations may run them in parallel. Results keep request order.
  virtual std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& requests) {
    std::vector<Result<FetchResponse>> results;
    results.reserve(requests.size());
    for (const FetchRequest& request : requests) results.push_back(fetch(request));
    return results;
  }
};

}  // namespace wv
