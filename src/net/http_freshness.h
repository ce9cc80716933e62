// How long a cached HTTP response may be served without asking the server again (RFC 9111
// §4.2, as a private cache: `s-maxage` and `private` do not apply). Pure functions of the
// response headers and clocks; the CachingFetcher stores the outcome in the entry's sidecar.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wv::net {

/// An HTTP date (RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms)
/// as Unix seconds; nullopt when it does not parse.
std::optional<std::int64_t> parse_http_date(std::string_view text);

/// Never stale: `Cache-Control: immutable` without `max-age` or `Expires` (uv treats it so;
/// indexes send it for files whose URL changes with their content).
inline constexpr std::int64_t kFreshForever = INT64_MAX;

/// The Unix second until which a response received at `received_at` (lower-case header names)
/// is fresh: `received_at` itself (stale at once) unless `max-age` (less `Age`), or `Expires`
/// (against `Date`, else the receiving clock), gives it a lifetime; `no-cache`, and
/// `Pragma: no-cache` without Cache-Control, make it stale at once. There is no heuristic
/// lifetime: a page without one is revalidated on every use, so a lock never misses a release
/// because a server said nothing.
std::int64_t fresh_until(const std::map<std::string, std::string>& headers,
                         std::int64_t received_at);

}  // namespace wv::net
