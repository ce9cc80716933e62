#include "src/base/str.h"

namespace wv {

std::string_view trim_left(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size() && is_ascii_space(text[begin])) ++begin;
  return text.substr(begin);
}

std::string_view trim_right(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0 && is_ascii_space(text[end - 1])) --end;
  return text.substr(0, end);
}

std::string_view trim(std::string_view text) { return trim_right(trim_left(text)); }

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find(separator, start);
    if (at == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> pieces;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_ascii_space(text[i])) ++i;
    std::size_t start = i;
    while (i < text.size() && !is_ascii_space(text[i])) ++i;
    if (i > start) pieces.push_back(text.substr(start, i - start));
  }
  return pieces;
}

template <class Piece>
static std::string join_pieces(const std::vector<Piece>& pieces, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) out.append(separator);
    out.append(pieces[i]);
  }
  return out;
}

std::string join(const std::vector<std::string>& pieces, std::string_view separator) {
  return join_pieces(pieces, separator);
}

std::string join(const std::vector<std::string_view>& pieces, std::string_view separator) {
  return join_pieces(pieces, separator);
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = to_ascii_lower(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (to_ascii_lower(a[i]) != to_ascii_lower(b[i])) return false;
  }
  return true;
}

std::optional<std::uint64_t> parse_uint64(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : digits) {
    if (!is_ascii_digit(c)) return std::nullopt;
    std::uint64_t digit = std::uint64_t(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}


std::string join_backticked(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(in_backticks(name));
  return join(quoted, ", ");
}

std::string counted(std::size_t count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

std::string in_backticks(std::string_view text) { return str_cat("`", text, "`"); }

namespace {
void append_escaped(std::string& out, unsigned char byte) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}
}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c0 = (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f;
    // A C1 control as UTF-8 is two bytes; some terminals act on it (U+009B is CSI).
    const bool c1 = byte == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (c1) {
      append_escaped(out, byte);
      append_escaped(out, static_cast<unsigned char>(text[++i]));
    } else if (c0) {
      append_escaped(out, byte);
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace wv
