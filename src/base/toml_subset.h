// The fast TOML parser for the plain subset of TOML that wvlock writes (see toml_tree.h for why
// there are two parsers and how they are kept equal).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "src/base/toml_tree.h"

namespace wv {

/// The deepest nesting (toml_guard.h's measure) of a document parse_toml_subset() accepts: 16
/// header keys, one key, 16 arrays and inline tables open.
inline constexpr std::uint64_t kTomlSubsetMaxNesting = 33;

/// The tree of `text` when every construct in it is in the subset below, or nullopt: then the
/// caller parses with the full parser, which also reports the error for text that is not TOML.
///
/// In the subset: ASCII text; LF or CRLF line ends; comments; `[table]` and `[[array.of.tables]]`
/// headers with bare or quoted keys; `key = value` with one bare or quoted key; values: basic
/// strings with escapes, literal strings, decimal integers, booleans, offset date-times, arrays
/// (across lines, comments and a trailing comma allowed) and inline tables on one line.
///
/// Not in it: dotted keys, empty keys, multi-line strings, floats, `+` signs, hex, octal,
/// binary and underscored integers, local dates and times, non-ASCII bytes, headers of more than
/// 16 keys, values nested more than 16 deep, tables of more than 256 keys; and every error (a duplicate key, a redefined table, a bad
/// escape, a control character): the full parser reports those.
///
/// The tree borrows `text` (toml_tree.h): keep it alive while the tree is used.
std::optional<TomlTree> parse_toml_subset(std::string_view text);

}  // namespace wv
