#include "src/pkg/marker_lexer.h"

#include <array>
#include <cstdint>

#include "src/base/hex.h"
#include "src/base/str.h"
#include "src/pkg/version_text.h"

namespace wv::pkg::detail {
namespace {

char lower(char c) { return to_ascii_lower(c); }

// Case-insensitive literal at `at`.
bool starts_with_nocase(std::string_view s, std::size_t at, std::string_view word) {
  if (at > s.size() || s.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(s[at + i]) != word[i]) return false;
  }
  return true;
}

std::size_t count_digits(std::string_view s, std::size_t at) {
  std::size_t n = 0;
  while (at + n < s.size() && is_ascii_digit(s[at + n])) ++n;
  return n;
}

bool is_separator(std::string_view s, std::size_t at) {
  return at < s.size() && (s[at] == '-' || s[at] == '_' || s[at] == '.');
}

// The pieces of packaging's version regex that the specifier branches share. Each returns the
// new position (unchanged when the optional piece does not match), as the regex's greedy,
// first-match semantics give it.

// `(?:[0-9]+!)?`
std::size_t match_epoch(std::string_view s, std::size_t at) {
  std::size_t digits = count_digits(s, at);
  if (digits > 0 && at + digits < s.size() && s[at + digits] == '!') return at + digits + 1;
  return at;
}

// `[0-9]+(?:\.[0-9]+)*` (or `+` instead of `*` when `at_least_two`); npos when no match.
std::size_t match_release(std::string_view s, std::size_t at, bool at_least_two) {
  std::size_t digits = count_digits(s, at);
  if (digits == 0) return std::string_view::npos;
  std::size_t end = at + digits;
  int parts = 1;
  while (end < s.size() && s[end] == '.') {
    std::size_t more = count_digits(s, end + 1);
    if (more == 0) break;
    end += 1 + more;
    ++parts;
  }
  if (at_least_two && parts < 2) return std::string_view::npos;
  return end;
}

// `[-_\.]?` then one of `words`, then `[-_\.]?[0-9]*`; unchanged when absent.
std::size_t match_lettered(std::string_view s, std::size_t at,
                           std::initializer_list<std::string_view> words) {
  for (int with_separator = 1; with_separator >= 0; --with_separator) {
    std::size_t start = at;
    if (with_separator) {
      if (!is_separator(s, start)) continue;
      ++start;
    }
    for (std::string_view word : words) {
      if (starts_with_nocase(s, start, word)) {
        std::size_t end = start + word.size();
        if (is_separator(s, end)) ++end;
        return end + count_digits(s, end);
      }
    }
  }
  return at;
}

std::size_t match_pre(std::string_view s, std::size_t at) {
  return match_lettered(s, at, {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"});
}

// `(?:-[0-9]+)|(?:[-_\.]?(post|rev|r)[-_\.]?[0-9]*)`
std::size_t match_post(std::string_view s, std::size_t at) {
  if (at < s.size() && s[at] == '-') {
    std::size_t digits = count_digits(s, at + 1);
    if (digits > 0) return at + 1 + digits;
  }
  return match_lettered(s, at, {"post", "rev", "r"});
}

std::size_t match_dev(std::string_view s, std::size_t at) { return match_lettered(s, at, {"dev"}); }

// `(?:\+[a-z0-9]+(?:[-_\.][a-z0-9]+)*)?`, case-insensitive.
std::size_t match_local(std::string_view s, std::size_t at) {
  auto alnum_run = [&](std::size_t from) {
    std::size_t n = 0;
    while (from + n < s.size() && is_ascii_alnum(s[from + n])) ++n;
    return n;
  };
  if (at >= s.size() || s[at] != '+') return at;
  std::size_t first = alnum_run(at + 1);
  if (first == 0) return at;
  std::size_t end = at + 1 + first;
  while (is_separator(s, end)) {
    std::size_t more = alnum_run(end + 1);
    if (more == 0) break;
    end += 1 + more;
  }
  return end;
}

// `\s*v?(?:[0-9]+!)?` then the release; npos when the release is missing.
std::size_t match_version_start(std::string_view s, std::size_t at, bool at_least_two) {
  // `\s*` of a str pattern: Unicode spaces too (U+2003 is three bytes).
  while (std::size_t n = python_space_length(s, at)) at += n;
  if (at < s.size() && lower(s[at]) == 'v') ++at;
  at = match_epoch(s, at);
  return match_release(s, at, at_least_two);
}

}  // namespace

bool is_word_byte(char c) {
  return is_ascii_alnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

// packaging 26's END token is `\Z`: the very end (23.0's `$` also allowed one newline).
bool Cursor::at_end() const { return position_ == source_.size(); }

bool Cursor::boundary_before(std::size_t at) const {
  return at == 0 || !is_word_byte(source_[at - 1]);
}

bool Cursor::boundary_after(std::size_t end) const {
  bool left = end > 0 && is_word_byte(source_[end - 1]);
  bool right = end < source_.size() && is_word_byte(source_[end]);
  return left != right;
}

std::size_t Cursor::match_whitespace() const {
  std::size_t n = 0;
  while (position_ + n < source_.size() &&
         (source_[position_ + n] == ' ' || source_[position_ + n] == '\t')) {
    ++n;
  }
  return n;
}

std::size_t Cursor::match_keyword(std::string_view word) const {
  if (source_.substr(position_, word.size()) != word) return 0;
  if (!boundary_before(position_) || !boundary_after(position_ + word.size())) return 0;
  return word.size();
}

std::size_t Cursor::match_boolean_operator() const {
  if (std::size_t n = match_keyword("or")) return n;
  return match_keyword("and");
}

std::size_t Cursor::match_comparison_operator() const {
  static constexpr std::array<std::string_view, 8> kOperators = {"===", "==", "~=", "!=",
                                                                  "<=",  ">=", "<",  ">"};
  for (std::string_view op : kOperators) {
    if (source_.substr(position_, op.size()) == op) return op.size();
  }
  return 0;
}

std::size_t Cursor::match_quoted_string() const {
  if (position_ >= source_.size()) return 0;
  char quote = source_[position_];
  if (quote != '\'' && quote != '"') return 0;
  std::size_t close = source_.find(quote, position_ + 1);
  if (close == std::string_view::npos) return 0;
  return close + 1 - position_;
}

std::size_t Cursor::match_variable() const {
  // '|' stands for `[._]` (the dotted legacy spellings).
  static constexpr std::array<std::string_view, 19> kNames = {
      "python_version",      "python_full_version",   "os|name",
      "sys|platform",        "platform_release",      "platform_system",
      "platform|version",    "platform|machine",      "platform|python_implementation",
      "python_implementation", "implementation_name", "implementation_version",
      "extra",               "extras",                "dependency_groups",
      "variant_label",       "variant_properties",    "variant_features",
      "variant_namespaces"};
  if (position_ >= source_.size() || !boundary_before(position_)) return 0;
  for (std::string_view name : kNames) {
    if (source_.size() - position_ < name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      char c = source_[position_ + i];
      same = name[i] == '|' ? (c == '.' || c == '_') : c == name[i];
    }
    if (same && boundary_after(position_ + name.size())) return name.size();
  }
  return 0;
}

std::size_t Cursor::match_identifier() const {
  if (position_ >= source_.size() || !is_ascii_alnum(source_[position_]) ||
      !boundary_before(position_)) {
    return 0;
  }
  std::size_t end = position_ + 1;
  while (end < source_.size() && (is_ascii_alnum(source_[end]) || source_[end] == '.' ||
                                  source_[end] == '_' || source_[end] == '-')) {
    ++end;
  }
  // The regex backtracks until `\b` holds after the match.
  for (; end > position_; --end) {
    if (boundary_after(end)) return end - position_;
  }
  return 0;
}

std::size_t Cursor::match_url() const {
  std::size_t n = 0;
  while (position_ + n < source_.size() && source_[position_ + n] != ' ' &&
         source_[position_ + n] != '\t') {
    ++n;
  }
  return n;
}

std::size_t Cursor::match_specifier() const {
  const std::string_view s = source_;
  const std::size_t at = position_;
  // The operator alternation in regex order; a later alternative is tried when the version
  // part fails after an earlier one (backtracking), e.g. `==` before `===`.
  static constexpr std::array<std::string_view, 8> kOperators = {"~=", "==", "!=", "<=",
                                                                  ">=", "<",  ">",  "==="};
  for (std::string_view op : kOperators) {
    if (s.substr(at, op.size()) != op) continue;
    const std::size_t start = at + op.size();
    // The lookbehinds look at the two or three characters before `start`.
    auto ends_with = [&](std::string_view tail) {
      return start >= tail.size() && s.substr(start - tail.size(), tail.size()) == tail;
    };
    if (ends_with("===")) {  // arbitrary equality: `\s*[^\s;)]*`
      std::size_t end = start;
      while (std::size_t n = python_space_length(s, end)) end += n;
      while (end < s.size() && python_space_length(s, end) == 0 && s[end] != ';' &&
             s[end] != ')') {
        ++end;
      }
      return end - at;
    }
    if (ends_with("==") || ends_with("!=")) {
      std::size_t end = match_version_start(s, start, false);
      if (end == std::string_view::npos) continue;
      if (end + 1 < s.size() && s[end] == '.' && s[end + 1] == '*') return end + 2 - at;
      end = match_local(s, match_dev(s, match_post(s, match_pre(s, end))));
      return end - at;
    }
    const bool compatible = ends_with("~=");
    std::size_t end = match_version_start(s, start, compatible);
    if (end == std::string_view::npos) continue;
    end = match_dev(s, match_post(s, match_pre(s, end)));
    return end - at;
  }
  return 0;
}

Error Cursor::error(std::string_view what, std::size_t offset, std::string_view expected) const {
  return make_parse_error(what, source_, offset, expected);
}

namespace {

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

Error string_error(std::string_view token, std::string_view why) {
  return make_error(ErrorCode::kParse,
                    str_cat("invalid string literal ", in_backticks(token), ": ", why));
}

}  // namespace

Result<std::string> python_string_value(std::string_view token) {
  WV_CHECK(token.size() >= 2, "python_string_value needs a quoted token");
  std::string_view body = token.substr(1, token.size() - 2);
  if (body.find('\0') != std::string_view::npos) {
    return string_error(token, "a NUL byte is not allowed");  // Python refuses such source
  }
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\n' || c == '\r') return string_error(token, "a line break ends the string early");
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i + 1 >= body.size()) {
      return string_error(token, "the final backslash escapes the closing quote");
    }
    char e = body[++i];
    switch (e) {
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '\n': break;  // line continuation
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
        break;
      case 'x':
      case 'u':
      case 'U': {
        std::size_t width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        std::uint32_t code = 0;
        for (std::size_t k = 0; k < width; ++k) {
          int digit = i + 1 + k < body.size() ? hex_value(body[i + 1 + k]) : -1;
          if (digit < 0) {
            return string_error(token, str_cat("truncated \\", std::string(1, e), " escape"));
          }
          code = code * 16 + static_cast<std::uint32_t>(digit);
        }
        i += width;
        if (code > 0x10FFFF) return string_error(token, "escape beyond U+10FFFF");
        append_utf8(out, code);
        break;
      }
      case 'N':
        return string_error(token, "named escapes `\\N{...}` are not supported");
      default:
        if (e >= '0' && e <= '7') {
          std::uint32_t code = static_cast<std::uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
               ++k) {
            code = code * 8 + static_cast<std::uint32_t>(body[++i] - '0');
          }
          append_utf8(out, code);
        } else {
          out.push_back('\\');  // Python keeps unknown escapes as written
          out.push_back(e);
        }
    }
  }
  return out;
}

}  // namespace wv::pkg::detail
