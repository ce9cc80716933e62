#include "src/base/log.h"

#include <atomic>

#include "src/base/output.h"
#include "src/base/str.h"

namespace wv {
namespace {
std::atomic<int> current_level{int(Verbosity::kNormal)};
std::atomic<bool> colored{false};

void emit(std::string_view prefix, std::string_view message) {
  print_diagnostic(std::string(prefix) + std::string(message));
}

struct Prefix {
  std::string_view text;
  Style style;
};
constexpr Prefix kPrefixes[] = {{"error:", Style::kError},
                                {"warning:", Style::kWarning},
                                {"hint:", Style::kHint},
                                {"note:", Style::kBold}};
}  // namespace

void set_color(bool enabled) { colored = enabled; }
bool color_enabled() { return colored; }

std::string paint(std::string_view text, Style style) {
  if (!colored) return std::string(text);
  const char* code = "1";
  switch (style) {
    case Style::kError: code = "1;31"; break;
    case Style::kWarning: code = "1;33"; break;
    case Style::kHint: code = "1;36"; break;
    case Style::kBold: code = "1"; break;
  }
  return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

std::string paint_diagnostic(std::string_view text) {
  if (!colored) return std::string(text);
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    bool painted = false;
    for (const Prefix& prefix : kPrefixes) {
      if (line.substr(0, prefix.text.size()) == prefix.text) {
        out += paint(prefix.text, prefix.style);
        out += line.substr(prefix.text.size());
        painted = true;
        break;
      }
    }
    if (!painted) out += line;
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

void print_diagnostic(std::string_view text) {
  // Escaped before painting, so only our own colour codes reach the terminal.
  write_err(paint_diagnostic(printable_text(text)) + "\n");
}

void set_verbosity(Verbosity level) { current_level = int(level); }
Verbosity verbosity() { return Verbosity(current_level.load()); }

void log_warning(std::string_view message) {
  if (current_level >= int(Verbosity::kNormal)) emit("warning: ", message);
}
void log_info(std::string_view message) {
  if (current_level >= int(Verbosity::kNormal)) emit("", message);
}
void log_debug(std::string_view message) {
  if (current_level >= int(Verbosity::kDebug)) emit("debug: ", message);
}

}  // namespace wv
