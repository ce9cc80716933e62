// String helpers used across layers. Cheap to include.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wv {

inline bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_ascii_alnum(char c) { return is_ascii_digit(c) || is_ascii_alpha(c); }
inline char to_ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

/// Removes ASCII whitespace at both ends.
std::string_view trim(std::string_view text);
std::string_view trim_left(std::string_view text);
std::string_view trim_right(std::string_view text);

/// Splits on every `separator`; empty pieces are kept.
std::vector<std::string_view> split(std::string_view text, char separator);
/// Splits on runs of ASCII whitespace; no empty pieces.
std::vector<std::string_view> split_whitespace(std::string_view text);

std::string join(const std::vector<std::string>& pieces, std::string_view separator);
std::string join(const std::vector<std::string_view>& pieces, std::string_view separator);

std::string to_lower(std::string_view text);
bool iequals(std::string_view a, std::string_view b);

/// Parses a non-negative decimal integer (digits only, no sign); nullopt on overflow or junk.
std::optional<std::uint64_t> parse_uint64(std::string_view digits);

/// Wraps text in backticks for messages: `text`.
std::string in_backticks(std::string_view text);

/// `text` safe to show on a terminal: C0 control bytes but `\n` and `\t`, DEL, and the C1
/// controls U+0080..U+009F (UTF-8 `\xc2\x80`..) as visible `\xNN` escapes, so a subprocess's
/// output (a build backend's, git's) cannot move the cursor, retitle the window or recolour
/// the terminal. Everything else, UTF-8 included, is kept.
std::string printable_text(std::string_view text);

/// Each name in backticks, joined: "`a`, `b`" ("" for none).
std::string join_backticked(const std::vector<std::string>& names);

/// `count` with its noun, for count lines: "1 package", "3 packages".
std::string counted(std::size_t count, std::string_view one, std::string_view many);

/// Concatenates string-like pieces and integers.
inline void str_append(std::string& out, std::string_view piece) { out.append(piece); }
inline void str_append(std::string& out, const char* piece) { out.append(piece); }
inline void str_append(std::string& out, const std::string& piece) { out.append(piece); }
inline void str_append(std::string& out, char piece) { out.push_back(piece); }
template <class Integer>
  requires std::is_integral_v<Integer>
void str_append(std::string& out, Integer value) {
  out.append(std::to_string(value));
}
template <class... Pieces>
std::string str_cat(const Pieces&... pieces) {
  std::string out;
  (str_append(out, pieces), ...);
  return out;
}

}  // namespace wv
