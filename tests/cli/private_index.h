// Test support: a private package index as an enterprise has one, made at test time: nginx
// serving a one-package PEP 503 index (`demo 1.0`, a pure-Python wheel with its PEP 658
// metadata) over HTTPS with a certificate from a private CA (openssl CLI), behind HTTP Basic
// auth (user `alice`, password `s3cret-pw`, hashed with `openssl passwd -apr1`). nginx runs as
// our own child under a shell that kills it when our stdin pipe closes, so a crashed test
// leaves nothing running.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "tests/cli/cli_support.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace wv::test {

inline constexpr const char* kIndexUser = "alice";
inline constexpr const char* kIndexPassword = "s3cret-pw";

/// The nginx binary, or "" when it is not installed (it lives in /usr/sbin, often off PATH).
inline std::string find_nginx() {
  // Named, not a temporary: split() returns views into it, and a temporary in the range
  // expression would be gone before the loop runs.
  const std::string path = str_cat(std::getenv("PATH") ? std::getenv("PATH") : "", ":/usr/sbin:/sbin");
  for (std::string_view folder : split(path, ':')) {
    std::string candidate = str_cat(folder, "/nginx");
    if (!folder.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

class PrivateIndex {
 public:
  /// Makes the CA, the certificate, the index and the password file, and starts nginx;
  /// `error()` says what failed ("" when it runs).
  /// `max_age` > 0: project pages carry `Cache-Control: max-age=N`, as the public index's do.
  explicit PrivateIndex(const std::string& nginx, int max_age = 0) {
    const std::string d = dir_.path();
    if (!shell_ok(str_cat(
            "cd '", d, "' && mkdir -p tmp www/simple/demo www/files certs && "
            // The CA, then a server certificate for 127.0.0.1 and localhost signed by it.
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
            "-subj '/CN=wvlock test CA' -keyout ca.key -out ca.pem && "
            "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
            "-subj /CN=127.0.0.1 -keyout server.key -out server.csr && "
            "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > ext.cnf && "
            "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
            "-extfile ext.cnf -out server.pem && "
            // The CA as a hashed folder too (SSL_CERT_DIR), and the password file.
            "cp ca.pem certs/ && openssl rehash certs && "
            "printf '", kIndexUser, ":%s\\n' \"$(openssl passwd -apr1 '", kIndexPassword,
            "')\" > htpasswd"))) {
      error_ = "the openssl command failed to make the CA, certificate or password file";
      return;
    }
    write_index();
    if (!error_.empty()) return;
    port_ = free_port();
    std::ofstream(d + "/nginx.conf") << str_cat(
        geteuid() == 0 ? "user root;\n" : "", "worker_processes 1;\npid ", d, "/nginx.pid;\n",
        "error_log ", d, "/error.log;\nevents { worker_connections 64; }\nhttp {\n",
        "  access_log ", d, "/access.log;\n",
        "  client_body_temp_path ", d, "/tmp/body;\n  proxy_temp_path ", d, "/tmp/proxy;\n",
        "  fastcgi_temp_path ", d, "/tmp/fastcgi;\n  uwsgi_temp_path ", d, "/tmp/uwsgi;\n",
        "  scgi_temp_path ", d, "/tmp/scgi;\n",
        "  types { text/html html; application/octet-stream whl metadata; }\n",
        "  server {\n    listen 127.0.0.1:", port_, " ssl;\n",
        "    ssl_certificate ", d, "/server.pem;\n    ssl_certificate_key ", d, "/server.key;\n",
        "    root ", d, "/www;\n    auth_basic \"wvlock test index\";\n",
        "    auth_basic_user_file ", d, "/htpasswd;\n",
        max_age > 0 ? str_cat("    location /simple/ { add_header Cache-Control \"max-age=",
                              max_age, "\"; }\n")
                    : std::string(),
        "  }\n}\n");
    start(nginx);
  }

  ~PrivateIndex() {
    if (stdin_ >= 0) ::close(stdin_);  // the shell then stops nginx and exits
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  PrivateIndex(const PrivateIndex&) = delete;
  PrivateIndex& operator=(const PrivateIndex&) = delete;

  const std::string& error() const { return error_; }
  /// `https://127.0.0.1:PORT/simple/`
  std::string url() const { return str_cat("https://127.0.0.1:", port_, "/simple/"); }
  std::string file(const std::string& leaf) const { return dir_.file(leaf); }
  /// nginx's access log: one line per request, with its status. nginx writes a request's line
  /// after the response has gone out, so a client that has already exited can be ahead of it:
  /// the log is read until two reads 50 ms apart agree (at most 2 s).
  std::string access_log() const {
    std::string log = slurp(dir_.file("access.log"));
    for (int tries = 0; tries < 40; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::string again = slurp(dir_.file("access.log"));
      if (again == log) break;
      log = std::move(again);
    }
    return log;
  }
  /// A pyproject.toml that locks `demo` from this index, named `internal`.
  std::string pyproject(const std::string& extra_tool_lines = "") const {
    return str_cat("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\n",
                   "dependencies = [\"demo\"]\n\n[tool.wvlock]\npython = \"3.11\"\n", extra_tool_lines,
                   "\n[[tool.wvlock.index]]\nname = \"internal\"\nurl = \"", url(),
                   "\"\ndefault = true\n\n[[tool.wvlock.target]]\nname = \"linux\"\n",
                   "platform = \"linux-x86_64\"\nglibc = \"2.17\"\n");
  }

 private:
  static bool shell_ok(const std::string& command) {
    return std::system(str_cat("(", command, ") >/dev/null 2>&1").c_str()) == 0;
  }

  // demo 1.0: a wheel made by Python's zipfile (RECORD with hashes), its page and metadata.
  void write_index() {
    const std::string d = dir_.path();
    const std::string wheel = d + "/www/files/demo-1.0-py3-none-any.whl";
    const std::string metadata = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n";
    std::ofstream(d + "/make_wheel.py") << str_cat(
        "import base64, hashlib, sys, zipfile\n"
        "files = {'demo/__init__.py': b'VALUE = 42\\n',\n"
        "         'demo-1.0.dist-info/METADATA': b'", "Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n", "',\n"
        "         'demo-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: test\\n"
        "Root-Is-Purelib: true\\nTag: py3-none-any\\n'}\n"
        "record = []\n"
        "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
        "    for name, data in files.items():\n"
        "        z.writestr(name, data)\n"
        "        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()\n"
        "        record.append(f'{name},sha256={digest},{len(data)}')\n"
        "    record.append('demo-1.0.dist-info/RECORD,,')\n"
        "    z.writestr('demo-1.0.dist-info/RECORD', '\\n'.join(record) + '\\n')\n");
    if (!shell_ok(str_cat("'", WV_TEST_PYTHON, "' '", d, "/make_wheel.py' '", wheel, "'"))) {
      error_ = "python could not make the test wheel";
      return;
    }
    std::ofstream(wheel + ".metadata") << metadata;
    std::ifstream in(wheel, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(d + "/www/simple/demo/index.html") << str_cat(
        "<!DOCTYPE html>\n<html><body>\n<a href=\"../../files/demo-1.0-py3-none-any.whl#sha256=",
        sha256_hex(bytes), "\" data-dist-info-metadata=\"sha256=", sha256_hex(metadata),
        "\">demo-1.0-py3-none-any.whl</a>\n</body></html>\n");
  }

  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port = ntohs(address.sin_port);
    }
    ::close(fd);
    return port;
  }

  static bool accepts(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(std::uint16_t(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
  }

  void start(const std::string& nginx) {
    const std::string d = dir_.path();
    // sh reads its stdin (our pipe) and stops nginx when it closes.
    const std::string script =
        str_cat("'", nginx, "' -p '", d, "' -c '", d, "/nginx.conf' -e '", d,
                "/error.log' -g 'daemon off;' & n=$!; read _; kill $n; wait $n");
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {  // the commands a test runs do not inherit it
      error_ = "cannot make a pipe";
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], STDIN_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    std::string log = d + "/nginx.out";
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
    const int spawned = posix_spawn(&pid_, "/bin/sh", &actions, nullptr,
                                    const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[0]);
    stdin_ = pipe_fds[1];
    if (spawned != 0) {
      pid_ = -1;
      error_ = "cannot start /bin/sh";
      return;
    }
    for (int i = 0; i < 250; ++i) {  // up to 5 s
      if (accepts(port_)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    error_ = str_cat("nginx did not start: ", slurp(d + "/nginx.out"), slurp(d + "/error.log"));
  }

  TempDir dir_;
  std::string error_;
  int port_ = 0;
  pid_t pid_ = -1;
  int stdin_ = -1;
};

}  // namespace wv::test
