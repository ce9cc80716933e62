// run_process: posix_spawnp + a pipe + poll, bounded by a deadline.
#include "src/base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "src/base/str.h"

extern char** environ;

namespace wv {

Result<ProcessOutput> run_process(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::string>& unset_variables,
                                  bool merge_stderr) {
  return run_process(ProcessOptions{.argv = argv,
                                    .timeout = timeout,
                                    .unset_variables = unset_variables,
                                    .merge_stderr = merge_stderr});
}

namespace {

bool names_variable(std::string_view entry, const std::string& name) {
  return entry.size() > name.size() && entry.substr(0, name.size()) == name &&
         entry[name.size()] == '=';
}

// The PATH the child's argv[0] is looked up in: its own when the environment is replaced.
std::string child_path(const ProcessOptions& options) {
  if (options.environment) {
    for (const std::string& entry : *options.environment) {
      if (names_variable(entry, "PATH")) return entry.substr(5);
    }
    return "/usr/bin:/bin";
  }
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/bin:/bin";
}

// argv[0] as a path: unchanged when it has a slash, else the first executable on `path`, else
// nullopt (a bare name is never run from the working folder, as a shell would not).
std::optional<std::string> find_program(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) return program;
  for (const std::string_view folder : split(path, ':')) {
    const std::string candidate = str_cat(folder.empty() ? "." : folder, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<ProcessOutput> run_process(const ProcessOptions& options) {
  const std::vector<std::string>& argv = options.argv;
  const auto timeout = options.timeout;
  const bool merge_stderr = options.merge_stderr;
  if (argv.empty()) return make_error(ErrorCode::kInvalidInput, "no program to run");
  // Looked up before anything is made: a program that is not there (nvidia-smi on a host
  // without NVIDIA's tools, at every detection) costs no pipe and no spawn.
  const std::optional<std::string> program = find_program(argv[0], child_path(options));
  if (!program) {
    return make_error(ErrorCode::kNotFound,
                      str_cat("cannot run ", in_backticks(argv[0]), ": ", std::strerror(ENOENT)));
  }
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {  // pipe2 is Linux-only; set close-on-exec by hand
    return make_error(ErrorCode::kIo, str_cat("cannot create a pipe: ", std::strerror(errno)));
  }
  fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);
  // The child's environment: the given one, or ours without `unset_variables`.
  std::vector<char*> child_env;
  if (options.environment) {
    for (const std::string& entry : *options.environment) {
      child_env.push_back(const_cast<char*>(entry.c_str()));
    }
  } else {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      bool drop = false;
      for (const std::string& name : options.unset_variables) drop |= names_variable(*entry, name);
      if (!drop) child_env.push_back(*entry);
    }
  }
  child_env.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  if (merge_stderr) {
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!options.working_directory.empty()) {
    if (access(options.working_directory.c_str(), X_OK) != 0) {
      posix_spawn_file_actions_destroy(&actions);
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      return make_error(ErrorCode::kIo, str_cat("cannot enter ", in_backticks(options.working_directory),
                                                " to run ", in_backticks(argv[0]), ": ",
                                                std::strerror(errno)));
    }
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (options.own_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, program->c_str(), &actions, &attributes, args.data(), child_env.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return make_error(ErrorCode::kNotFound,
                      str_cat("cannot run ", in_backticks(argv[0]), ": ", std::strerror(spawned)));
  }

  ProcessOutput result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  const std::size_t max_output = options.max_output;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd descriptor{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&descriptor, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      result.timed_out = ready == 0;
      break;
    }
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed its output
    if (options.keep_tail) {
      result.output.append(buffer, static_cast<size_t>(n));
      if (result.output.size() > 2 * max_output) {
        result.output.erase(0, result.output.size() - max_output);
      }
    } else if (result.output.size() < max_output) {
      result.output.append(buffer, static_cast<size_t>(n));
    }
  }
  close(pipe_fds[0]);
  if (options.keep_tail && result.output.size() > max_output) {
    result.output.erase(0, result.output.size() - max_output);
  }
  int status = 0;
  if (result.timed_out) {
    kill(options.own_process_group ? -pid : pid, SIGKILL);
    waitpid(pid, &status, 0);
    return result;
  }
  // The output closed; the child may still linger: give it the rest of the deadline.
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(options.own_process_group ? -pid : pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      return result;
    }
    usleep(1000);
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace wv
