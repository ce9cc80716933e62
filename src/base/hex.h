// Hexadecimal text: the one digit table wvlock reads and writes, and the one test for a SHA-256
// digest as the lockfile, the caches and the index metadata write it. Cheap to include.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv {

/// The value of one hexadecimal digit (either case); -1 for any other character. Inline: index
/// pages carry two 64-digit digests a file, checked a character at a time.
constexpr int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Lower-case hexadecimal of bytes, two digits a byte.
std::string hex_encode(std::string_view bytes);

/// The bytes that `hex` spells (digits of either case); nullopt for an odd length or a
/// character that is not a hexadecimal digit.
std::optional<std::string> hex_decode(std::string_view hex);

/// True for exactly 64 lower-case hexadecimal digits: a SHA-256 as wvlock stores it (cache
/// keys and file names are compared as text, so upper case is not the same key).
bool is_hex64(std::string_view text);

}  // namespace wv
