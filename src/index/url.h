// URL handling for package sources: resolving the hrefs of a simple-index page against the page
// URL (RFC 3986 §5.2, as PEP 503/691 require for relative URLs), file:// <-> path conversion,
// percent-decoding, and the `#<hashname>=<hashvalue>` fragment of PEP 503.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wv::index {

/// True for `http://` and `https://` URLs (scheme case-insensitive).
bool is_http_url(std::string_view url);
/// True for `file:` URLs.
bool is_file_url(std::string_view url);
/// True when `text` starts with an RFC 3986 scheme followed by ':'.
bool has_url_scheme(std::string_view text);

/// Decodes %XX escapes; malformed escapes are kept as written.
std::string percent_decode(std::string_view text);
/// Escapes bytes that may not appear in a URL path (space, '#', '?', '%', non-ASCII, ...).
std::string percent_encode_path(std::string_view path);

/// The local path of a `file:` URL (`file:///a/b`, `file://localhost/a/b`, `file:/a/b`),
/// percent-decoded; nullopt for other URLs or a remote host.
std::optional<std::string> file_url_to_path(std::string_view url);
/// `file://` + the percent-encoded absolute path.
std::string path_to_file_url(std::string_view absolute_path);

/// Resolves `reference` against `base`. When `base` has a scheme this is RFC 3986 §5.2
/// (with dot-segment removal); otherwise `base` is a local file path and `reference` a path
/// relative to its folder (percent-decoded), unless `reference` is itself a URL or absolute.
std::string resolve_url(std::string_view base, std::string_view reference);

/// `url` without its `#fragment`.
std::string_view strip_fragment(std::string_view url);
/// The fragment of `url` ("" when none).
std::string_view url_fragment(std::string_view url);

/// Parses a hash given as `<name>=<hex>` (a PEP 503 fragment or a PEP 658 attribute value):
/// lower-cases the name and the hex digits; nullopt when malformed (no '=', empty parts, or a
/// digest that is not hexadecimal).
std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view text);

/// The last path segment of a URL or path, without query and fragment, percent-decoded.
std::string url_filename(std::string_view url);

/// `url` with a trailing '/' added when it has none (simple-index base URLs).
std::string with_trailing_slash(std::string_view url);

}  // namespace wv::index
