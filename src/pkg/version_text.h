// Character classes of the regular expressions in packaging (PEP 440 parsing): Python's `\s`
// (str.isspace: ASCII whitespace, \x1c-\x1f and the Unicode spaces, read here as UTF-8) and
// strip(). Internal to src/pkg; cheap to include.
#pragma once

#include <cstddef>
#include <string_view>

namespace wv::pkg::detail {

/// Length in bytes of the Python whitespace character starting at `text[pos]`, or 0.
inline std::size_t python_space_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> unsigned char {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0;
  };
  const unsigned char c0 = byte(0);
  if (pos >= text.size()) return 0;
  if (c0 == ' ' || (c0 >= 0x09 && c0 <= 0x0d) || (c0 >= 0x1c && c0 <= 0x1f)) return 1;
  if (c0 == 0xc2) return (byte(1) == 0x85 || byte(1) == 0xa0) ? 2 : 0;  // U+0085, U+00A0
  if (c0 == 0xe1) return (byte(1) == 0x9a && byte(2) == 0x80) ? 3 : 0;  // U+1680
  if (c0 == 0xe2) {
    const unsigned char c1 = byte(1), c2 = byte(2);
    if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8a) || c2 == 0xa8 || c2 == 0xa9 || c2 == 0xaf))
      return 3;  // U+2000..U+200A, U+2028, U+2029, U+202F
    if (c1 == 0x81 && c2 == 0x9f) return 3;  // U+205F
    return 0;
  }
  if (c0 == 0xe3) return (byte(1) == 0x80 && byte(2) == 0x80) ? 3 : 0;  // U+3000
  return 0;
}

/// Length of the Python whitespace character that ends at `text[end - 1]`, or 0.
inline std::size_t python_space_length_before(std::string_view text, std::size_t end) {
  for (std::size_t length = 1; length <= 3 && length <= end; ++length) {
    if (python_space_length(text, end - length) == length) return length;
  }
  return 0;
}

/// Python's str.strip() with no argument.
inline std::string_view python_strip(std::string_view text) {
  std::size_t begin = 0;
  while (std::size_t n = python_space_length(text, begin)) begin += n;
  std::size_t end = text.size();
  while (end > begin) {
    const std::size_t n = python_space_length_before(text, end);
    if (n == 0 || end - n < begin) break;
    end -= n;
  }
  return text.substr(begin, end - begin);
}

}  // namespace wv::pkg::detail
