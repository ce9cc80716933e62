#include "src/base/hash.h"

// Compiled in, not linked: one shared library fewer for every command to load at start-up.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "src/base/result.h"

namespace wv {

std::uint64_t hash64(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

Hash128 hash128(std::string_view bytes) {
  XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return {hash.high64, hash.low64};
}

std::string Hash128::to_hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(high >> (4 * i)) & 0xf];
    out[31 - i] = kDigits[(low >> (4 * i)) & 0xf];
  }
  return out;
}

struct Fingerprint::State {
  XXH3_state_t* xxh = nullptr;
};

Fingerprint::Fingerprint() : state_(std::make_unique<State>()) {
  state_->xxh = XXH3_createState();
  WV_CHECK(state_->xxh != nullptr, "out of memory creating an XXH3 state");
  XXH3_128bits_reset(state_->xxh);
}

Fingerprint::~Fingerprint() { XXH3_freeState(state_->xxh); }

Fingerprint& Fingerprint::add(std::string_view piece) {
  unsigned char length[8];
  std::uint64_t size = piece.size();
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(size >> (8 * i));
  XXH3_128bits_update(state_->xxh, length, sizeof length);
  XXH3_128bits_update(state_->xxh, piece.data(), piece.size());
  return *this;
}

Hash128 Fingerprint::finish() const {
  XXH128_hash_t hash = XXH3_128bits_digest(state_->xxh);
  return {hash.high64, hash.low64};
}

}  // namespace wv
