// SHA-256 (FIPS 180-4) in plain C++, for the small inputs that most commands hash (a wheel's
// METADATA, a cache key, an index page): hashing them through libcrypto first loads it and
// initialises OpenSSL 3 (its configuration file, its default provider, the algorithm fetch),
// about 7 million instructions, a tenth of a whole real-graph lock. Large and streamed data
// still go through libcrypto, whose SHA-NI code is several times faster per byte.
#pragma once

#include <string>
#include <string_view>

namespace wv {

/// 64 lower-case hex digits; the same answer as sha256_hex() (a test compares them).
std::string sha256_hex_portable(std::string_view bytes);

}  // namespace wv
