// `wvlock sync` as a step of another command (`wvlock run`): the same flags, the plan on
// stderr when stdout belongs to someone else, and the environment it synced.
#pragma once

#include <string>

#include "src/cli/options.h"

namespace wv::cli {

struct SyncCall {
  bool plan_to_stderr = false;  ///< stdout belongs to the command run afterwards
  std::string venv;             ///< out: the environment synced (set once the flags are read)
};

/// Parses sync's flags from `arguments`, locks if needed and syncs; returns the exit code,
/// every failure printed.
int sync_project(const GlobalOptions& options, Arguments& arguments, SyncCall& call);

}  // namespace wv::cli
