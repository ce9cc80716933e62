// Hexadecimal text: the one digit table wvlock reads and writes, and the one test for a SHA-256
// digest as the lockfile, the caches and the index metadata write it. Cheap to include.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv {

/// The value of one hexadecimal digit (either case); -1 for any other character.
int hex_value(char c);

/// Lower-case hexadecimal of bytes, two digits a byte.
std::string hex_encode(std::string_view bytes);

/// The bytes that `hex` spells (digits of either case); nullopt for an odd length or a
/// character that is not a hexadecimal digit.
std::optional<std::string> hex_decode(std::string_view hex);

/// True for exactly 64 lower-case hexadecimal digits: a SHA-256 as wvlock stores it (cache
/// keys and file names are compared as text, so upper case is not the same key).
bool is_hex64(std::string_view text);

}  // namespace wv
