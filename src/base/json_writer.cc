#include "src/base/json_writer.h"

#include <charconv>
#include <cmath>

namespace wv {

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20) {
          const char* hex = "0123456789abcdef";
          out += "\\u00";
          out.push_back(hex[byte >> 4]);
          out.push_back(hex[byte & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(levels_.size() * 2, ' ');
}

// Commas and line breaks between siblings; a value right after its key stays on the key's line.
void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  if (!levels_.back().empty) out_ += ',';
  levels_.back().empty = false;
  newline();
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  levels_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  levels_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::end() {
  if (levels_.empty()) return *this;
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty) newline();
  out_ += level.object ? '}' : ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ += json_quote(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ += json_quote(text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  before_value();
  if (!std::isfinite(number)) {  // JSON has no NaN or infinity
    out_ += "null";
    return *this;
  }
  char buffer[32];  // the shortest text that reads back as the same double
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
  out_.append(buffer, error == std::errc() ? end : buffer);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(const std::optional<std::string>& text) {
  return text ? value(std::string_view(*text)) : null();
}

JsonWriter& JsonWriter::text_or_null(std::string_view text) {
  return text.empty() ? null() : value(text);
}

JsonWriter& JsonWriter::strings(const std::vector<std::string>& items) {
  begin_array();
  for (const std::string& item : items) value(std::string_view(item));
  return end();
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

}  // namespace wv
