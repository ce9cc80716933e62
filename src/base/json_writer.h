// A JSON text built value by value: the one writer behind every `--json` shape (docs/json.md),
// so quoting and layout are the same in each command's output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wv {

/// `text` as a JSON string literal (RFC 8259 escapes; other control bytes as \u00XX).
std::string json_quote(std::string_view text);

/// Builds one JSON document, pretty-printed with two-space indentation. Inside an object call
/// key() before each value; a container is closed by end(). The caller keeps the calls balanced;
/// an unbalanced writer's text() is not valid JSON.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& begin_array();
  JsonWriter& end();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(std::int64_t(number)); }
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(double number);
  JsonWriter& null();
  /// A string, or null when absent.
  JsonWriter& value(const std::optional<std::string>& text);
  /// A string, or null when it is empty: an unknown value is null, never "" (docs/json.md).
  JsonWriter& text_or_null(std::string_view text);
  /// An array of strings.
  JsonWriter& strings(const std::vector<std::string>& items);
  /// `"name": value` in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& item) {
    key(name);
    return value(item);
  }
  /// A JSON value already rendered (by another writer) placed as the next value.
  JsonWriter& raw(std::string_view json);
  /// The document, ending in a newline.
  std::string text() const { return out_ + "\n"; }

 private:
  void before_value();
  void newline();
  struct Level {
    bool object;
    bool empty = true;
  };
  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace wv
