// PEP 723 inline script metadata: the `# /// TYPE` ... `# ///` comment block of a script,
// returned as the TOML text it holds. Pure: the caller reads the file and parses the TOML.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::pkg {

/// The content of the `# /// type` block of `script` (each line without its `#` and one
/// space), nullopt when there is none. The block ends at the last `# ///` line of the run of
/// comment lines that follows its opening; kParse errors (with the line) for a block that is
/// never closed and for a second block of the same type, as PEP 723 requires.
Result<std::optional<std::string>> inline_metadata(std::string_view script,
                                                   std::string_view type = "script");

}  // namespace wv::pkg
