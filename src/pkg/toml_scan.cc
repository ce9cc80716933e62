#include "src/pkg/toml_scan.h"

#include "src/base/str.h"

namespace wv::pkg::toml_scan {
namespace {

bool is_bare_key_char(char c) { return is_ascii_alnum(c) || c == '-' || c == '_'; }

// A cursor over the text with the error reporting every step shares.
class Scanner {
 public:
  Scanner(std::string_view text, std::string_view path) : text_(text), path_(path) {}

  std::size_t pos = 0;

  bool at_end() const { return pos >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos + ahead < text_.size() ? text_[pos + ahead] : '\0';
  }
  bool starts_with(std::string_view piece) const {
    return text_.substr(pos, piece.size()) == piece;
  }

  Error error(std::string_view what) const { return error_at(pos, what); }
  Error error_at(std::size_t offset, std::string_view what) const {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return make_error(ErrorCode::kParse, str_cat(in_backticks(path_), ":", line, ":", column,
                                                 ": ", what));
  }

  // Spaces and tabs.
  void skip_blanks() {
    while (peek() == ' ' || peek() == '\t') ++pos;
  }
  // Blanks, line endings and comments: the gaps inside arrays and between statements.
  void skip_gaps() {
    while (!at_end()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos;
      } else if (c == '#') {
        skip_comment();
      } else {
        return;
      }
    }
  }
  void skip_comment() {
    while (!at_end() && peek() != '\n') ++pos;
  }
  // The rest of a statement's line: blanks, a comment, the line ending.
  Result<void> finish_line() {
    skip_blanks();
    if (peek() == '#') skip_comment();
    if (peek() == '\r') ++pos;
    if (at_end()) return {};
    if (peek() != '\n') return error("expected the end of the line");
    ++pos;
    return {};
  }

  // A string of any of the four kinds at `pos`; its decoded value (escapes beyond the simple
  // ones are kept as written: names and requirements do not use them).
  Result<std::string> string() {
    const std::size_t start = pos;
    const char quote = peek();
    const bool multi_line = starts_with(quote == '"' ? "\"\"\"" : "'''");
    const bool literal = quote == '\'';
    pos += multi_line ? 3 : 1;
    std::string value;
    while (true) {
      if (at_end()) return error_at(start, "unterminated string");
      char c = peek();
      if (multi_line) {
        if (starts_with(literal ? "'''" : "\"\"\"")) {
          // Up to two more quotes before the closing three belong to the string.
          std::size_t run = 0;
          while (peek(run) == quote && run < 5) ++run;
          value.append(run - 3, quote);
          pos += run;
          return value;
        }
      } else {
        if (c == quote) {
          ++pos;
          return value;
        }
        if (c == '\n') return error_at(start, "unterminated string");
      }
      if (!literal && c == '\\') {
        char next = peek(1);
        switch (next) {
          case 'n': value += '\n'; break;
          case 't': value += '\t'; break;
          case '"': value += '"'; break;
          case '\\': value += '\\'; break;
          default: value += c; value += next; break;
        }
        pos += 2;
        continue;
      }
      value += c;
      ++pos;
    }
  }

  // One key part: bare, "basic" or 'literal'.
  Result<std::string> key_part() {
    char c = peek();
    if (c == '"' || c == '\'') {
      if (starts_with("\"\"\"") || starts_with("'''")) return error("a key cannot be multi-line");
      return string();
    }
    const std::size_t start = pos;
    while (is_bare_key_char(peek())) ++pos;
    if (pos == start) return error("expected a key");
    return std::string(text_.substr(start, pos - start));
  }

  // A dotted key: `a`, `a.b`, `"a.b" . c`.
  Result<std::vector<std::string>> key() {
    std::vector<std::string> parts;
    while (true) {
      skip_blanks();
      WV_ASSIGN_OR_RETURN(std::string part, key_part());
      parts.push_back(std::move(part));
      skip_blanks();
      if (peek() != '.') return parts;
      ++pos;
    }
  }

