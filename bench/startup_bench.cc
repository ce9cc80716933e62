// Start-up benchmark (bench/startup.cmake): how far wvlock's fast commands sit above the floor
// of any C++ program. Times, interleaved round by round so load drifts hit every case alike:
//   empty        an empty C++ program (bench/empty_main.cc)
//   version      `wvlock version`
//   targets      `wvlock targets --frozen` on a small locked, synced fixture project, on a
//                GPU-less host by override (the goal's case), and with the host probed live
//   sync no-op   `wvlock sync` of that project, already in sync
// and prints the median and min wall time, the median CPU time (user+sys, steadier on a shared
// machine) and each as a ratio to the empty program. Goals: version <= 1.5x, targets and the
// no-op sync <= 2x. --baseline-wvlock PATH times another binary (another build's, e.g. main's)
// on the same project in the same rounds, printed beside.
//
// Usage: startup_bench [--runs N] [--wvlock PATH] [--baseline-wvlock PATH] [--keep]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Case {
  std::string label;
  std::vector<std::string> argv;
  double goal = 0;  ///< the ratio to the empty program it should stay under (0: none)
  bool live_probe = false;  ///< run without the bench's GPU overrides: detection probes the host
  std::vector<double> wall_ms, cpu_ms;
};

/// The detection overrides the bench sets so every case sees a GPU-less host.
const char* const kOverrides[] = {"WVLOCK_OVERRIDE_CUDA_DRIVER", "WVLOCK_OVERRIDE_CUDA_ARCH",
                                  "WVLOCK_OVERRIDE_ROCM", "WVLOCK_OVERRIDE_GFX"};

/// This process's environment, without the overrides when `live_probe`.
std::vector<char*> child_environment(bool live_probe) {
  std::vector<char*> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    bool drop = false;
    for (const char* name : kOverrides) {
      const std::size_t n = std::strlen(name);
      drop |= live_probe && std::strncmp(*entry, name, n) == 0 && (*entry)[n] == '=';
    }
    if (!drop) out.push_back(*entry);
  }
  out.push_back(nullptr);
  return out;
}

