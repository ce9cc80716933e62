// A loopback test server written in Python, run for the lifetime of one object: started with
// posix_spawn, its "PORT N" line read from stdout, stopped by the destructor (and it exits by
// itself when its stdin pipe closes, so a crashed test leaves no server behind).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace wv::test {

class ServerProcess {
 public:
  /// Runs `WV_TEST_PYTHON <arguments...>` (interpreter flags, the script, its options).
  explicit ServerProcess(std::vector<std::string> arguments);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  /// True when the server printed its port within 10 seconds.
  bool ok() const { return port_ > 0; }
  int port() const { return port_; }

 private:
  void read_port();

  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int port_ = 0;
};

}  // namespace wv::test
