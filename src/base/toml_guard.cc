// TOML nesting pre-scan (base/toml_guard.h): one pass, no recursion, no allocation.
#include "src/base/toml_guard.h"

#include <algorithm>
#include <vector>

#include "src/base/limits.h"
#include "src/base/str.h"

namespace wv {
namespace {

// Skips a string starting at text[i] (a quote); returns the index after it, or text.size().
std::size_t skip_string(std::string_view text, std::size_t i) {
  const char quote = text[i];
  const bool multi = text.substr(i, 3) == std::string(3, quote);
  std::size_t j = i + (multi ? 3 : 1);
  while (j < text.size()) {
    const char c = text[j];
    if (quote == '"' && c == '\\') {
      j += 2;
      continue;
    }
    if (!multi && c == '\n') return j;  // an unterminated one-line string: let the parser say so
    if (c == quote && (!multi || text.substr(j, 3) == std::string(3, quote))) {
      return j + (multi ? 3 : 1);
    }
    ++j;
  }
  return text.size();
}

}  // namespace

std::uint64_t toml_nesting_depth(std::string_view text) {
  std::uint64_t header = 0;      // segments of the current [table] / [[array]] header
  std::uint64_t containers = 0;  // inline tables and arrays open
  std::uint64_t key = 1;         // segments of the key being read
  std::uint64_t deepest = 0;
  bool in_header = false;
  bool in_key = true;           // at a key position (line start, or after `{` / `,` in `{}`)
  std::vector<char> open;       // the kinds of open containers, to know `,` in `{` vs `[`
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = skip_string(text, i) - 1;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '\n') {
      if (open.empty()) {
        in_key = true;
        key = 1;
        in_header = false;
      }
      continue;
    }
    if (in_header) {
      if (c == '.') ++header;
      if (c == ']') in_header = false;
      deepest = std::max(deepest, header);
      continue;
    }
    if (in_key) {
      if (c == '[' && open.empty()) {  // a table header at the start of a line
        in_header = true;
        in_key = false;
        header = 1;
        if (i + 1 < text.size() && text[i + 1] == '[') ++i;
        continue;
      }
      if (c == '}' && !open.empty() && open.back() == '{') {  // `{}`, or `{ a = 1, }`
        open.pop_back();
        --containers;
        in_key = false;
        continue;
      }
      if (c == '.') ++key;
      if (c == '=') {
        in_key = false;
        deepest = std::max(deepest, header + containers + key);
        key = 1;
      }
      continue;
    }
    if (c == '[' || c == '{') {
      open.push_back(c);
      ++containers;
      deepest = std::max(deepest, header + containers);
      if (c == '{') in_key = true;
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
      --containers;
    } else if (c == ',' && !open.empty() && open.back() == '{') {
      in_key = true;
    }
  }
  return deepest;
}

Result<void> check_toml_nesting(std::string_view text, std::uint64_t max_depth,
                                std::string_view what) {
  if (toml_nesting_depth(text) <= max_depth) return {};
  return limit_error(Limit::kTomlDepth, str_cat("the TOML nesting of ", what), std::nullopt,
                     max_depth);
}

}  // namespace wv
