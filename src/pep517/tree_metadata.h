// The metadata of a source tree without running its backend, when pyproject.toml states it
// (PEP 621 fields not listed in `dynamic`), as uv reads it: name, version, requires-python,
// dependencies and optional-dependencies. Anything dynamic there needs the PEP 517 hook.
#pragma once

#include <optional>
#include <string>

#include "targets/project_file.h"

namespace wv::build {

/// METADATA text (Metadata-Version 2.2) for `config`, or nullopt when name or version is
/// missing or any of version, dependencies, optional-dependencies and requires-python is
/// dynamic.
std::optional<std::string> static_tree_metadata(const targets::ProjectConfig& config);

}  // namespace wv::build
