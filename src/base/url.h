// URLs, in one place (RFC 3986, as far as wvlock uses it): whether a text is a URL, splitting
// one into its parts, resolving a reference against a base, `file:` URL <-> local path, and
// percent coding. Every layer asks these questions here, so each has one answer: a link's
// path is decoded exactly once, whichever layer (index, net, lock, install, build, cli) turns
// it into a path. Cheap to include.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "src/base/result.h"

namespace wv {

// --- What a text is --------------------------------------------------------------------------

/// True when `text` starts with an RFC 3986 scheme followed by ':' (`https:`, `file:`,
/// `git+ssh:`); wvlock has no Windows drive letters, so `c:` would count too.
bool has_url_scheme(std::string_view text);

/// "Is this a URL or a path?": a scheme followed by `://` (`https://h/x`, `file:///x`,
/// `git+ssh://h/r`). Everything else, `file:/x` included, is read as a path by the callers
/// that ask this (locations in pyproject.toml, the lockfile and the command line).
bool is_url(std::string_view text);

/// True for `http://` and `https://` URLs (scheme case-insensitive).
bool is_http_url(std::string_view url);

/// True for `file:` URLs (scheme case-insensitive; `file:/x` and `file:///x` alike).
bool is_file_url(std::string_view url);

// --- Percent coding (RFC 3986 §2.1) -----------------------------------------------------------

/// `text` with every byte but the unreserved ones (ASCII letters, digits, `-._~`) and those in
/// `keep` written as `%XX` (upper-case hex).
std::string percent_encode(std::string_view text, std::string_view keep = "");

/// percent_encode for the path of a URL wvlock composes: `/` and the sub-delimiters a file
/// name holds (`+=@:,!`) stay as they are.
std::string percent_encode_path(std::string_view path);

/// Decodes %XX escapes. nullopt when an escape is not two hex digits or decodes to NUL: a
/// malformed escape is refused, not guessed at (a path or password that came out otherwise
/// would name something the text does not). A caller that must go on with hostile text, such
/// as an index page's href, says so with `.value_or(text)`.
std::optional<std::string> percent_decode(std::string_view text);

// --- file: URLs ----------------------------------------------------------------------------------

/// The local path of a `file:` URL (`file:///a/b`, `file://localhost/a/b`, `file:/a/b`), query
/// and fragment dropped, percent-decoded once. kUnsupported for another host; kInvalidInput for
/// another scheme, a relative path, a malformed escape or a NUL.
Result<std::string> file_url_to_path(std::string_view url);

/// `file://` + the percent-encoded absolute path (percent_encode_path).
std::string path_to_file_url(std::string_view absolute_path);

// --- Parts ----------------------------------------------------------------------------------------

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

/// The URL with its user-info replaced by `****` (`https://****@host/`), for messages: the
/// one rule of redact_credentials (base/credentials.h).
std::string redact_url(std::string_view url);

/// `url` without its `#fragment`.
std::string_view strip_fragment(std::string_view url);
/// The fragment of `url` ("" when none).
std::string_view url_fragment(std::string_view url);

/// The last path segment of a URL or path, without query and fragment, percent-decoded; a
/// malformed escape is kept as written (a file name from an index page is still a name).
std::string url_filename(std::string_view url);

/// `url` with a trailing '/' added when it has none (simple-index base URLs).
std::string with_trailing_slash(std::string_view url);

/// Parses a hash given as `<name>=<hex>` (a PEP 503 fragment or a PEP 658 attribute value):
/// lower-cases the name and the hex digits; nullopt when malformed (no '=', empty parts, or a
/// digest that is not hexadecimal).
std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view text);

// --- Joining --------------------------------------------------------------------------------------

/// Resolves `reference` against `base`. When `base` has a scheme this is RFC 3986 §5.2
/// (with dot-segment removal), as PEP 503/691 require for an index page's relative links;
/// otherwise `base` is a local file path and `reference` a path relative to its folder
/// (percent-decoded, a malformed escape kept as written), unless `reference` is itself a URL
/// or absolute.
std::string resolve_url(std::string_view base, std::string_view reference);

}  // namespace wv
