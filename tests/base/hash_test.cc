#include <catch2/catch.hpp>

#include "src/base/hash.h"
#include "src/base/sha256.h"
#include "src/base/sha256_portable.h"

#include <chrono>
#include <random>
#include <string>
#include "tests/support/temp_dir.h"
#include "src/base/file_system.h"

TEST_CASE("hash: xxh3 matches the reference values", "[base][hash]") {
  // Reference values from the xxHash test vectors (empty input).
  CHECK(wv::hash64("") == 0x2D06800538D394C2ULL);
  CHECK(wv::hash128("").to_hex() == "99aa06d3014798d86001c324468d497f");
  CHECK(wv::hash64("a") != wv::hash64("b"));
}

TEST_CASE("hash: fingerprints are length-prefixed", "[base][hash]") {
  wv::Fingerprint one, two, three;
  one.add("ab").add("c");
  two.add("a").add("bc");
  three.add("ab").add("c");
  CHECK_FALSE(one.finish() == two.finish());
  CHECK(one.finish() == three.finish());
}

TEST_CASE("sha256: known digests and the RECORD form", "[base][sha256]") {
  CHECK(wv::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(wv::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // python3 -c "import hashlib,base64;print(base64.urlsafe_b64encode(hashlib.sha256(b'abc').digest()).rstrip(b'='))"
  CHECK(wv::sha256_record_digest("abc") == "sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  wv::Sha256 streamed;
  streamed.update("a");
  streamed.update("bc");
  CHECK(streamed.finish_hex() == wv::sha256_hex("abc"));
}

TEST_CASE("sha256: a file is hashed as a stream", "[base][sha256]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  std::string content(300000, 'x');
  REQUIRE(fs.write_file_atomic(dir.file("big"), content));
  CHECK(*wv::sha256_file_hex(dir.file("big")) == wv::sha256_hex(content));
  CHECK(wv::sha256_file_hex(dir.file("absent")).error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("sha256: the portable code gives libcrypto's answer at every length and padding edge",
          "[base][sha256]") {
  // FIPS 180-4's two-block vector, then lengths around the 55/56/64-byte padding edges and
  // random sizes up to past the size where sha256_hex() hands over to libcrypto.
  CHECK(wv::sha256_hex_portable("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::mt19937 random(11);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (int i = 0; i < 40; ++i) lengths.push_back(random() % (200u << 10));
  for (std::size_t n : lengths) {
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    wv::Sha256 reference;  // libcrypto, whatever the size
    reference.update(bytes);
    INFO("length " << n);
    REQUIRE(wv::sha256_hex_portable(bytes) == reference.finish_hex());
    REQUIRE(wv::sha256_hex(bytes) == wv::sha256_hex_portable(bytes));
  }
}
