// PEP 825 `[packages.variants-json]`: a package version's variant metadata as a TOML table, in
// the key spelling of the published `*-variants.json` files (reference/variants.md §2, §6.1).
#pragma once

#include <set>
#include <string>

#include "src/base/result.h"
#include "lock/toml_value.h"
#include "src/pkg/variant.h"

namespace wv::lock {

/// The table for `metadata`, keeping only the variants whose labels are in `used_labels` and the
/// providers, priorities and static properties of the namespaces those variants use.
TomlTable variants_to_table(const pkg::VariantsMetadata& metadata,
                            const std::set<std::string>& used_labels);

/// Reads the table back; errors name the key that is wrong (`where` prefixes them).
Result<pkg::VariantsMetadata> variants_from_table(const TomlTable& table, std::string_view where);

}  // namespace wv::lock
