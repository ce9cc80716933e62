// The metadata sidecar of an HTTP cache entry (docs/network.md §Cache layout): a small line-based
// text file next to the body, naming the URL, status, validators (ETag, Last-Modified), the
// response headers, and the size and SHA-256 of the body it belongs to, so a body that does not
// match its sidecar (a torn or raced write) is detected and never served. Cheap to include.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::net {

/// The first line of every sidecar; a new layout gets a new version (and a new folder).
inline constexpr std::string_view kCacheMetadataMagic = "wvlock-cache-metadata 1";

struct CacheMetadata {
  std::string url;            ///< as requested, without user info
  std::string effective_url;  ///< after redirects, without user info
  int status = 200;
  std::uint64_t body_size = 0;
  std::string body_sha256;  ///< 64 lower-case hex digits
  /// Response headers to replay (lower-case names), validators included.
  std::map<std::string, std::string> headers;
  /// When the body was received or last revalidated (Unix seconds; 0 in a sidecar written
  /// before freshness was kept), and until when it may be served without asking the server
  /// (net/http_freshness.h; equal to `stored_at` when it must be revalidated on every use).
  std::int64_t stored_at = 0;
  std::int64_t fresh_until = 0;
};

/// The sidecar text: the magic line, then `key value` lines. CR, LF and NUL in values become
/// spaces, so every field stays on its line.
std::string serialize_cache_metadata(const CacheMetadata& metadata);

/// Parses a sidecar; any bytes are accepted as input, and a wrong magic line, an unknown key,
/// a bad number or a missing field is a kParse error.
Result<CacheMetadata> parse_cache_metadata(std::string_view text);

}  // namespace wv::net
