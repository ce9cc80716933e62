// What the lock benchmarks share (bench/lock_bench.cc, bench/lock_real_cases.cc): timing a
// child process, the files it reads and writes, pip's resolver as the baseline
// (bench/lock_reference.py), and the comparison of two resolutions.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lock/lockfile.h"

namespace wv::bench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Wall and CPU seconds of one measured step.
struct Timing {
  double wall = 1e9;
  double cpu = 1e9;
  double max_rss_mib = 0;  ///< of the child, for commands (the largest of the rounds)
  void keep_best(const Timing& other) {
    wall = std::min(wall, other.wall);
    cpu = std::min(cpu, other.cpu);
    max_rss_mib = std::max(max_rss_mib, other.max_rss_mib);
  }
};

inline double process_cpu() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

inline double seconds(const timeval& value) {
  return static_cast<double>(value.tv_sec) + static_cast<double>(value.tv_usec) * 1e-6;
}

/// Runs `argv` with stdout to `out_path` ("" = /dev/null) and stderr to /dev/null unless
/// `show_errors`; returns the exit code (-1 when it did not exit) and its wall/CPU time.
inline int run_program(const std::vector<std::string>& argv, Timing* timing,
                const std::string& out_path = "", bool show_errors = false) {
  auto start = Clock::now();
  // Flushed first, or the child's copy of an unflushed buffer is printed twice.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* out = std::freopen(out_path.empty() ? "/dev/null" : out_path.c_str(), "w", stdout);
    if (out == nullptr) ::_exit(126);
    if (!show_errors && std::freopen("/dev/null", "w", stderr) == nullptr) ::_exit(126);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  if (timing != nullptr) {
    timing->wall = std::chrono::duration<double>(Clock::now() - start).count();
    timing->cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    timing->max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}


/// name -> version of one target's closure in `<dir>/pylock.toml` (empty when unreadable).
inline std::map<std::string, std::string> locked_versions(const std::string& dir,
                                                   const std::string& target) {
  std::map<std::string, std::string> versions;
  std::string path = dir + "/pylock.toml";
  auto lockfile = wv::lock::read_lockfile(read_text(path), path);
  if (!lockfile) return versions;
  for (const wv::lock::LockedPackage* package : lockfile->closure(target)) {
    versions[package->name.str()] = package->version;
  }
  return versions;
}

/// A loopback index server (tests/index/range_server.py), killed by the destructor.
class Server {
 public:
  Server(const std::string& python, const std::string& script, const std::string& root,
         const std::vector<std::string>& flags = {}) {
    int to_child[2];
    int from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return;
    std::fflush(stdout);
    std::fflush(stderr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      if (std::freopen("/dev/null", "w", stderr) == nullptr) ::_exit(126);
      ::close(to_child[1]);
      ::close(from_child[0]);
      std::vector<std::string> argv = {python, "-u", script, "--root", root};
      argv.insert(argv.end(), flags.begin(), flags.end());
      std::vector<char*> args;
      for (std::string& arg : argv) args.push_back(arg.data());
      args.push_back(nullptr);
      ::execv(python.c_str(), args.data());
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    std::string line;
    char c = 0;
    while (::read(from_child[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(from_child[0]);
    if (line.rfind("PORT ", 0) == 0) port_ = std::atoi(line.c_str() + 5);
  }
  ~Server() {
    if (pid_ <= 0) return;
    ::close(stdin_);
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};


inline void print_row(const std::string& what, const Timing& timing,
                      const std::string& note = "") {
  std::printf("  %-58s %9.1f ms wall %9.1f ms cpu  %s\n", what.c_str(), timing.wall * 1e3,
              timing.cpu * 1e3, note.c_str());
}

/// Best of `rounds` runs of `wvlock --project DIR [extra...] lock`; -1 wall on failure.
inline Timing time_cli(const std::vector<std::string>& prefix, int rounds) {
  Timing best;
  for (int round = 0; round < rounds; ++round) {
    Timing timing;
    std::vector<std::string> argv = prefix;
    argv.push_back("lock");
    if (run_program(argv, &timing, "", round == 0) != 0) return {-1, -1, 0};
    best.keep_best(timing);
  }
  return best;
}


/// pip on one target: its timing and name -> version.
struct PipResult {
  bool ok = false;
  Timing timing;
  std::map<std::string, std::string> versions;
};

inline PipResult run_pip(const std::string& python, const std::string& index_dir,
                  const std::string& requirements_file, const std::string& scratch) {
  PipResult result;
  std::string out = scratch + "/pip.out";
  int code = run_program({python, std::string(WV_BENCH_DIR) + "/lock_reference.py",
                          "--index-url", "file://" + index_dir, requirements_file},
                         nullptr, out, true);
  if (code != 0) return result;
  std::istringstream lines(read_text(out));
  std::string kind;
  while (lines >> kind) {
    if (kind == "TIME") {
      lines >> result.timing.wall >> result.timing.cpu;
    } else if (kind == "PKG") {
      std::string name;
      std::string version;
      lines >> name >> version;
      result.versions[name] = version;
    }
  }
  result.ok = true;
  return result;
}

inline void compare(const std::string& what, const std::map<std::string, std::string>& wv,
             const PipResult& pip, const Timing& wv_timing) {
  int same = 0;
  int common = 0;
  for (const auto& [name, version] : wv) {
    auto found = pip.versions.find(name);
    if (found == pip.versions.end()) continue;
    ++common;
    if (found->second == version) ++same;
  }
  std::printf("  %s: wvlock %zu packages, pip %zu packages; %d in both, %d at the same version\n",
              what.c_str(), wv.size(), pip.versions.size(), common, same);
  std::printf("  %s: wvlock/pip wall %.1f / %.1f ms = %.1fx faster; cpu %.1f / %.1f ms = %.1fx\n",
              what.c_str(), wv_timing.wall * 1e3, pip.timing.wall * 1e3,
              pip.timing.wall / wv_timing.wall, wv_timing.cpu * 1e3, pip.timing.cpu * 1e3,
              pip.timing.cpu / wv_timing.cpu);
}


/// lock_bench --real-cases INPUTS: real PyPI snapshots (resolvelib's functional-test inputs:
/// INPUTS/case/<case>.json, INPUTS/index/<snapshot>.json) locked by `wvlock` (and `baseline`,
/// when not empty) and resolved by pip under `python`, in the same run
/// (bench/lock_real_cases.cc). False when a case could not be run.
bool bench_real_cases(const std::string& python, int rounds, const std::string& inputs,
                      const std::string& wvlock, const std::string& baseline,
                      const std::string& dir);

}  // namespace wv::bench
