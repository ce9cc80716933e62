// What the commands that read the lockfile share (check, tree, why, export): the project and its
// lockfile read together, the targets a `--target` names, and the edges of a target's graph.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/cli/options.h"
#include "src/cli/project.h"
#include "lock/lockfile.h"

namespace wv::cli {

struct LockInputs {
  LoadedProject project;
  lock::Lockfile lockfile;
};

/// The project and its pylock.toml; a missing lockfile says to run `wvlock lock`.
Result<LockInputs> read_lock_inputs(const GlobalOptions& options, FileSystem& file_system);

/// Prints `error` and returns its exit code (a stale or broken lockfile is 1).
int fail_reading_lock(const Error& error);

/// The targets a command works on: the one `name` names (compared normalized), or all.
Result<std::vector<const lock::LockedTarget*>> chosen_targets(const lock::Lockfile& lockfile,
                                                              const std::optional<std::string>& name);

/// One edge of a target's graph, "name[extra]==version", taken apart.
struct Edge {
  pkg::PackageName name;  ///< empty when the text names no package
  std::string extra, version;
};
Edge parse_edge(std::string_view text);

/// The edges out of one node of a target's graph.
std::vector<std::string> children(const lock::Lockfile& lockfile, const std::string& target,
                                  const Edge& edge);

/// Every root of a target with the label it is shown under ("", "extra X", "group G").
std::vector<std::pair<std::string, std::string>> labelled_roots(const lock::LockedTarget& target);

}  // namespace wv::cli
