// A scanner of TOML text that finds where things are (byte offsets), for edits that must leave
// every other byte as written (pkg/pyproject_edit.h). It is not a TOML parser: it reads the
// layout — table headers, keys (dotted and quoted), values with their extent (strings of the
// four kinds, arrays, inline tables, scalars), comments and line endings — and decodes only
// keys and simple strings. Text that a real parser would refuse but whose layout is clear is
// scanned anyway; the edited file is parsed for real afterwards by whoever reads it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"

namespace wv::pkg::toml_scan {

inline constexpr std::size_t kNone = std::string_view::npos;

/// A table header and the lines after it up to the next header. Section 0 is the root: the
/// lines before the first header (it has no header and an empty path).
struct Section {
  std::vector<std::string> path;  ///< the header's keys, unquoted
  bool array_of_tables = false;   ///< `[[...]]`
  std::size_t header_begin = 0;   ///< where the header starts (0 for the root)
  std::size_t body_begin = 0;     ///< the start of the line after the header
  /// The end of the line (after its line ending) of the section's last key/value; body_begin
  /// when it has none.
  std::size_t content_end = 0;
};

/// One `key = value`, at the top of a section or inside an inline table.
struct KeyValue {
  /// The full path: the section's path, the inline tables' keys around it, then the dotted
  /// key's parts, each unquoted.
  std::vector<std::string> path;
  std::size_t key_parts = 1;  ///< how many of `path` the key itself wrote (2 for `a.b = 1`)
  std::size_t section = 0;    ///< the index of its section
  bool in_inline_table = false;
  std::size_t key_begin = 0;
  std::size_t value_begin = 0;
  std::size_t value_end = 0;  ///< one past the value's last byte
  /// The start of the key's line and the end of the value's line (after its comment and line
  /// ending): the lines a top-level key/value occupies.
  std::size_t line_begin = 0;
  std::size_t line_end = 0;
};

struct Document {
  std::vector<Section> sections;
  std::vector<KeyValue> values;
  std::string eol = "\n";  ///< "\r\n" when the text's first line ending is one
};

/// The layout of `text`; a kParse error names `path:line:column` for text whose layout is
/// unclear (an unterminated string or array, a line that is neither a header nor a key/value).
Result<Document> scan(std::string_view text, std::string_view path);

/// One value of an array.
struct ArrayItem {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t comma = kNone;  ///< the comma after it, when there is one
  /// The decoded value when the item is a string.
  std::optional<std::string> string_value;
};

struct Array {
  std::size_t open = 0;   ///< the `[`
  std::size_t close = 0;  ///< the `]`
  std::vector<ArrayItem> items;
};

/// The array whose `[` is at `open`; kParse when there is none or it is malformed.
Result<Array> scan_array(std::string_view text, std::size_t open, std::string_view path);

/// One `key = value` inside the inline table whose `{` is at `open`.
struct InlineEntry {
  std::size_t begin = 0;  ///< the key
  std::size_t end = 0;    ///< one past the value
  std::size_t comma = kNone;
};

struct InlineTable {
  std::size_t open = 0;
  std::size_t close = 0;  ///< the `}`
  std::vector<InlineEntry> entries;
};

Result<InlineTable> scan_inline_table(std::string_view text, std::size_t open,
                                      std::string_view path);

/// `key` as a TOML key: bare when it is only letters, digits, `-` and `_`, else quoted.
std::string format_key(std::string_view key);

/// `value` as a TOML basic string, quoted and escaped.
std::string format_string(std::string_view value);

/// The start of the line holding `position`, and the end of that line (after its line
/// ending, or the text's end).
std::size_t line_begin(std::string_view text, std::size_t position);
std::size_t line_end(std::string_view text, std::size_t position);

}  // namespace wv::pkg::toml_scan
