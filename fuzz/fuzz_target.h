// One fuzz target body, two ways to run it (docs/fuzzing.md). In a libFuzzer build
// (WV_FUZZ_LIBFUZZER, set by fuzz/CMakeLists.txt) WV_FUZZ_TARGET(name) defines
// LLVMFuzzerTestOneInput; in a normal build it registers the body by name so that
// tests/fuzz replays the checked-in seeds and regression inputs through it on every CI build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

namespace wv::fuzz {

/// A fuzz target body: gets the input bytes, returns normally or traps.
using FuzzBody = void (*)(const std::uint8_t* data, std::size_t size);

/// Every target compiled into this program, by name (empty in a libFuzzer build).
inline std::map<std::string, FuzzBody>& registry() {
  static std::map<std::string, FuzzBody> targets;
  return targets;
}

/// Adds a body to registry() at static initialisation.
struct Registration {
  Registration(const char* name, FuzzBody body) { registry()[name] = body; }
};

/// The input as text (the parsers take string_views).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Text inputs above this are ignored: every interesting parser state is reachable with less,
/// and long inputs only slow the search down.
inline constexpr std::size_t kMaxTextInput = 64 * 1024;

/// Prints why a property failed, then traps (libFuzzer saves the input as a crash; the replay
/// test dies with the message on stderr).
[[noreturn]] inline void property_failed(const char* file, int line, const char* condition,
                                         std::string_view detail) {
  std::fprintf(stderr, "%s:%d: fuzz property violated: %s\n  %.*s\n", file, line, condition,
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  __builtin_trap();
}

}  // namespace wv::fuzz

/// Asserts a property the spec gives; `detail` (a string) says what was compared.
#define WV_FUZZ_CHECK(condition, detail)                                             \
  do {                                                                               \
    if (!(condition)) ::wv::fuzz::property_failed(__FILE__, __LINE__, #condition, (detail)); \
  } while (false)

#ifdef WV_FUZZ_LIBFUZZER
#define WV_FUZZ_TARGET(name)                                                         \
  static void wv_fuzz_body_##name(const std::uint8_t* data, std::size_t size);       \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    wv_fuzz_body_##name(data, size);                                                 \
    return 0;                                                                        \
  }                                                                                  \
  static void wv_fuzz_body_##name(const std::uint8_t* data, std::size_t size)
#else
#define WV_FUZZ_TARGET(name)                                                         \
  static void wv_fuzz_body_##name(const std::uint8_t* data, std::size_t size);       \
  static const ::wv::fuzz::Registration wv_fuzz_registration_##name(                 \
      #name, &wv_fuzz_body_##name);                                                  \
  static void wv_fuzz_body_##name(const std::uint8_t* data, std::size_t size)
#endif
