#include "tests/support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>

#include "src/base/str.h"

extern char** environ;

namespace wv::test {

ServerProcess::ServerProcess(std::vector<std::string> arguments) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) return;
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  arguments.insert(arguments.begin(), WV_TEST_PYTHON);  // the build's interpreter, not PATH's
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  if (::posix_spawnp(&pid_, WV_TEST_PYTHON, &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  stdin_ = to_child[1];
  stdout_ = from_child[0];
  if (pid_ > 0) read_port();
}

ServerProcess::~ServerProcess() {
  if (stdin_ >= 0) ::close(stdin_);
  if (stdout_ >= 0) ::close(stdout_);
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void ServerProcess::read_port() {
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd descriptor{stdout_, POLLIN, 0};
    if (::poll(&descriptor, 1, 100) <= 0) continue;
    char buffer[64];
    ssize_t got = ::read(stdout_, buffer, sizeof buffer);
    if (got <= 0) return;
    line.append(buffer, std::size_t(got));
  }
  std::string_view text = trim(line);
  if (text.substr(0, 5) != "PORT ") return;
  std::optional<std::uint64_t> port = parse_uint64(text.substr(5));
  if (port && *port > 0 && *port < 65536) port_ = int(*port);
}

}  // namespace wv::test
