// The subset TOML parser (base/toml_subset.h): one pass over the text, no recursion deeper than
// 16, a handful of allocations per table. Every doubt is an answer of "not mine": a construct
// outside the subset and every error go to the full parser, so this parser only has to be right
// about what it accepts (fuzz/lock_toml_fuzz.cc compares it with the full parser).
#include "src/base/toml_subset.h"

#include <string>

#include "src/base/hex.h"

namespace wv {
namespace {

constexpr std::size_t kMaxHeaderKeys = 16;
constexpr int kMaxValueDepth = 16;
constexpr std::size_t kMaxMembers = 256;

// TomlNode::origin: how a table or an array was made, which decides what a header may do to it.
enum Origin : std::uint8_t {
  kValue = 0,       // a key's value (a static array, a scalar)
  kImplicit,        // a table made on the way to a header's last key: a header may define it
  kExplicit,        // a table a header defined
  kArrayElement,    // a table of an array of tables
  kInline,          // an inline table: closed to headers
  kTableArray,      // an array made by [[headers]]: a header appends, or enters its last table
};

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// A character allowed in a comment or a literal string (ASCII only in the subset).
bool is_plain_char(char c) { return c == '\t' || (c >= 0x20 && c < 0x7f); }

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(char(code));
  } else if (code < 0x800) {
    out.push_back(char(0xC0 | (code >> 6)));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(char(0xE0 | (code >> 12)));
    out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (code >> 18)));
    out.push_back(char(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::optional<TomlTree> parse() {
    current_ = &tree_.mutable_root();
    while (!at_end()) {
      if (!statement()) return std::nullopt;
    }
    tree_.finish();
    return std::move(tree_);
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  void skip_spaces() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  bool newline() {
    if (peek() == '\n') {
      ++pos_;
    } else if (peek() == '\r' && peek(1) == '\n') {
      pos_ += 2;
    } else {
      return false;
    }
    ++line_;
    return true;
  }

  // A comment runs to the line end; it has no control character but tab.
  bool comment() {
    ++pos_;  // '#'
    while (!at_end() && text_[pos_] != '\n') {
      if (text_[pos_] == '\r' && peek(1) == '\n') return true;
      if (!is_plain_char(text_[pos_])) return false;
      ++pos_;
    }
    return true;
  }

  /// Spaces, then an optional comment, then a line end or the end of the text.
  bool end_of_line() {
    skip_spaces();
    if (peek() == '#' && !comment()) return false;
    return at_end() || newline();
  }

  /// Spaces, comments and line ends, as between an array's items.
  bool skip_blank() {
    for (;;) {
      skip_spaces();
      if (peek() == '#') {
        if (!comment()) return false;
      } else if (peek() == '\n' || peek() == '\r') {
        if (!newline()) return false;
      } else {
        return true;
      }
    }
  }

  // One line: blank, a comment, a header or a key/value pair.
  bool statement() {
    skip_spaces();
    if (at_end()) return true;
    const char c = peek();
    if (c == '\n' || c == '\r') return newline();
    if (c == '#') return comment() && (at_end() || newline());
    if (c == '[') return header() && end_of_line();
    return key_value(*current_) && end_of_line();
  }

  bool key(std::string_view& out) {
    const char c = peek();
    if (c == '"') return basic_string(out) && !out.empty();
    if (c == '\'') return literal_string(out) && !out.empty();
    const std::size_t start = pos_;
    while (!at_end() && is_bare_key_char(text_[pos_])) ++pos_;
    out = text_.substr(start, pos_ - start);
    return !out.empty();
  }

  static TomlNode* member(TomlNode& table, std::string_view key) {
    for (auto& [name, node] : table.members) {
      if (name == key) return const_cast<TomlNode*>(node);
    }
    return nullptr;
  }

  static bool insert(TomlNode& table, std::string_view key, const TomlNode* node) {
    if (table.members.size() >= kMaxMembers || member(table, key)) return false;
    table.members.emplace_back(key, node);
    return true;
  }

  bool header() {
    const int line = line_;
    ++pos_;  // '['
    const bool array = peek() == '[';
    if (array) ++pos_;
    std::string_view keys[kMaxHeaderKeys];
    std::size_t count = 0;
    for (;;) {
      skip_spaces();
      if (count == kMaxHeaderKeys || !key(keys[count++])) return false;
      skip_spaces();
      if (peek() != '.') break;
      ++pos_;
    }
    if (peek() != ']') return false;
    ++pos_;
    if (array) {
      if (peek() != ']') return false;
      ++pos_;
    }
    TomlNode* table = &tree_.mutable_root();
    for (std::size_t i = 0; i + 1 < count; ++i) {
      table = enter(*table, keys[i], line);
      if (!table) return false;
    }
    current_ = array ? append_table(*table, keys[count - 1], line)
                     : define_table(*table, keys[count - 1], line);
    return current_ != nullptr;
  }

  // A header's key before its last: an existing table (not inline), the last table of an array
  // of tables, or a new implicit table.
  TomlNode* enter(TomlNode& table, std::string_view key, int line) {
    TomlNode* node = member(table, key);
    if (!node) {
      node = &tree_.add(TomlKind::kTable, line);
      node->origin = kImplicit;
      return insert(table, key, node) ? node : nullptr;
    }
    if (node->is_table()) return node->origin == kInline ? nullptr : node;
    if (node->is_array() && node->origin == kTableArray) {
      return const_cast<TomlNode*>(node->items.back());
    }
    return nullptr;
  }

  // `[a.b]`'s last key: a new table, or an implicit one that this header now defines.
  TomlNode* define_table(TomlNode& table, std::string_view key, int line) {
    TomlNode* node = member(table, key);
    if (node) {
      if (!node->is_table() || node->origin != kImplicit) return nullptr;
      node->origin = kExplicit;
      node->line = line;
      return node;
    }
    node = &tree_.add(TomlKind::kTable, line);
    node->origin = kExplicit;
    return insert(table, key, node) ? node : nullptr;
  }

  // `[[a.b]]`'s last key: a new table appended to a new or existing array of tables.
  TomlNode* append_table(TomlNode& table, std::string_view key, int line) {
    TomlNode* array = member(table, key);
    if (!array) {
      array = &tree_.add(TomlKind::kArray, line);
      array->origin = kTableArray;
      if (!insert(table, key, array)) return nullptr;
    } else if (!array->is_array() || array->origin != kTableArray) {
      return nullptr;
    }
    TomlNode* element = &tree_.add(TomlKind::kTable, line);
    element->origin = kArrayElement;
    array->items.push_back(element);
    return element;
  }

  bool key_value(TomlNode& table, int depth = 0) {
    std::string_view name;
    if (!key(name)) return false;
    skip_spaces();
    if (peek() != '=') return false;  // a dotted key included
    ++pos_;
    skip_spaces();
    const TomlNode* node = value(depth);
    return node && insert(table, name, node);
  }

  const TomlNode* value(int depth) {
    if (depth >= kMaxValueDepth) return nullptr;
    const char c = peek();
    TomlNode* node = nullptr;
    if (c == '"' || c == '\'') {
      std::string_view text;
      if (!(c == '"' ? basic_string(text) : literal_string(text))) return nullptr;
      node = &tree_.add(TomlKind::kString, line_);
      node->text = text;
      return node;
    }
    if (c == '[') return array(depth);
    if (c == '{') return inline_table(depth);
    if (c == 't' || c == 'f') return boolean();
    if (is_digit(c) || c == '-') return number();
    return nullptr;
  }

  // A scalar ends at a space, a separator, a comment or the line's end.
  bool at_terminator() const {
    const char c = peek();
    return at_end() || c == ' ' || c == '\t' || c == ',' || c == ']' || c == '}' || c == '#' ||
           c == '\n' || c == '\r';
  }

  bool basic_string(std::string_view& out) {
    if (peek(1) == '"' && peek(2) == '"') return false;  // multi-line
    const std::size_t start = ++pos_;
    std::string decoded;
    bool escaped = false;
    for (;;) {
      if (at_end()) return false;
      const char c = text_[pos_];
      if (c == '"') break;
      if (c == '\\') {
        if (!escaped) decoded.assign(text_.substr(start, pos_ - start));
        escaped = true;
        if (!escape(decoded)) return false;
        continue;
      }
      if (!is_plain_char(c)) return false;
      if (escaped) decoded.push_back(c);
      ++pos_;
    }
    out = escaped ? tree_.keep(std::move(decoded)) : text_.substr(start, pos_ - start);
    ++pos_;  // closing quote
    return true;
  }

  bool escape(std::string& out) {
    const char c = peek(1);
    pos_ += 2;
    switch (c) {
      case 'b': out.push_back('\b'); return true;
      case 't': out.push_back('\t'); return true;
      case 'n': out.push_back('\n'); return true;
      case 'f': out.push_back('\f'); return true;
      case 'r': out.push_back('\r'); return true;
      case '"': out.push_back('"'); return true;
      case '\\': out.push_back('\\'); return true;
      case 'u': return unicode_escape(4, out);
      case 'U': return unicode_escape(8, out);
      default: return false;
    }
  }

  bool unicode_escape(int digits, std::string& out) {
    std::uint32_t code = 0;
    for (int i = 0; i < digits; ++i) {
      const int digit = hex_value(peek());
      if (digit < 0) return false;
      code = code * 16 + std::uint32_t(digit);
      ++pos_;
    }
    if ((code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return false;
    append_utf8(out, code);
    return true;
  }

  bool literal_string(std::string_view& out) {
    if (peek(1) == '\'' && peek(2) == '\'') return false;  // multi-line
    const std::size_t start = ++pos_;
    while (!at_end() && text_[pos_] != '\'') {
      if (!is_plain_char(text_[pos_])) return false;
      ++pos_;
    }
    if (at_end()) return false;
    out = text_.substr(start, pos_ - start);
    ++pos_;
    return true;
  }

  const TomlNode* boolean() {
    const bool flag = peek() == 't';
    const std::string_view word = flag ? "true" : "false";
    if (text_.substr(pos_, word.size()) != word) return nullptr;
    pos_ += word.size();
    if (!at_terminator()) return nullptr;
    TomlNode& node = tree_.add(TomlKind::kBoolean, line_);
    node.boolean = flag;
    return &node;
  }

  // A decimal integer, or an offset date-time (which starts with four digits and a '-').
  const TomlNode* number() {
    const std::size_t start = pos_;
    const bool negative = peek() == '-';
    if (negative) ++pos_;
    std::size_t digits = 0;
    while (is_digit(peek())) ++pos_, ++digits;
    if (!negative && digits == 4 && peek() == '-') {
      pos_ = start;
      return date_time();
    }
    if (digits == 0 || digits > 18 || !at_terminator()) return nullptr;
    if (digits > 1 && text_[start + (negative ? 1 : 0)] == '0') return nullptr;
    std::int64_t value = 0;
    for (std::size_t i = start + (negative ? 1 : 0); i < pos_; ++i) value = value * 10 + (text_[i] - '0');
    TomlNode& node = tree_.add(TomlKind::kInteger, line_);
    node.integer = negative ? -value : value;
    return &node;
  }

  /// `count` digits as a number, or -1.
  int fixed_digits(int count) {
    int value = 0;
    for (int i = 0; i < count; ++i) {
      if (!is_digit(peek())) return -1;
      value = value * 10 + (text_[pos_++] - '0');
    }
    return value;
  }

  bool expect(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  // YYYY-MM-DDTHH:MM:SS[.F{1,9}](Z|+HH:MM|-HH:MM), with the full parser's range checks.
  const TomlNode* date_time() {
    const int year = fixed_digits(4);
    if (!expect('-')) return nullptr;
    const int month = fixed_digits(2);
    if (!expect('-')) return nullptr;
    const int day = fixed_digits(2);
    if (!expect('T')) return nullptr;
    const int hour = fixed_digits(2);
    if (!expect(':')) return nullptr;
    const int minute = fixed_digits(2);
    if (!expect(':')) return nullptr;
    const int second = fixed_digits(2);
    unsigned nanosecond = 0;
    if (peek() == '.') {
      ++pos_;
      int count = 0;
      for (; is_digit(peek()); ++count, ++pos_) {
        if (count == 9) return nullptr;
        nanosecond = nanosecond * 10 + unsigned(peek() - '0');
      }
      if (count == 0) return nullptr;
      for (; count < 9; ++count) nanosecond *= 10;
    }
    int offset = 0;
    if (peek() == 'Z') {
      ++pos_;
    } else if (peek() == '+' || peek() == '-') {
      const int sign = peek() == '-' ? -1 : 1;
      ++pos_;
      const int offset_hour = fixed_digits(2);
      if (!expect(':')) return nullptr;
      const int offset_minute = fixed_digits(2);
      if (offset_hour < 0 || offset_hour > 23 || offset_minute < 0 || offset_minute > 59) {
        return nullptr;
      }
      offset = sign * (offset_hour * 60 + offset_minute);
    } else {
      return nullptr;  // a local date-time
    }
    const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    const int days = month == 2 ? (leap ? 29 : 28)
                                : (month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > days || hour < 0 || hour > 23 ||
        minute < 0 || minute > 59 || second < 0 || second > 59 || !at_terminator()) {
      return nullptr;
    }
    TomlNode& node = tree_.add(TomlKind::kOffsetDateTime, line_);
    node.text = tree_.keep(
        toml_offset_date_time(year, month, day, hour, minute, second, nanosecond, offset));
    return &node;
  }

  const TomlNode* array(int depth) {
    TomlNode& node = tree_.add(TomlKind::kArray, line_);
    ++pos_;  // '['
    for (;;) {
      if (!skip_blank()) return nullptr;
      if (peek() == ']') break;
      const TomlNode* item = value(depth + 1);
      if (!item || !skip_blank()) return nullptr;
      node.items.push_back(item);
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ']') {
        return nullptr;
      }
    }
    ++pos_;  // ']'
    return &node;
  }

  // `{ k = v, ... }` on one line, no trailing comma.
  const TomlNode* inline_table(int depth) {
    TomlNode& node = tree_.add(TomlKind::kTable, line_);
    node.origin = kInline;
    ++pos_;  // '{'
    skip_spaces();
    if (peek() == '}') {
      ++pos_;
      return &node;
    }
    for (;;) {
      skip_spaces();
      if (!key_value(node, depth + 1)) return nullptr;
      skip_spaces();
      if (peek() == '}') break;
      if (peek() != ',') return nullptr;
      ++pos_;
    }
    ++pos_;  // '}'
    return &node;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  TomlTree tree_;
  TomlNode* current_ = nullptr;
};

}  // namespace

std::optional<TomlTree> parse_toml_subset(std::string_view text) { return Parser(text).parse(); }

}  // namespace wv
