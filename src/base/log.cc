#include "base/log.h"

#include <atomic>
#include <cstdio>

#include "base/credentials.h"

namespace wv {
namespace {
std::atomic<int> current_level{int(Verbosity::kNormal)};

void emit(std::string_view prefix, std::string_view message) {
  const std::string shown = redact_credentials(message);  // never print a password
  std::fprintf(stderr, "%.*s%s\n", int(prefix.size()), prefix.data(), shown.c_str());
}
}  // namespace

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
