// Test support for wv_index: the fixture ecosystem's location, an in-memory Fetcher with byte
// ranges (and a switch to ignore them), a Fetcher over file paths for http-shaped URLs, and a
// RAII launcher of tests/index/range_server.py on loopback.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/fetcher.h"
#include "base/file_system.h"
#include "base/str.h"

extern char** environ;

namespace wv::test {

/// The generated fixture ecosystem (docs/fixtures.md), or nullopt when it has not been built.
inline std::optional<std::string> fixture_ecosystem() {
  std::vector<std::string> candidates;
  if (const char* build = std::getenv("WV_BUILD_DIR")) {
    candidates.push_back(str_cat(build, "/fixtures/ecosystem"));
  }
  candidates.push_back(str_cat(WV_FIXTURES_DIR, "/generated"));
  for (const std::string& candidate : candidates) {
    if (std::filesystem::exists(candidate + "/simple/index.html")) return candidate;
  }
  return std::nullopt;
}

/// Serves `files` (URL -> bytes) like an HTTP server: 404 when absent, 206 with Content-Range
/// for a range unless `ignore_ranges`. Counts requests.
class MemoryFetcher final : public Fetcher {
 public:
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> content_types;
  bool ignore_ranges = false;
  int requests = 0;
  int ranged = 0;

  Result<FetchResponse> fetch(const FetchRequest& request) override {
    ++requests;
    FetchResponse response;
    response.effective_url = request.url;
    auto found = files.find(request.url);
    if (found == files.end()) {
      response.status = 404;
      return response;
    }
    if (auto type = content_types.find(request.url); type != content_types.end()) {
      response.headers["content-type"] = type->second;
    }
    const std::string& body = found->second;
    if (!request.range || ignore_ranges) {
      response.status = 200;
      response.body = body;
      return response;
    }
    ++ranged;
    std::int64_t size = static_cast<std::int64_t>(body.size());
    std::int64_t first = request.range->first;
    std::int64_t last = request.range->second;
    if (first < 0) {
      first = std::max<std::int64_t>(0, size + first);
      last = size - 1;
    }
    if (last < 0 || last >= size) last = size - 1;
    if (first >= size || first > last) {
      response.status = 416;
      return response;
    }
    response.status = 206;
    response.headers["content-range"] = str_cat("bytes ", first, "-", last, "/", size);
    response.body = body.substr(static_cast<std::size_t>(first),
                                static_cast<std::size_t>(last - first + 1));
    return response;
  }
};

/// Runs tests/index/range_server.py over `root` for the object's lifetime.
class RangeServer {
 public:
  explicit RangeServer(const std::string& root) {
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
    std::string script = std::string(WV_SOURCE_DIR) + "/tests/index/range_server.py";
    std::string root_copy = root;
    char* argv[] = {const_cast<char*>("python3"), const_cast<char*>("-u"), script.data(),
                    const_cast<char*>("--root"), root_copy.data(), nullptr};
    if (::posix_spawnp(&pid_, "python3", &actions, nullptr, argv, environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    stdout_ = from_child[0];
    if (pid_ > 0) read_port();
  }
  ~RangeServer() {
    if (stdin_ >= 0) ::close(stdin_);
    if (stdout_ >= 0) ::close(stdout_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  RangeServer(const RangeServer&) = delete;
  RangeServer& operator=(const RangeServer&) = delete;

  bool ok() const { return port_ > 0; }
  std::string url(std::string_view path) const { return str_cat("http://127.0.0.1:", port_, path); }

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
};

}  // namespace wv::test
