// Which environment sync and targets work on, as uv decides it: the project's `.venv` (or
// `--venv DIR`); an activated environment ($VIRTUAL_ENV) only with `--active`. An unrelated
// activated venv is never taken over by accident: sync is exact and would empty it.
#pragma once

#include <optional>
#include <string>

#include "src/base/result.h"

namespace wv::cli {

class Arguments;
struct GlobalOptions;

/// The flags that name the environment.
struct EnvironmentFlags {
  std::optional<std::string> venv;  ///< `--venv DIR`
  bool active = false;              ///< `--active`: prefer $VIRTUAL_ENV
  bool no_active = false;           ///< `--no-active`: ignore it without the warning
};

/// Takes `--venv`, `--active` and `--no-active` (usage error: `--active` with `--no-active`
/// or `--venv`).
Result<EnvironmentFlags> extract_environment_flags(Arguments& arguments);

struct EnvironmentChoice {
  std::string path;
  std::string warning;  ///< "" or the text after `warning: ` (VIRTUAL_ENV ignored)
};

/// The environment for `flags`, given $VIRTUAL_ENV (`virtual_env`, "" when unset). With
/// `--active` and no active environment the project's is used, as uv does.
EnvironmentChoice choose_environment(const GlobalOptions& options, const EnvironmentFlags& flags,
                                     const std::string& virtual_env);

/// Whether `flags` take the activated environment: `--active` with $VIRTUAL_ENV set.
bool uses_active_environment(const EnvironmentFlags& flags);

/// choose_environment() with the process's $VIRTUAL_ENV; prints the warning.
std::string environment_path(const GlobalOptions& options, const EnvironmentFlags& flags);

}  // namespace wv::cli
