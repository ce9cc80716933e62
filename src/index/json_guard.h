// A cheap pre-scan bounding the nesting depth of JSON before it reaches the JSON library, so
// hostile input cannot exhaust the stack (house rule: bounded recursion in every parser).
#pragma once

#include <string_view>

#include "base/result.h"

namespace wv::index {

/// Deepest object/array nesting accepted in index JSON (real files need fewer than 8).
inline constexpr int kMaxJsonDepth = 64;

/// kLimit error naming `what` when `text` nests objects/arrays deeper than `max_depth`.
Result<void> check_json_nesting(std::string_view text, int max_depth, std::string_view what);

}  // namespace wv::index
