#include "lock/toml_value.h"

#include <cstdio>

namespace wv::lock {

bool operator==(const TomlValue& a, const TomlValue& b) {
  if (a.data_.index() != b.data_.index()) return false;
  if (a.is_array()) return a.as_array() == b.as_array();
  if (a.is_table()) return a.as_table() == b.as_table();
  return a.data_ == b.data_;
}

std::string toml_quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", c);
          out += escape;
        } else {
          out.push_back(char(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string toml_key(std::string_view key) {
  bool bare = !key.empty();
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) bare = false;
  }
  return bare ? std::string(key) : toml_quote(key);
}

std::string toml_inline(const TomlValue& value) {
  if (value.is_string()) return toml_quote(value.as_string());
  if (value.is_integer()) return std::to_string(value.as_integer());
  if (value.is_boolean()) return value.as_boolean() ? "true" : "false";
  std::string out;
  if (value.is_array()) {
    out = "[";
    bool first = true;
    for (const TomlValue& item : value.as_array()) {
      if (!first) out += ", ";
      first = false;
      out += toml_inline(item);
    }
    out += "]";
    return out;
  }
  const TomlTable& table = value.as_table();
  if (table.empty()) return "{}";
  out = "{ ";
  bool first = true;
  for (const auto& [key, item] : table) {
    if (!first) out += ", ";
    first = false;
    out += toml_key(key) + " = " + toml_inline(item);
  }
  out += " }";
  return out;
}

namespace {

// A table is written as a [section] when some value in it is itself a table: then its
// children get their own lines; otherwise it fits on one line as an inline table.
bool needs_section(const TomlValue& value) {
  if (!value.is_table()) return false;
  for (const auto& [key, item] : value.as_table()) {
    if (item.is_table()) return true;
  }
  return false;
}

void write_key_value(std::string& out, const std::string& key, const TomlValue& value) {
  out += toml_key(key);
  out += " = ";
  if (value.is_array() && value.as_array().size() > 1) {
    out += "[\n";
    for (const TomlValue& item : value.as_array()) out += "  " + toml_inline(item) + ",\n";
    out += "]\n";
    return;
  }
  out += toml_inline(value);
  out += '\n';
}

std::string header_text(const std::vector<std::string>& path) {
  std::string text;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i > 0) text += '.';
    text += toml_key(path[i]);
  }
  return text;
}

}  // namespace

void write_toml_section(std::string& out, const std::vector<std::string>& header_path,
                        const TomlTable& table, bool array_of_tables_item) {
  if (!header_path.empty()) {
    if (!out.empty()) out += '\n';
    out += array_of_tables_item ? "[[" : "[";
    out += header_text(header_path);
    out += array_of_tables_item ? "]]\n" : "]\n";
  }
  for (const auto& [key, value] : table) {
    if (!needs_section(value)) write_key_value(out, key, value);
  }
  for (const auto& [key, value] : table) {
    if (!needs_section(value)) continue;
    std::vector<std::string> child = header_path;
    child.push_back(key);
    write_toml_section(out, child, value.as_table());
  }
}

}  // namespace wv::lock
