// Test support: runs tests/net/fault_server.py on a loopback port for the lifetime of one object
// (RAII: the destructor stops it, and the server also exits when its stdin pipe closes, so a
// crashed test leaves no server behind).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/fetcher.h"
#include "base/str.h"

extern char** environ;

namespace wv::test {

class FaultServer {
 public:
  /// Starts the server over `root`; ok() tells whether it printed its port in time.
  /// `extra` arguments go to the script (e.g. {"--tls", cert, key}).
  explicit FaultServer(const std::string& root, std::vector<std::string> extra = {}) {
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
    std::string script = std::string(WV_SOURCE_DIR) + "/tests/net/fault_server.py";
    tls_ = std::find(extra.begin(), extra.end(), "--tls") != extra.end();
    std::vector<std::string> arguments = {"python3", "-S", "-u", script, "--root", root};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    if (::posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    stdout_ = from_child[0];
    if (pid_ > 0) read_port();
  }

  ~FaultServer() {
    if (stdin_ >= 0) ::close(stdin_);
    if (stdout_ >= 0) ::close(stdout_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  /// `http://127.0.0.1:PORT` + path_and_query (`https://` when started with --tls).
  std::string url(std::string_view path_and_query) const {
    return str_cat(tls_ ? "https" : "http", "://127.0.0.1:", port_, path_and_query);
  }

  /// A counter of /__stats for `path` (hits, conditional, not_modified, authorized, proxied,
  /// ranged), read with `fetcher`; -1 when it cannot be read.
  long count(Fetcher& fetcher, std::string_view path, std::string_view field) const {
    std::string value = stat(fetcher, path, field);
    std::optional<std::uint64_t> number = parse_uint64(value);
    return number ? long(*number) : -1;
  }
  std::string stat(Fetcher& fetcher, std::string_view path, std::string_view field) const {
    Result<FetchResponse> response =
        fetcher.fetch(FetchRequest{url(str_cat("/__stats", path)), {}, {}});
    if (!response || response->status != 200) return "";
    for (std::string_view line : split(response->body, '\n')) {
      if (line.substr(0, field.size() + 1) == str_cat(field, " ")) {
        return std::string(line.substr(field.size() + 1));
      }
    }
    return "";
  }

 private:
  void read_port() {
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

  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int port_ = 0;
  bool tls_ = false;
};

}  // namespace wv::test
