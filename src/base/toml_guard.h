// A cheap pre-scan bounding the nesting depth of TOML before it reaches toml++, whose parser
// recurses per dotted-key segment, table-header segment and inline table or array: 100k-deep
// `a.a.a...` would exhaust the stack (house rule: bounded recursion in every parser).
#pragma once

#include <cstdint>
#include <string_view>

#include "src/base/result.h"

namespace wv {

/// The deepest nesting in `text`: the segments of the current table header, plus the inline
/// tables and arrays open, plus the segments of a dotted key. Strings and comments are
/// skipped; an unterminated string ends the scan (the parser reports it).
std::uint64_t toml_nesting_depth(std::string_view text);

/// A kLimit error (the toml-depth limit) naming `what` when toml_nesting_depth(text) exceeds
/// `max_depth`. Real project and lock files need fewer than 10 levels.
Result<void> check_toml_nesting(std::string_view text, std::uint64_t max_depth,
                                std::string_view what);

}  // namespace wv
