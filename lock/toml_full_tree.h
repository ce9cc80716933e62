// The full TOML parser (toml++), for what the subset parser (src/base/toml_subset.h) declines:
// its DOM converted into the same light tree, so the lock reader is written once.
#pragma once

#include <string_view>

#include "src/base/result.h"
#include "src/base/toml_tree.h"

namespace wv::lock {

/// `text` as a tree, whatever valid TOML it is; a syntax error is kParse and names
/// `path:line:column`. The tree owns its strings (it does not borrow `text`).
Result<TomlTree> parse_toml_full(std::string_view text, std::string_view path);

}  // namespace wv::lock
