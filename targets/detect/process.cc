// run_process: posix_spawnp + a pipe + poll, bounded by a deadline.
#include "targets/detect/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/str.h"

extern char** environ;

namespace wv::detect {

Result<ProcessOutput> run_process(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::string>& unset_variables,
                                  bool merge_stderr) {
  if (argv.empty()) return make_error(ErrorCode::kInvalidInput, "no program to run");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {  // pipe2 is Linux-only; set close-on-exec by hand
    return make_error(ErrorCode::kIo, str_cat("cannot create a pipe: ", std::strerror(errno)));
  }
  fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);
  // The child's environment: ours without `unset_variables` (e.g. CUDA_VISIBLE_DEVICES).
  std::vector<char*> child_env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    bool drop = false;
    for (const std::string& name : unset_variables) {
      drop |= text.size() > name.size() && text.substr(0, name.size()) == name &&
              text[name.size()] == '=';
    }
    if (!drop) child_env.push_back(*entry);
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
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), child_env.data());
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
  constexpr std::size_t kMaxOutput = 1 << 20;  // a helper's answer is small; bound it anyway
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
    if (result.output.size() < kMaxOutput) result.output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  if (result.timed_out) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return result;
  }
  // The output closed; the child may still linger: give it the rest of the deadline.
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      return result;
    }
    usleep(1000);
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace wv::detect
