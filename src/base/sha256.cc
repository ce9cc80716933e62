#include "src/base/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "src/base/hex.h"
#include "src/base/lazy_library.h"
#include "src/base/sha256_portable.h"
#include "src/base/str.h"

#ifndef WV_CRYPTO_SONAME
#define WV_CRYPTO_SONAME "libcrypto.so.3"
#endif

namespace wv {

namespace {

// libcrypto, opened by the first hash (base/lazy_library.h); <openssl/evp.h> gives the types.
LazyLibrary crypto(WV_CRYPTO_SONAME, "libssl3");

#define WV_CRYPTO_FUNCTION(name)                                         \
  decltype(&::name) name##_fn() {                                        \
    static std::atomic<decltype(&::name)> slot{nullptr};                 \
    return lazy_function(crypto, slot, #name);                           \
  }
WV_CRYPTO_FUNCTION(EVP_MD_CTX_new)
WV_CRYPTO_FUNCTION(EVP_MD_CTX_free)
WV_CRYPTO_FUNCTION(EVP_sha256)
WV_CRYPTO_FUNCTION(EVP_DigestInit_ex)
WV_CRYPTO_FUNCTION(EVP_DigestUpdate)
WV_CRYPTO_FUNCTION(EVP_DigestFinal_ex)
#undef WV_CRYPTO_FUNCTION

}  // namespace

struct Sha256::State {
  EVP_MD_CTX* context = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->context = EVP_MD_CTX_new_fn()();
  WV_CHECK(state_->context != nullptr, "out of memory creating a digest context");
  WV_CHECK(EVP_DigestInit_ex_fn()(state_->context, EVP_sha256_fn()(), nullptr) == 1,
           "EVP_DigestInit_ex(sha256) failed");
}

Sha256::~Sha256() { EVP_MD_CTX_free_fn()(state_->context); }

void Sha256::update(std::string_view bytes) {
  WV_CHECK(EVP_DigestUpdate_fn()(state_->context, bytes.data(), bytes.size()) == 1,
           "EVP_DigestUpdate failed");
}

std::string Sha256::finish_hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  WV_CHECK(EVP_DigestFinal_ex_fn()(state_->context, digest, &length) == 1, "EVP_DigestFinal_ex failed");
  return hex_encode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

// Below this size the portable code answers (src/base/sha256_portable.h): a command that hashes
// only small things never loads libcrypto. Above it libcrypto's SHA-NI code, ~6x faster per
// byte here, has repaid its start.
constexpr std::size_t kPortableBytes = std::size_t{64} << 10;

std::string sha256_hex(std::string_view bytes) {
  if (bytes.size() < kPortableBytes) return sha256_hex_portable(bytes);
  Sha256 sha;
  sha.update(bytes);
  return sha.finish_hex();
}

Result<std::string> sha256_file_hex(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return make_error(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                      str_cat("cannot read ", in_backticks(path), ": ", std::strerror(errno)));
  }
  Sha256 sha;
  char buffer[1 << 16];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      return make_error(ErrorCode::kIo, str_cat("cannot read ", in_backticks(path), ": ",
                                                std::strerror(saved)));
    }
    if (got == 0) break;
    sha.update(std::string_view(buffer, std::size_t(got)));
  }
  ::close(fd);
  return sha.finish_hex();
}

std::string hex_to_urlsafe_base64_nopad(std::string_view hex) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const std::optional<std::string> decoded = hex_decode(hex);
  if (!decoded) return {};
  const std::string& bytes = *decoded;
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    unsigned value = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 |
                     (unsigned char)bytes[i + 2];
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
    out.push_back(kAlphabet[(value >> 6) & 63]);
    out.push_back(kAlphabet[value & 63]);
  }
  std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    unsigned value = (unsigned char)bytes[i] << 16;
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
  } else if (rest == 2) {
    unsigned value = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8;
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
    out.push_back(kAlphabet[(value >> 6) & 63]);
  }
  return out;
}

std::string sha256_record_digest(std::string_view bytes) {
  return "sha256=" + hex_to_urlsafe_base64_nopad(sha256_hex(bytes));
}

}  // namespace wv