  // A value at `pos`; key/values inside inline tables are recorded under `prefix`.
  Result<void> value(const std::vector<std::string>& prefix, std::size_t section,
                     std::vector<KeyValue>& values) {
    // Arrays and inline tables nest by recursion: bounded, as toml++ bounds it.
    if (depth_ >= kMaxDepth) return error("arrays and inline tables nested too deeply");
    ++depth_;
    Result<void> scanned = nested_value(prefix, section, values);
    --depth_;
    return scanned;
  }

  Result<void> nested_value(const std::vector<std::string>& prefix, std::size_t section,
                            std::vector<KeyValue>& values) {
    const std::size_t opening = pos;
    char c = peek();
    if (c == '"' || c == '\'') {
      WV_TRY(string());
      return {};
    }
    if (c == '[') {
      ++pos;
      while (true) {
        skip_gaps();
        if (at_end()) return error_at(opening, "unterminated array");
        if (peek() == ']') {
          ++pos;
          return {};
        }
        WV_TRY(value(prefix, section, values));
        skip_gaps();
        if (peek() == ',') {
          ++pos;
        } else if (peek() != ']') {
          return error("expected `,` or `]` in an array");
        }
      }
    }
    if (c == '{') {
      ++pos;
      while (true) {
        skip_gaps();
        if (at_end()) return error_at(opening, "unterminated inline table");
        if (peek() == '}') {
          ++pos;
          return {};
        }
        WV_TRY(key_value(prefix, section, true, values));
        skip_gaps();
        if (peek() == ',') {
          ++pos;
        } else if (peek() != '}') {
          return error("expected `,` or `}` in an inline table");
        }
      }
    }
    // A number, boolean or date: up to what ends a value (a date's inner space included).
    const std::size_t start = pos;
    while (!at_end()) {
      char d = peek();
      if (d == ',' || d == ']' || d == '}' || d == '#' || d == '\n' || d == '\r') break;
      ++pos;
    }
    while (pos > start && (text_[pos - 1] == ' ' || text_[pos - 1] == '\t')) --pos;
    if (pos == start) return error("expected a value");
    return {};
  }

  Result<void> key_value(const std::vector<std::string>& prefix, std::size_t section,
                         bool in_inline_table, std::vector<KeyValue>& values) {
    KeyValue entry;
    entry.key_begin = pos;
    WV_ASSIGN_OR_RETURN(std::vector<std::string> parts, key());
    if (peek() != '=') return error("expected `=` after a key");
    ++pos;
    skip_blanks();
    entry.path = prefix;
    entry.path.insert(entry.path.end(), parts.begin(), parts.end());
    entry.key_parts = parts.size();
    entry.section = section;
    entry.in_inline_table = in_inline_table;
    entry.value_begin = pos;
    const std::size_t index = values.size();
    values.push_back(entry);
    // A copy: `values` grows (and moves) while the value's inner key/values are recorded.
    const std::vector<std::string> path = values[index].path;
    WV_TRY(value(path, section, values));
    values[index].value_end = pos;
    return {};
  }

 private:
  static constexpr int kMaxDepth = 256;
  std::string_view text_;
  std::string_view path_;
  int depth_ = 0;
};

}  // namespace

std::size_t line_begin(std::string_view text, std::size_t position) {
  std::size_t newline = position == 0 ? kNone : text.rfind('\n', position - 1);
  return newline == kNone ? 0 : newline + 1;
}

std::size_t line_end(std::string_view text, std::size_t position) {
  std::size_t newline = text.find('\n', position);
  return newline == kNone ? text.size() : newline + 1;
}

