// SHA-256 over OpenSSL's libcrypto: the integrity check of every downloaded or locked file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv {

/// 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

/// Streaming SHA-256 for large files.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  /// 64 lower-case hex digits; the object is then spent.
  std::string finish_hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// SHA-256 of a file's content, streamed (no whole-file buffer).
Result<std::string> sha256_file_hex(const std::string& path);

/// The unpadded urlsafe-base64 form RECORD files use: "sha256=<base64>".
std::string sha256_record_digest(std::string_view bytes);
/// Converts 64 hex digits to the RECORD form; empty string for malformed input.
std::string hex_to_urlsafe_base64_nopad(std::string_view hex);

}  // namespace wv
