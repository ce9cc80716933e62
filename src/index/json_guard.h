// A cheap pre-scan bounding the nesting depth of JSON before it reaches the JSON library, so
// hostile input cannot exhaust the stack (house rule: bounded recursion in every parser).
#pragma once

#include <string_view>

#include <cstdint>

#include "src/base/limits.h"

namespace wv::index {

/// kLimit error (the json-depth limit, base/limits.h) naming `what` when `text` nests
/// objects/arrays deeper than `max_depth`. Real index files need fewer than 8 levels.
Result<void> check_json_nesting(std::string_view text, std::uint64_t max_depth,
                                std::string_view what);

}  // namespace wv::index