Result<Document> scan(std::string_view text, std::string_view path) {
  Document document;
  std::size_t first_newline = text.find('\n');
  if (first_newline != kNone && first_newline > 0 && text[first_newline - 1] == '\r') {
    document.eol = "\r\n";
  }
  document.sections.push_back(Section{});
  Scanner scanner(text, path);
  while (true) {
    scanner.skip_gaps();
    if (scanner.at_end()) break;
    const std::size_t start = scanner.pos;
    if (scanner.peek() == '[') {
      Section section;
      section.header_begin = start;
      section.array_of_tables = scanner.starts_with("[[");
      scanner.pos += section.array_of_tables ? 2 : 1;
      WV_ASSIGN_OR_RETURN(section.path, scanner.key());
      if (!scanner.starts_with(section.array_of_tables ? "]]" : "]")) {
        return scanner.error("expected `]` after a table header");
      }
      scanner.pos += section.array_of_tables ? 2 : 1;
      WV_TRY(scanner.finish_line());
      section.body_begin = scanner.pos;
      section.content_end = scanner.pos;
      document.sections.push_back(std::move(section));
      continue;
    }
    const std::size_t section = document.sections.size() - 1;
    const std::size_t index = document.values.size();
    WV_TRY(scanner.key_value(document.sections[section].path, section, false, document.values));
    WV_TRY(scanner.finish_line());
    document.values[index].line_begin = line_begin(text, start);
    document.values[index].line_end = scanner.pos;
    document.sections[section].content_end = scanner.pos;
  }
  return document;
}

Result<Array> scan_array(std::string_view text, std::size_t open, std::string_view path) {
  Scanner scanner(text, path);
  scanner.pos = open;
  if (scanner.peek() != '[') return scanner.error("expected an array");
  Array array;
  array.open = open;
  ++scanner.pos;
  std::vector<KeyValue> ignored;
  while (true) {
    scanner.skip_gaps();
    if (scanner.at_end()) return scanner.error_at(open, "unterminated array");
    if (scanner.peek() == ']') {
      array.close = scanner.pos;
      return array;
    }
    ArrayItem item;
    item.begin = scanner.pos;
    char c = scanner.peek();
    if (c == '"' || c == '\'') {
      WV_ASSIGN_OR_RETURN(std::string value, scanner.string());
      item.string_value = std::move(value);
    } else {
      WV_TRY(scanner.value({}, 0, ignored));
    }
    item.end = scanner.pos;
    scanner.skip_gaps();
    if (scanner.peek() == ',') {
      item.comma = scanner.pos;
      ++scanner.pos;
    } else if (scanner.peek() != ']') {
      return scanner.error("expected `,` or `]` in an array");
    }
    array.items.push_back(std::move(item));
  }
}

Result<InlineTable> scan_inline_table(std::string_view text, std::size_t open,
                                      std::string_view path) {
  Scanner scanner(text, path);
  scanner.pos = open;
  if (scanner.peek() != '{') return scanner.error("expected an inline table");
  InlineTable table;
  table.open = open;
  ++scanner.pos;
  std::vector<KeyValue> ignored;
  while (true) {
    scanner.skip_gaps();
    if (scanner.at_end()) return scanner.error_at(open, "unterminated inline table");
    if (scanner.peek() == '}') {
      table.close = scanner.pos;
      return table;
    }
    InlineEntry entry;
    entry.begin = scanner.pos;
    WV_TRY(scanner.key_value({}, 0, true, ignored));
    entry.end = scanner.pos;
    scanner.skip_gaps();
    if (scanner.peek() == ',') {
      entry.comma = scanner.pos;
      ++scanner.pos;
    } else if (scanner.peek() != '}') {
      return scanner.error("expected `,` or `}` in an inline table");
    }
    table.entries.push_back(entry);
  }
}

std::string format_key(std::string_view key) {
  bool bare = !key.empty();
  for (char c : key) bare = bare && is_bare_key_char(c);
  return bare ? std::string(key) : format_string(key);
}

std::string format_string(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace wv::pkg::toml_scan
