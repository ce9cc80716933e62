// Which indexes a project is resolved against, after the command line and the environment:
// `https://pypi.org/simple` (named `pypi`) when the project declares no default index (uv's
// rule: only `default = true` or `index-url` replace it); `--default-index URL` /
// WVLOCK_DEFAULT_INDEX replaces the default; `--index [NAME=]URL` / WVLOCK_INDEX (several,
// space-separated) come first, before the project's own; `--no-index` keeps only find-links
// and path sources.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/cli/options.h"
#include "targets/project_file.h"

namespace wv::cli {

inline constexpr const char* kPublicIndexName = "pypi";
inline constexpr const char* kPublicIndexUrl = "https://pypi.org/simple";

/// Takes `--default-index`, every `--index` and `--no-index` from `arguments` into `overrides`.
Result<void> extract_index_flags(Arguments& arguments, IndexOverrides& overrides);

using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;

/// `config.indexes` with the overrides applied (flags first, else the environment), then the
/// public index added when no default index remains. Errors name the flag or variable.
Result<void> apply_index_overrides(targets::ProjectConfig& config, const IndexOverrides& overrides,
                                   const EnvironmentLookup& environment);

}  // namespace wv::cli