/// Runs `argv` with stdout and stderr to /dev/null (or `log`); its exit status, wall and CPU ms.
int spawn_and_wait(const std::vector<std::string>& argv, double& wall_ms, double& cpu_ms,
                   const char* log = "/dev/null", bool live_probe = false) {
  std::vector<char*> environment = child_environment(live_probe);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environment.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  auto ms = [](const timeval& tv) { return tv.tv_sec * 1e3 + tv.tv_usec / 1e3; };
  cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run_shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double minimum(const std::vector<double>& values) {
  return *std::min_element(values.begin(), values.end());
}

std::string python_minor() {
  FILE* pipe = ::popen("'" WV_PYTHON_PATH "' -c \"import sys; print('%d.%d' % sys.version_info[:2])\"", "r");
  char buffer[32] = {};
  if (pipe == nullptr || std::fgets(buffer, sizeof buffer, pipe) == nullptr) return "3.11";
  ::pclose(pipe);
  std::string minor(buffer);
  while (!minor.empty() && (minor.back() == '\n' || minor.back() == '\r')) minor.pop_back();
  return minor;
}

/// A one-dependency project on the fixture index, locked and synced by `wvlock`, in `root`/app.
bool set_up_project(const std::string& root, const std::string& wvlock) {
  fs::create_directory_symlink(WV_FIXTURE_ECOSYSTEM, root + "/generated");
  fs::create_directories(root + "/app");
  std::ofstream(root + "/app/pyproject.toml")
      << "[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [\"idna>=3.10\"]\n\n[tool.wvlock]\npython = \""
      << python_minor()
      << "\"\nindex-url = \"../generated/simple\"\n\n[[tool.wvlock.target]]\nname = \"cpu\"\n"
         "platform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
  const std::string in_app = "cd '" + root + "/app' && '" + wvlock + "' ";
  for (const char* step : {"lock", "sync --python '" WV_PYTHON_PATH "'"}) {
    if (run_shell(in_app + step + " > setup.log 2>&1") != 0) {
      std::fprintf(stderr, "startup_bench: `wvlock %s` failed in %s/app (see setup.log there)\n",
                   step, root.c_str());
      return false;
    }
  }
  return true;
}

void print_row(const Case& c, const Case& floor) {
  const double wall = median(c.wall_ms), low = minimum(c.wall_ms), cpu = median(c.cpu_ms);
  std::printf("%-36s %9.2f %8.2f %8.2f %8.2fx %8.2fx %8.2fx", c.label.c_str(), wall, low, cpu,
              wall / median(floor.wall_ms), low / minimum(floor.wall_ms),
              cpu / std::max(0.01, median(floor.cpu_ms)));
  if (c.goal > 0) {
    std::printf("   <= %.1fx %s", c.goal, wall / median(floor.wall_ms) <= c.goal ? "met" : "MISSED");
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 200;
  std::string wvlock = WV_WVLOCK_PATH, baseline;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--wvlock" && i + 1 < argc) {
      wvlock = fs::absolute(argv[++i]).string();
    } else if (arg == "--baseline-wvlock" && i + 1 < argc) {
      baseline = fs::absolute(argv[++i]).string();
    } else if (arg == "--keep") {
      keep = true;
    } else {
      std::fprintf(stderr, "usage: startup_bench [--runs N] [--wvlock PATH] "
                           "[--baseline-wvlock PATH] [--keep]\n");
      return 2;
    }
  }
  char pattern[] = "/tmp/wvlock-startup-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return 3;
  const std::string root = pattern;
  // The host is GPU-less whatever this machine has, and the cache is the bench's own.
  for (const char* name : kOverrides) ::setenv(name, "", 1);
  ::setenv("WVLOCK_CACHE_DIR", (root + "/cache").c_str(), 1);
  ::unsetenv("VIRTUAL_ENV");
  if (!set_up_project(root, wvlock)) return 1;
  fs::current_path(root + "/app");

  std::vector<Case> cases;
  cases.push_back({"empty C++ program", {WV_EMPTY_MAIN_PATH}});
  auto add_wvlock = [&](const std::string& binary, const std::string& suffix) {
    cases.push_back({"wvlock version" + suffix, {binary, "version"}, 1.5});
    cases.push_back({"wvlock targets --frozen" + suffix, {binary, "targets", "--frozen"}, 2});
    // The same on this host as it is: NVML, libcuda and nvidia-smi looked for, sysfs read.
    cases.push_back({"wvlock targets --frozen, live probe" + suffix,
                     {binary, "targets", "--frozen"}, 0, true});
    cases.push_back({"wvlock sync (no-op)" + suffix, {binary, "sync"}, 2});
  };
  add_wvlock(wvlock, "");
  if (!baseline.empty()) add_wvlock(baseline, " [baseline]");

  // One untimed run each: everything exits 0, and the page cache is warm.
  for (Case& c : cases) {
    double wall = 0, cpu = 0;
    const std::string log = root + "/warmup.log";
    if (int status = spawn_and_wait(c.argv, wall, cpu, log.c_str(), c.live_probe); status != 0) {
      std::fprintf(stderr, "startup_bench: `%s` exited %d:\n", c.label.c_str(), status);
      run_shell("cat '" + log + "' >&2");
      return 1;
    }
  }
  for (int round = 0; round < runs; ++round) {
    for (Case& c : cases) {
      double wall = 0, cpu = 0;
      if (spawn_and_wait(c.argv, wall, cpu, "/dev/null", c.live_probe) != 0) {
        std::fprintf(stderr, "startup_bench: `%s` failed in round %d\n", c.label.c_str(), round);
        return 1;
      }
      c.wall_ms.push_back(wall);
      c.cpu_ms.push_back(cpu);
    }
  }

  std::printf("start-up, %d interleaved runs each (wvlock: %s%s%s)\n", runs, wvlock.c_str(),
              baseline.empty() ? "" : "; baseline: ", baseline.c_str());
  std::printf("%-36s %9s %8s %8s %9s %9s %9s   %s\n", "case", "median ms", "min ms", "cpu ms",
              "x median", "x min", "x cpu", "goal (x median)");
  for (const Case& c : cases) print_row(c, cases.front());
  if (!keep) {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  } else {
    std::printf("project kept in %s/app\n", root.c_str());
  }
  return 0;
}
