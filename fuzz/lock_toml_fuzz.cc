// The two TOML parsers the lock reader uses (src/base/toml_tree.h), compared. Properties: when
// the subset parser accepts a text, the full parser (toml++) accepts it too and both give the
// same tree (kinds, values, lines, members); and the text nests no deeper than
// kTomlSubsetMaxNesting, which is what lets read_lockfile() skip the nesting pre-scan.
#include <string>

#include "fuzz/fuzz_target.h"
#include "lock/toml_full_tree.h"
#include "src/base/toml_guard.h"
#include "src/base/toml_subset.h"

WV_FUZZ_TARGET(lock_toml) {
  if (size > 2 * wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  std::optional<wv::TomlTree> subset = wv::parse_toml_subset(text);
  if (!subset) return;
  WV_FUZZ_CHECK(wv::toml_nesting_depth(text) <= wv::kTomlSubsetMaxNesting,
                "the subset parser accepted a text nested deeper than it promises");
  // The full parser recurses per nesting level: only texts the pre-scan lets through reach it.
  wv::Result<wv::TomlTree> full = wv::lock::parse_toml_full(text, "input.toml");
  WV_FUZZ_CHECK(full.has_value(), "the subset parser accepted a text the full parser refuses: " +
                                      (full ? std::string() : full.error().message));
  const std::string ours = wv::toml_tree_dump(subset->root());
  const std::string theirs = wv::toml_tree_dump(full->root());
  WV_FUZZ_CHECK(ours == theirs, "the parsers' trees differ:\n--- subset\n" + ours +
                                    "--- full\n" + theirs);
}
