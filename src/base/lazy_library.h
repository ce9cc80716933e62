// A C library wvlock needs only for some commands (libcrypto for SHA-256, libzip for wheels),
// opened by dlopen on first use instead of being linked: a command that never hashes or unzips
// does not pay its load and symbol bindings at start-up (docs/architecture.md, "Start-up").
// libcurl has its own table with an error path (net/curl_api.h); these are part of every
// installation, so a missing one is a broken install, reported as the dynamic loader would have.
#pragma once

#include <atomic>
#include <mutex>

namespace wv {

class LazyLibrary {
 public:
  /// `soname` as found by the build (e.g. `libcrypto.so.3`); `package`, the Debian package.
  constexpr LazyLibrary(const char* soname, const char* package) : soname_(soname), package_(package) {}

  /// The address of `symbol`, opening the library on the first call (thread-safe). When the
  /// library or the symbol is missing, prints what to install and exits with status 3.
  void* require(const char* symbol);

 private:
  const char* soname_;
  const char* package_;
  std::once_flag opened_;
  void* handle_ = nullptr;
};

/// `require()` cast to the function type of `slot`, looked up once into it.
template <class Function>
Function lazy_function(LazyLibrary& library, std::atomic<Function>& slot, const char* symbol) {
  Function function = slot.load(std::memory_order_acquire);
  if (function == nullptr) {
    function = reinterpret_cast<Function>(library.require(symbol));
    slot.store(function, std::memory_order_release);
  }
  return function;
}

}  // namespace wv
