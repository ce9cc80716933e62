// The one exit for text: every byte wvlock prints on stdout or stderr goes through here, so
// the credential rule (base/credentials.h) is applied once, where text leaves the process,
// whatever built it (a message, a JSON document, a plan, the progress bar). Cheap to include.
#pragma once

#include <string_view>

namespace wv {

/// Writes `text` to stdout, credentials masked.
void write_out(std::string_view text);

/// Writes `text` to stderr, credentials masked.
void write_err(std::string_view text);

}  // namespace wv
