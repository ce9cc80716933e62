// xxHash (XXH3) for cache keys and input fingerprints only; never for integrity (see sha256.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace wv {

std::uint64_t hash64(std::string_view bytes);

struct Hash128 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  /// 32 lower-case hex digits, high half first (the canonical XXH128 form).
  std::string to_hex() const;
  friend bool operator==(const Hash128&, const Hash128&) = default;
};

Hash128 hash128(std::string_view bytes);

/// Streaming XXH3-128 over pieces. Each piece is length-prefixed, so ("ab","c") and ("a","bc")
/// hash differently: a fingerprint of a list of fields cannot collide by re-splitting.
class Fingerprint {
 public:
  Fingerprint();
  ~Fingerprint();
  Fingerprint(const Fingerprint&) = delete;
  Fingerprint& operator=(const Fingerprint&) = delete;

  Fingerprint& add(std::string_view piece);
  Hash128 finish() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wv
