// Running a helper program (nvidia-smi, the musl loader) with a time limit. POSIX only.
// Cheap to include.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"

namespace wv {

/// What a finished (or killed) child produced.
struct ProcessOutput {
  int exit_code = -1;      ///< -1 when killed or not started
  bool timed_out = false;  ///< killed at the deadline
  std::string output;      ///< stdout, then stderr when `merge_stderr`
};

/// How to run a child: the fuller form behind run_process (builds and git need a working
/// folder, an environment of their own and the tail of a long output).
struct ProcessOptions {
  std::vector<std::string> argv;  ///< argv[0] looked up in PATH (the child's PATH when given)
  std::chrono::milliseconds timeout{60000};
  /// The child's whole environment ("NAME=value"); nullopt = ours minus `unset_variables`.
  std::optional<std::vector<std::string>> environment;
  std::vector<std::string> unset_variables;
  std::string working_directory;  ///< "" = ours
  bool merge_stderr = false;
  /// Output kept: the first `max_output` bytes, or with `keep_tail` the last ones (a build's
  /// log is read from its end).
  std::size_t max_output = 1 << 20;
  bool keep_tail = false;
  /// The child leads a process group of its own and the deadline kills the whole group (a
  /// build backend's compilers die with it).
  bool own_process_group = false;
};

/// Runs a child as `options` say. An error only when the program cannot be started (or the
/// working folder cannot be entered).
Result<ProcessOutput> run_process(const ProcessOptions& options);

/// Runs `argv` (argv[0] looked up in PATH) with the current environment minus
/// `unset_variables`, captures stdout (and stderr when `merge_stderr`), and kills it with
/// SIGKILL after `timeout`. An error only when the program cannot be started.
Result<ProcessOutput> run_process(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::string>& unset_variables = {},
                                  bool merge_stderr = false);

}  // namespace wv
