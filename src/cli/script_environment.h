// `wvlock run script.py` for a script with PEP 723 inline metadata: an environment of its own
// under `<cache>/environments-v1/<digest>`, resolved for this host's target from the script's
// `dependencies` and `requires-python` with the project's indexes (the default index without
// a project), and reused as long as the metadata, the project's indexes and the interpreter
// are the same (the digest covers them).
#pragma once

#include <optional>
#include <string>

#include "src/base/result.h"
#include "src/cli/options.h"

namespace wv::cli {

struct ScriptMetadata {
  std::string path;
  std::string toml;  ///< the `# /// script` block's content
};

/// The inline metadata of the script at `path`; nullopt when it has none (then it runs in the
/// project's environment), unless `forced` (`--script`), which takes a script without a block
/// as one without dependencies.
Result<std::optional<ScriptMetadata>> read_script_metadata(const std::string& path, bool forced);

/// The script's environment (its folder), built first unless an identical one is cached.
Result<std::string> script_environment(const GlobalOptions& options, const ScriptMetadata& script);

}  // namespace wv::cli
