// The pyproject.toml `wvlock init` writes: uv's `[project]` table, `[tool.wvlock]`, one target
// for the machine it runs on (named `host`) and commented examples of GPU targets.
#pragma once

#include <string>

#include "targets/host_profile.h"

namespace wv::cli {

struct InitChoices {
  std::string name;            ///< PEP 503 normalised
  targets::MajorMinor python;  ///< requires-python = ">=M.m"
  targets::HostProfile host;   ///< the live machine
  bool bare = false;           ///< the `[project]` table only
  bool package = false;        ///< `[build-system]` and `[project.scripts]` (src layout)
  bool library = false;        ///< `[build-system]` without scripts
};

/// The import name of a project: `my-app` -> `my_app`.
std::string module_name(std::string_view name);

/// The file's text.
std::string init_pyproject(const InitChoices& choices);

/// The `[[tool.wvlock.target]]` table of `host` named `name`: platform, glibc, musl or macOS
/// version, and the NVIDIA and AMD facts detected.
std::string host_target_table(const targets::HostProfile& host, std::string_view name);

}  // namespace wv::cli
