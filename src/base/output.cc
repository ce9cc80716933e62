// stdout and stderr through the credential rule (base/output.h).
#include "src/base/output.h"

#include <cstdio>
#include <string>

#include "src/base/credentials.h"

namespace wv {
namespace {

void write_masked(std::FILE* stream, std::string_view text) {
  // Masking needs the whole text: a URL split across two writes would escape the rule.
  const std::string shown = redact_credentials(text);
  std::fwrite(shown.data(), 1, shown.size(), stream);
}

}  // namespace

void write_out(std::string_view text) { write_masked(stdout, text); }

void write_err(std::string_view text) { write_masked(stderr, text); }

}  // namespace wv
