// Percent-encoding (RFC 3986 §2.1), one encoder for every URL wvlock composes (paths of file
// URLs, user info of index URLs), and the one decoder of `file:` URLs: a link's path is decoded
// exactly once, here, whichever layer (index, lock, install, build) turns it into a path.
// Cheap to include.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv {

/// `text` with every byte but the unreserved ones (ASCII letters, digits, `-._~`) and those in
/// `keep` written as `%XX` (upper-case hex).
std::string percent_encode(std::string_view text, std::string_view keep = "");

/// Decodes %XX escapes; malformed escapes are kept as written.
std::string percent_decode(std::string_view text);

/// True for `file:` URLs (scheme case-insensitive).
bool is_file_url(std::string_view url);

/// The local path of a `file:` URL (`file:///a/b`, `file://localhost/a/b`, `file:/a/b`),
/// query and fragment dropped, percent-decoded once; nullopt for other URLs, another host, a
/// relative path or a path holding NUL.
std::optional<std::string> file_url_to_path(std::string_view url);

}  // namespace wv
