// A small TOML value tree and a deterministic writer for it. wvlock writes pylock.toml with its
// own writer (not toml++'s formatter) so the bytes are fixed by this file alone: keys sorted,
// fixed quoting and layout, on any machine. Reading goes through toml++ (lockfile_toml.cc).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wv::lock {

class TomlValue;
using TomlArray = std::vector<TomlValue>;
using TomlTable = std::map<std::string, TomlValue>;  // sorted keys: deterministic output

/// A TOML value: string, integer, boolean, array or table.
class TomlValue {
 public:
  TomlValue() : data_(std::string()) {}
  TomlValue(std::string text) : data_(std::move(text)) {}
  TomlValue(const char* text) : data_(std::string(text)) {}
  TomlValue(std::int64_t number) : data_(number) {}
  TomlValue(bool flag) : data_(flag) {}
  TomlValue(TomlArray array) : data_(std::make_shared<TomlArray>(std::move(array))) {}
  TomlValue(TomlTable table) : data_(std::make_shared<TomlTable>(std::move(table))) {}

  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_integer() const { return std::holds_alternative<std::int64_t>(data_); }
  bool is_boolean() const { return std::holds_alternative<bool>(data_); }
  bool is_array() const { return std::holds_alternative<std::shared_ptr<TomlArray>>(data_); }
  bool is_table() const { return std::holds_alternative<std::shared_ptr<TomlTable>>(data_); }

  const std::string& as_string() const { return std::get<std::string>(data_); }
  std::int64_t as_integer() const { return std::get<std::int64_t>(data_); }
  bool as_boolean() const { return std::get<bool>(data_); }
  const TomlArray& as_array() const { return *std::get<std::shared_ptr<TomlArray>>(data_); }
  TomlArray& as_array() { return *std::get<std::shared_ptr<TomlArray>>(data_); }
  const TomlTable& as_table() const { return *std::get<std::shared_ptr<TomlTable>>(data_); }
  TomlTable& as_table() { return *std::get<std::shared_ptr<TomlTable>>(data_); }

  friend bool operator==(const TomlValue& a, const TomlValue& b);

 private:
  std::variant<std::string, std::int64_t, bool, std::shared_ptr<TomlArray>,
               std::shared_ptr<TomlTable>>
      data_;
};

/// A TOML basic string with escapes ("a\"b").
std::string toml_quote(std::string_view text);
/// A key: bare when it is [A-Za-z0-9_-]+, quoted otherwise.
std::string toml_key(std::string_view key);
/// A value on one line: strings, numbers, booleans, arrays and inline tables.
std::string toml_inline(const TomlValue& value);

/// Writes `table` as the body of the section `header_path` (empty for the document root):
/// scalars, arrays and inline-able tables first as `key = value`, then each sub-table that has
/// sub-tables of its own as a `[header]` section. Arrays of strings longer than one item are
/// written one item per line so diffs stay small.
void write_toml_section(std::string& out, const std::vector<std::string>& header_path,
                        const TomlTable& table, bool array_of_tables_item = false);

}  // namespace wv::lock
