// Percent-encoding (RFC 3986 §2.1), one encoder for every URL wvlock composes: paths of file
// URLs, user info of index URLs. Cheap to include.
#pragma once

#include <string>
#include <string_view>

namespace wv {

/// `text` with every byte but the unreserved ones (ASCII letters, digits, `-._~`) and those in
/// `keep` written as `%XX` (upper-case hex).
std::string percent_encode(std::string_view text, std::string_view keep = "");

}  // namespace wv
