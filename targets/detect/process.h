// Running a helper program (nvidia-smi, the musl loader) with a time limit. POSIX only.
// Cheap to include.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"

namespace wv::detect {

/// What a finished (or killed) child produced.
struct ProcessOutput {
  int exit_code = -1;      ///< -1 when killed or not started
  bool timed_out = false;  ///< killed at the deadline
  std::string output;      ///< stdout, then stderr when `merge_stderr`
};

/// Runs `argv` (argv[0] looked up in PATH) with the current environment minus
/// `unset_variables`, captures stdout (and stderr when `merge_stderr`), and kills it with
/// SIGKILL after `timeout`. An error only when the program cannot be started.
Result<ProcessOutput> run_process(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::string>& unset_variables = {},
                                  bool merge_stderr = false);

}  // namespace wv::detect
