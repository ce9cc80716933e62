// URL pieces the network layer needs (RFC 3986 §3, only as far as wvlock uses it): the scheme
// and host for proxy decisions, file:// paths, and URLs safe to print. Cheap to include.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::net {

/// The parts of an absolute URL `scheme://[userinfo@]host[:port]/path?query#fragment`.
struct UrlParts {
  std::string scheme;    ///< lower-cased
  std::string userinfo;  ///< "user:password" as written (percent-encoded), may be empty
  std::string host;      ///< lower-cased; IPv6 literals keep their brackets
  std::optional<std::uint16_t> port;
  std::string path;  ///< from the first '/' after the authority, query included; may be empty
};

/// Splits an absolute URL; kInvalidInput names the URL when it has no scheme or a bad port.
Result<UrlParts> split_url(std::string_view url);

/// The port a URL uses: the explicit one, else 80 for http and 443 for https (0 otherwise).
std::uint16_t effective_port(const UrlParts& parts);

/// The local path of a `file:` URL (`file:///p`, `file://localhost/p`, `file:/p`),
/// percent-decoded. Another host is kUnsupported.
Result<std::string> file_url_to_path(std::string_view url);

/// True for URLs whose scheme is `file` (case-insensitive).
bool is_file_url(std::string_view url);

/// The URL with its user-info replaced by `****` (`https://****@host/`), for messages: the
/// one rule of redact_credentials (base/credentials.h).
std::string redact_url(std::string_view url);

/// Decodes %XX escapes; nullopt when an escape is malformed.
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace wv::net
