// Format-preserving edits of pyproject.toml's dependency arrays and of `[tool.wvlock.sources]`
// (`wvlock add`, `wvlock remove`): text in, text out, every byte outside the edited array,
// entry or table as written — comments, order, quoting, blank lines, CRLF line endings. Items
// are matched by PEP 503 normalised name, so `torch` never matches `torchvision`. New items
// follow the array's style: one per line with the indentation found, or inline; sorted order
// is kept when the array is sorted (as uv keeps it), else the item is appended. The layout is
// read by pkg/toml_scan.h; errors name `path:line:column`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"

namespace wv::pkg {

/// One dependency array: `[project] dependencies`, an extra of `optional-dependencies`, or a
/// PEP 735 `[dependency-groups]` group.
struct DependencyList {
  enum class Kind { kProject, kOptional, kGroup };
  Kind kind = Kind::kProject;
  std::string name;  ///< the extra or group, PEP 685 normalised; "" for kProject

  /// `project.dependencies`, `project.optional-dependencies.gpu`, `dependency-groups.dev`.
  std::string describe() const;
  bool operator==(const DependencyList&) const = default;
};

/// The PEP 503 normalised name a requirement string starts with ("" when it starts with none).
std::string requirement_name(std::string_view requirement);

/// `text` with `requirement` in `list`. An item of the same package has its text replaced in
/// place (unless `requirement` is a bare name: the item is kept); otherwise the item is
/// inserted (sorted arrays stay sorted). A missing array is added to its table, a missing
/// `[project.optional-dependencies]` or `[dependency-groups]` table after `[project]` or at
/// the end; a file without `[project]` is an error for the project's own lists.
Result<std::string> add_dependency(std::string_view text, std::string_view path,
                                   const DependencyList& list, std::string_view requirement);

struct Removal {
  std::string text;
  std::size_t removed = 0;  ///< how many items (or source entries) were removed
};

/// `text` without the items of `list` that name `name` (normalised). An item alone on its
/// line takes its line with it, keeping its end-of-line comment as a comment line (uv keeps
/// it too); `removed` is 0 and the text unchanged when none names it.
Result<Removal> remove_dependency(std::string_view text, std::string_view path,
                                  const DependencyList& list, std::string_view name);

/// Every dependency list of the file with an item naming `name`, in file order.
Result<std::vector<DependencyList>> lists_naming(std::string_view text, std::string_view path,
                                                 std::string_view name);

/// `text` with `[tool.TOOL.sources]` `package = value` (`value` is TOML text, e.g.
/// `{ index = "pytorch" }`; TOOL is `wvlock` or `uv`): an entry for the package (any spelling)
/// has its value replaced; otherwise one is added, the table created after `[tool.TOOL]` (or
/// at the end) if needed.
Result<std::string> set_source(std::string_view text, std::string_view path,
                               std::string_view package, std::string_view value,
                               std::string_view tool = "wvlock");

/// `text` without the package's `[tool.TOOL.sources]` entry.
Result<Removal> remove_source(std::string_view text, std::string_view path,
                              std::string_view package, std::string_view tool = "wvlock");

/// Whether the file writes a `[tool.TOOL.sources]` table (a header, a dotted key or an inline
/// table), so that a new entry goes where the project keeps its sources.
Result<bool> has_sources_table(std::string_view text, std::string_view path,
                               std::string_view tool);

}  // namespace wv::pkg
