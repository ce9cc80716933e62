// The one hexadecimal helper (base/hex.h).
#include "src/base/hex.h"

#include <catch2/catch.hpp>

namespace wv {

TEST_CASE("hex: digits, encoding and decoding", "[base][hex]") {
  CHECK(hex_value('0') == 0);
  CHECK(hex_value('9') == 9);
  CHECK(hex_value('a') == 10);
  CHECK(hex_value('F') == 15);
  CHECK(hex_value('g') == -1);
  CHECK(hex_value('/') == -1);
  CHECK(hex_encode("\x01\xab") == "01ab");
  CHECK(hex_encode("") == "");
  CHECK(hex_decode("01aB") == std::optional<std::string>("\x01\xab"));
  CHECK(hex_decode(hex_encode("any \xff bytes")) == std::optional<std::string>("any \xff bytes"));
  CHECK_FALSE(hex_decode("abc"));
  CHECK_FALSE(hex_decode("zz"));
}

TEST_CASE("hex: is_hex64 accepts a SHA-256 as wvlock stores it", "[base][hex]") {
  const std::string digest(64, 'a');
  CHECK(is_hex64(digest));
  CHECK(is_hex64("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
  CHECK_FALSE(is_hex64(std::string(63, 'a')));
  CHECK_FALSE(is_hex64(std::string(65, 'a')));
  CHECK_FALSE(is_hex64(std::string(64, 'A')));  // upper case is another cache key
  CHECK_FALSE(is_hex64(std::string(63, 'a') + "g"));
}

}  // namespace wv
