// Install benchmark: for each case, a closure of generated wheels (bench/install_bench_wheels.h:
// real zips, deflated, with RECORDs) installed by wv::install::sync() and by the tools it is
// measured against, in the same run, one line per figure:
//   small  30 wheels, 5 of them with 600 files (--wheels, --big, --files);
//   torch  one torch-shaped wheel (~12,000 files, ~1.56 GB unpacked, ~0.6 GB deflated, a few
//          huge libraries) and 20 small wheels;
//   biglib one wheel of one 400 MB library (torch's biggest): one deflate stream, which one
//          thread inflates, the critical path of a cold sync wherever cores are many.
// Figures (times best of --rounds, 3 for small and 2 for torch; RSS the largest round):
// venv creation; cold sync (a fresh venv, an empty unpacked-wheel cache); warm sync (a fresh
// venv, the cache kept); the no-op re-sync, in process and as the real CLI (`wvlock sync
// --frozen --offline`: the first run, a full one that writes the environment's state record,
// and the best of 20 repeated ones that the record answers) and the empty C++ program timed
// the same way; pip --target with and
// without byte-compiling; cp -r and cp -al of the synced lib/ folder; the max RSS of the cold
// and warm syncs, each alone in a forked child. Then the goals (issue 30), PASS or FAIL: warm
// <= 2x (venv + cp -al), cold >= 3x faster than pip for torch (2x for small and biglib), CLI no-op <= 2x
// the empty program, RSS <= 64 MiB. Every timed step starts after sync(2), untimed.
// "Cold" means an empty wvlock cache only: the page cache is not dropped (that needs a
// privileged host), so the wheels and copied files may be in memory already.
// Options: --case small|torch|biglib|all (all), --rounds N, --keep-wheels DIR (reuse the wheels there,
// else generate them there; kept), --python PATH (pip's interpreter; the first of
// /usr/bin/python3 and python3 that has pip), --no-pip, --dir DIR (/tmp: the working folder,
// removed at the end; /dev/shm measures without the disk), --link-mode auto|clone|hardlink|copy,
// --compile-bytecode, --wvlock PATH (the CLI; default beside this binary in the build).
// On ext4 without a journal, files made within minutes of a mass removal are slower to create
// (see RoundFolder): leave a few minutes after another run, or give --dir a new file system.
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/sync.h"
#include "install_bench_wheels.h"
#include "lock/lockfile.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr double kNone = NAN;

struct Options {
  std::string which = "all";
  int wheels = 30;
  int big = 5;
  int files = 600;
  std::optional<int> rounds;
  std::string python;
  bool pip = true;
  std::string dir = "/tmp";
  std::string keep_wheels;
  wv::LinkMode link_mode = wv::LinkMode::kAuto;
  bool compile_bytecode = false;
  std::string wvlock;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int run_shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A step's wall-clock seconds and the CPU seconds (user + system) it used: on a shared machine
/// the CPU figure tells work from waiting.
struct Timed {
  double wall = kNone;
  double cpu = kNone;
};

double cpu_seconds(const struct rusage& usage) {
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/// CPU seconds of this process and of every child it has waited for (and theirs).
double cpu_used() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    struct rusage usage {};
    ::getrusage(who, &usage);
    total += cpu_seconds(usage);
  }
  return total;
}

/// Measures `step` (which returns false when it failed: then the figures are NaN).
template <typename Step>
Timed timed(Step step) {
  double cpu = cpu_used();
  auto start = Clock::now();
  bool ok = step();
  Timed result{seconds_since(start), cpu_used() - cpu};
  return ok ? result : Timed{};
}

Timed time_shell(const std::string& command) {
  return timed([&] { return run_shell(command) == 0; });
}

void keep_best(Timed& best, Timed value) {
  if (!std::isnan(value.wall) && (std::isnan(best.wall) || value.wall < best.wall)) best = value;
}

/// Writes back what earlier steps (and other processes) left dirty, untimed, so that a step
/// that makes its writes durable (sync's syncfs) pays for its own writes alone.
void settle() { ::sync(); }

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string find_pip_python() {
  for (const char* candidate : {"/usr/bin/python3", "python3"}) {
    if (run_shell(wv::str_cat(candidate, " -m pip --version >/dev/null 2>&1")) == 0) return candidate;
  }
  return "";
}

/// The CLI built beside this binary: <build>/wvlock or <build>/src/cli/wvlock.
std::string find_wvlock() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (fs::path candidate : {self.parent_path() / "wvlock", self.parent_path().parent_path() / "wvlock",
                             self.parent_path().parent_path() / "src/cli/wvlock"}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

unsigned long file_system_type(const std::string& path) {
  struct statfs info;
  return ::statfs(path.c_str(), &info) == 0 ? static_cast<unsigned long>(info.f_type) : 0;
}

constexpr unsigned long kExtMagic = 0xEF53;

std::string file_system_name(const std::string& path) {
  const unsigned long type = file_system_type(path);
  if (type == 0) return "unknown";
  const char* name = "other";
  switch (type) {
    case kExtMagic: name = "ext2/3/4"; break;
    case 0x58465342: name = "xfs"; break;
    case 0x9123683E: name = "btrfs"; break;
    case 0x01021994: name = "tmpfs"; break;
    case 0x794C7630: name = "overlayfs"; break;
    case 0x2FC12FC1: name = "zfs"; break;
    case 0xF2F52010: name = "f2fs"; break;
    case 0x6969: name = "nfs"; break;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%s (statfs type 0x%lx)", name, type);
  return text;
}

double resident_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return kNone;
}

// ---- the cases ----

struct Wheel {
  std::string package;
  std::string version;
  std::string path;
  std::vector<bench::Member> members;  ///< empty once written or when reused
};

struct Case {
  std::string name;
  int rounds = 1;
  std::vector<Wheel> wheels;
  std::string description;
};

Wheel small_package(const std::string& folder, int index, int files, std::mt19937& random) {
  Wheel wheel{wv::str_cat("pkg", index), "1.0", "", {}};
  wheel.path = wv::str_cat(folder, "/", wheel.package, "-1.0-py3-none-any.whl");
  wheel.members = bench::small_wheel(wheel.package, files, random);
  return wheel;
}

Case make_case(const std::string& name, const Options& options, const std::string& folder) {
  Case result;
  result.name = name;
  std::mt19937 random(42);
  if (name == "small") {
    result.rounds = options.rounds.value_or(3);
    for (int w = 0; w < options.wheels; ++w) {
      int files = w < options.big ? options.files : 10 + static_cast<int>(random() % 20);
      result.wheels.push_back(small_package(folder, w, files, random));
    }
    return result;
  }
  if (name == "biglib") {
    result.rounds = options.rounds.value_or(3);
    Wheel big{"biglib", "1.0", folder + "/biglib-1.0-py3-none-any.whl", bench::one_library_wheel("biglib", "1.0", 400)};
    result.wheels.push_back(std::move(big));
    return result;
  }
  result.rounds = options.rounds.value_or(2);
  Wheel torch{"torchlike", "2.9.0", folder + "/torchlike-2.9.0-py3-none-any.whl",
              bench::torchlike_wheel("torchlike", "2.9.0")};
  result.wheels.push_back(std::move(torch));
  for (int w = 0; w < 20; ++w) {
    result.wheels.push_back(small_package(folder, w, 10 + static_cast<int>(random() % 21), random));
  }
  return result;
}

/// Generates the wheels not already in their folder. Returns the seconds it took, NaN on failure.
double write_wheels(Case& bench_case) {
  auto start = Clock::now();
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  bool generated = false;
  for (Wheel& wheel : bench_case.wheels) {
    if (!fs::exists(wheel.path)) {
      unsigned parts = wheel.members.size() > 1000 ? threads : 1;
      if (!bench::write_wheel(wheel.path, wheel.members, parts,
                              wv::str_cat(wheel.package, "-", wheel.version, ".dist-info/RECORD"))) {
        std::fprintf(stderr, "cannot write %s\n", wheel.path.c_str());
        return kNone;
      }
      generated = true;
    }
    wheel.members.clear();
    wheel.members.shrink_to_fit();
  }
  ::malloc_trim(0);  // so the forked syncs start from a small process
  return generated ? seconds_since(start) : 0.0;
}

std::string describe(const Case& bench_case, double generation_seconds) {
  std::uint64_t wheel_bytes = 0;
  bench::WheelStats all, first;
  for (std::size_t i = 0; i < bench_case.wheels.size(); ++i) {
    bench::WheelStats stats;
    bench::wheel_stats(bench_case.wheels[i].path, stats);
    if (i == 0) first = stats;
    all.files += stats.files;
    all.unpacked += stats.unpacked;
    wheel_bytes += fs::file_size(bench_case.wheels[i].path);
  }
  char text[512];
  char generated[48] = ", reused";
  if (generation_seconds > 0) std::snprintf(generated, sizeof generated, ", generated in %.1f s", generation_seconds);
  if (bench_case.name == "torch") {
    std::snprintf(text, sizeof text,
                  "%zu wheels, %.1f MB: torchlike %llu files, %.3f GB unpacked, %.1f MB deflated "
                  "(ratio %.2f; its %d largest libraries %.2f), 20 small wheels %llu files%s",
                  bench_case.wheels.size(), wheel_bytes / 1e6,
                  static_cast<unsigned long long>(first.files), first.unpacked / 1e9,
                  first.deflated / 1e6, static_cast<double>(first.unpacked) / first.deflated,
                  first.huge, static_cast<double>(first.huge_unpacked) / first.huge_deflated,
                  static_cast<unsigned long long>(all.files - first.files), generated);
  } else {
    std::snprintf(text, sizeof text, "%zu wheels, %.1f MB, %llu files, %.1f MB unpacked%s",
                  bench_case.wheels.size(), wheel_bytes / 1e6,
                  static_cast<unsigned long long>(all.files), all.unpacked / 1e6, generated);
  }
  return text;
}

wv::lock::Lockfile make_lockfile(const Case& bench_case, const std::string& machine) {
  wv::lock::Lockfile lockfile;
  wv::lock::LockedTarget target;
  target.name = "any";
  target.declared = *wv::targets::target_from_facts("any", {{"platform", "linux-" + machine}});
  for (const Wheel& wheel : bench_case.wheels) {
    wv::lock::LockedPackage package;
    package.name = *wv::pkg::parse_package_name(wheel.package);
    package.version = wheel.version;
    wv::lock::LockedFile file;
    file.name = fs::path(wheel.path).filename().string();
    file.path = wheel.path;
    file.sha256 = wv::sha256_file_hex(wheel.path).value();
    file.size = fs::file_size(wheel.path);
    package.wheels = {file};
    package.targets["any"].wheels = {file.name};
    target.roots.push_back(wv::str_cat(package.name, "==", package.version));
    lockfile.packages.push_back(package);
  }
  lockfile.targets = {target};
  wv::lock::canonicalize(lockfile);
  return lockfile;
}

// ---- measuring ----

struct ChildSync {
  Timed time;  ///< the wall time of the sync() call, the CPU of the whole child
  double max_rss_mib = kNone;
  std::string error;  ///< "" when it synced
};

/// One sync() alone in a forked child, so that its max RSS is its own (plus what the child
/// shares of this small process at the fork). The child times the call itself.
ChildSync sync_in_child(const wv::install::SyncOptions& options, const wv::lock::Lockfile& lockfile,
                        const wv::targets::HostProfile& host) {
  ChildSync result;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {{}, kNone, "pipe() failed"};
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    wv::install::LocalWheelStore store("");
    auto start = Clock::now();
    auto report = wv::install::sync(options, lockfile, host, store);
    std::string message = report ? wv::str_cat("ok ", std::to_string(seconds_since(start)))
                                 : report.error().to_string();
    ssize_t written = ::write(pipe_fds[1], message.data(), message.size());
    (void)written;
    ::_exit(report ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid) return {{}, kNone, "fork() failed"};
  result.max_rss_mib = usage.ru_maxrss / 1024.0;  // KiB on Linux
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && message.rfind("ok ", 0) == 0) {
    result.time.wall = std::atof(message.c_str() + 3);
    result.time.cpu = cpu_seconds(usage);
  } else {
    result.error = message.empty() ? wv::str_cat("the child ended with status ", status) : message;
  }
  return result;
}

struct CommandRun {
  Timed time;
  std::string failure;  ///< "" when it exited 0
};

/// Runs `argv` (no shell), its output into `log`, timing from fork to exit.
CommandRun run_command(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  std::fflush(nullptr);
  int status = 0;
  Timed time = timed([&] {
    pid_t pid = ::fork();
    if (pid == 0) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execv(pointers[0], pointers.data());
      ::_exit(127);
    }
    return pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  });
  if (!std::isnan(time.wall)) return {time, ""};
  std::ifstream in(log);
  std::stringstream output;
  output << in.rdbuf();
  std::string text = output.str();
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  std::replace(text.begin(), text.end(), '\n', ' ');
  return {{}, wv::str_cat("exit ", WIFEXITED(status) ? WEXITSTATUS(status) : -1, ": ", text)};
}

struct Figures {
  Timed venv, cold, warm, noop, noop_cli_first, noop_cli, empty, pip_plain, pip_compiled, cp_r, cp_al;
  double rss_cold = kNone, rss_warm = kNone, bench_rss = kNone;
  std::string sync_error, cli_error, pip_error, copy_error;
};

struct Context {
  const Options& options;
  std::string dir;
  std::string machine;
  wv::targets::HostProfile host;
  std::string wvlock;
  std::string pip_python;
  bool keep_rounds = false;  ///< RoundFolder: removed only at the end of the run
};

wv::install::SyncOptions sync_options(const Context& context, const std::string& venv,
                                      const std::string& cache) {
  wv::install::SyncOptions options;
  options.venv = venv;
  options.cache_dir = cache;
  options.link_mode = context.options.link_mode;
  options.compile_bytecode = context.options.compile_bytecode;
  return options;
}

void keep_largest(double& largest, double value) {
  if (!std::isnan(value) && (std::isnan(largest) || value > largest)) largest = value;
}

/// A round's trees. ext4 without a journal (this project's build machines) skips every inode
/// freed in the last 1-6 minutes when it allocates one (`recently_deleted()`, a buffer lookup
/// per skipped inode): after a round's ~60,000 removals the next round's cold sync spent a
/// fifth of its CPU there, and whichever step came first after a removal paid for it. So on
/// ext2/3/4 every round's trees stay until the run ends (~6.5 GB a torch round); elsewhere
/// (tmpfs: memory) they go when the round ends.
struct RoundFolder {
  std::string path;
  bool keep;
  ~RoundFolder() {
    if (!keep) remove_tree(path);
  }
};

/// Runs of the repeated CLI no-op (and, plus one, of the empty program) a round: a run is ~1 ms,
/// and with five the best of either moved by a third between rounds on a busy machine.
constexpr int kNoopRepeats = 20;

/// One round of every figure; false when a sync failed (the rest would mean nothing).
bool measure_round(const Context& context, const Case& bench_case, const wv::lock::Lockfile& lockfile,
                   const std::string& project, int index, Figures& figures) {
  RoundFolder round{wv::str_cat(context.dir, "/", bench_case.name, "-round", index), context.keep_rounds};
  const std::string base = round.path + "/";
  const std::string cold_venv = base + "venv-cold", warm_venv = base + "venv-warm";
  const std::string cache = base + "cache";
  fs::create_directories(cache);  // empty: the cold sync fills it
  const std::string make_venv = "python3 -m venv --without-pip ";
  settle();
  keep_best(figures.venv, time_shell(make_venv + cold_venv));
  keep_largest(figures.bench_rss, resident_mib());
  settle();
  // Cold for wvlock only: the wheels (and what was written before) may be in the page cache.
  ChildSync cold = sync_in_child(sync_options(context, cold_venv, cache), lockfile, context.host);
  if (!cold.error.empty()) {
    figures.sync_error = "cold sync: " + cold.error;
    return false;
  }
  keep_best(figures.cold, cold.time);
  keep_largest(figures.rss_cold, cold.max_rss_mib);

  settle();
  keep_best(figures.venv, time_shell(make_venv + warm_venv));
  settle();
  ChildSync warm = sync_in_child(sync_options(context, warm_venv, cache), lockfile, context.host);
  if (!warm.error.empty()) {
    figures.sync_error = "warm sync: " + warm.error;
    return false;
  }
  keep_best(figures.warm, warm.time);
  keep_largest(figures.rss_warm, warm.max_rss_mib);

  wv::install::LocalWheelStore store("");
  settle();
  std::string noop_error;
  keep_best(figures.noop, timed([&] {
              auto report = wv::install::sync(sync_options(context, warm_venv, cache), lockfile, context.host, store);
              if (!report) noop_error = report.error().to_string();
              return report.has_value();
            }));
  if (!noop_error.empty()) {
    figures.sync_error = "no-op re-sync: " + noop_error;
    return false;
  }

  if (context.wvlock.empty()) {
    figures.cli_error = "no wvlock binary beside this one (pass --wvlock PATH)";
  } else {
    std::vector<std::string> argv = {context.wvlock, "sync", "--frozen", "--offline", "--cache-dir",
                                     cache, "--project", project, "--venv", warm_venv};
    if (context.options.link_mode != wv::LinkMode::kAuto) {
      argv.insert(argv.end(), {"--link-mode", std::string(wv::to_string(context.options.link_mode))});
    }
    if (context.options.compile_bytecode) argv.push_back("--compile-bytecode");
    settle();
    // The first CLI sync after the library's is a full one and writes the state record
    // (install/sync_state.h); the repeated ones are what an unchanged project costs.
    ::usleep(100'000);  // older than the record's margin: the first one records
    CommandRun cli = run_command(argv, base + "cli.log");
    keep_best(figures.noop_cli_first, cli.time);
    for (int repeat = 0; repeat < kNoopRepeats && cli.failure.empty(); ++repeat) {
      cli = run_command(argv, base + "cli.log");
      keep_best(figures.noop_cli, cli.time);
    }
    if (!cli.failure.empty()) figures.cli_error = cli.failure;
  }
  // The floor of any command, timed the same way, for the no-op's ratio.
  for (int repeat = 0; repeat < kNoopRepeats + 1; ++repeat) {  // as many runs as the CLI's
    keep_best(figures.empty, run_command({WV_EMPTY_MAIN_PATH}, base + "empty.log").time);
  }

  // The same unpacked tree copied and hard-linked on the same file system.
  settle();
  Timed cp_r = time_shell(wv::str_cat("cp -r ", warm_venv, "/lib ", base, "copy"));
  settle();
  Timed cp_al = time_shell(wv::str_cat("cp -al ", warm_venv, "/lib ", base, "links"));
  if (std::isnan(cp_r.wall) || std::isnan(cp_al.wall)) figures.copy_error = "cp failed";
  keep_best(figures.cp_r, cp_r);
  keep_best(figures.cp_al, cp_al);

  if (!context.pip_python.empty()) {
    std::string files;
    for (const Wheel& wheel : bench_case.wheels) files += " " + wheel.path;
    for (bool compile : {false, true}) {
      const std::string target = base + (compile ? "pip-compiled" : "pip");
      settle();
      Timed pip = time_shell(wv::str_cat(context.pip_python, " -m pip install -q --no-deps --no-index",
                                         " --disable-pip-version-check", compile ? "" : " --no-compile",
                                         " --target ", target, files, " >/dev/null 2>&1"));
      if (std::isnan(pip.wall)) figures.pip_error = "pip install failed";
      keep_best(compile ? figures.pip_compiled : figures.pip_plain, pip);
    }
  }
  return true;
}

// ---- the report ----

void line(const std::string& name, const std::string& what, const std::string& figure,
          const char* unit, const std::string& note) {
  std::printf("%-6s %-46s %9s %-3s %s\n", name.c_str(), what.c_str(), figure.c_str(), unit, note.c_str());
}

/// A time: wall seconds, then the CPU seconds and `note`.
void line(const std::string& name, const std::string& what, Timed time, const std::string& note = "") {
  char wall[32] = "-", cpu[48] = "";
  if (!std::isnan(time.wall)) std::snprintf(wall, sizeof wall, "%.3f", time.wall);
  if (!std::isnan(time.cpu)) std::snprintf(cpu, sizeof cpu, "cpu %7.3f s  ", time.cpu);
  line(name, what, wall, "s", cpu + note);
}

void line_mib(const std::string& name, const std::string& what, double mib, const std::string& note = "") {
  char figure[32] = "-";
  if (!std::isnan(mib)) std::snprintf(figure, sizeof figure, "%.1f", mib);
  line(name, what, figure, "MiB", note);
}

std::string ratio(const char* label, double numerator, double denominator) {
  if (std::isnan(numerator) || std::isnan(denominator) || denominator <= 0) return "";
  char text[128];
  std::snprintf(text, sizeof text, "%s %.2fx", label, numerator / denominator);
  return text;
}

/// `detail` (the measured figures) is left out when something was not measured.
void goal(const std::string& name, const char* rule, const std::string& detail, std::optional<bool> pass) {
  std::string text = pass ? wv::str_cat(rule, ": ", detail) : rule;
  std::printf("%-6s goal %-72s %s\n", name.c_str(), text.c_str(),
              !pass ? "NOT MEASURED" : *pass ? "PASS" : "FAIL");
}

std::string format(const char* pattern, double a, double b = 0) {
  char text[96];
  std::snprintf(text, sizeof text, pattern, a, b);
  return text;
}

void report(const std::string& name, const Figures& f, int rounds) {
  line(name, "venv creation (python3 -m venv --without-pip)", f.venv, wv::str_cat("(best of ", rounds, ")"));
  line(name, "cold sync (fresh venv, empty cache)", f.cold);
  line(name, "warm sync (fresh venv, cache kept)", f.warm,
       ratio("warm/(venv + cp -al)", f.warm.wall, f.venv.wall + f.cp_al.wall));
  line(name, "no-op re-sync (library call)", f.noop);
  line(name, "no-op re-sync (CLI, first: full, records)", f.noop_cli_first,
       ratio("/empty program", f.noop_cli_first.wall, f.empty.wall));
  line(name, "no-op re-sync (wvlock sync CLI, repeated)", f.noop_cli,
       f.cli_error.empty() ? ratio("/empty program", f.noop_cli.wall, f.empty.wall)
                           : "failed: " + f.cli_error);
  line(name, "empty C++ program (bench/empty_main.cc)", f.empty);
  line(name, "pip install --target --no-compile", f.pip_plain,
       f.pip_error.empty() ? ratio("/cold sync", f.pip_plain.wall, f.cold.wall) : f.pip_error);
  line(name, "pip install --target (byte-compiled)", f.pip_compiled,
       ratio("/cold sync", f.pip_compiled.wall, f.cold.wall));
  line(name, "cp -r of the synced lib/", f.cp_r, f.copy_error);
  line(name, "cp -al of the synced lib/", f.cp_al);
  line_mib(name, "max RSS of the cold sync", f.rss_cold,
           format("(the child starts with the bench process's %.1f MiB at fork)", f.bench_rss));
  line_mib(name, "max RSS of the warm sync", f.rss_warm);

  auto verdict = [](std::initializer_list<double> values, bool pass) {
    bool measured = std::none_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
    return measured ? std::optional<bool>(pass) : std::nullopt;
  };
  const double warm = f.warm.wall, cold = f.cold.wall, pip = f.pip_plain.wall, cli = f.noop_cli.wall;
  const double budget = 2 * (f.venv.wall + f.cp_al.wall), floor = f.empty.wall;
  goal(name, "warm sync <= 2x (venv creation + cp -al)", format("%.3f s vs %.3f s", warm, budget),
       verdict({warm, budget}, warm <= budget));
  // The torch-shaped case is where the parallel inflate pays; small wheels are mostly file
  // creation, which pip and wvlock pay alike, and one library is one stream on one thread.
  const double speedup = name == "torch" ? 3 : 2;
  goal(name, name == "torch" ? "cold sync >= 3x faster than pip --no-compile"
                             : "cold sync >= 2x faster than pip --no-compile",
       format("%.2fx", pip / cold), verdict({pip, cold}, pip >= speedup * cold));
  goal(name, "no-op re-sync (CLI) <= 2x the empty program",
       format("%.1f ms vs %.1f ms", cli * 1000, floor * 1000),
       verdict({cli, floor}, cli <= 2 * floor));
  goal(name, "max RSS <= 64 MiB", format("cold %.1f, warm %.1f MiB", f.rss_cold, f.rss_warm),
       verdict({f.rss_cold, f.rss_warm}, f.rss_cold <= 64 && f.rss_warm <= 64));
}

int run_case(const Context& context, const std::string& name) {
  const Options& options = context.options;
  std::string folder = options.keep_wheels.empty()
                           ? wv::str_cat(context.dir, "/wheels-", name)
                           : name == "small" ? wv::str_cat(options.keep_wheels, "/small-w", options.wheels,
                                                           "-b", options.big, "-f", options.files)
                                             : wv::str_cat(options.keep_wheels, "/", name, "-v1");
  fs::create_directories(folder);
  Case bench_case = make_case(name, options, folder);
  double generation = write_wheels(bench_case);
  if (std::isnan(generation)) return 3;
  std::printf("%-6s case: %s\n", name.c_str(), describe(bench_case, generation).c_str());
  wv::lock::Lockfile lockfile = make_lockfile(bench_case, context.machine);
  // The CLI's project: the lock alone (with --frozen sync reads no pyproject.toml).
  const std::string project = wv::str_cat(context.dir, "/", name, "-project");
  fs::create_directories(project);
  std::ofstream(project + "/pylock.toml") << wv::lock::write_lockfile(lockfile);

  Figures figures;
  for (int round = 0; round < bench_case.rounds; ++round) {
    if (!measure_round(context, bench_case, lockfile, project, round, figures)) {
      std::printf("%-6s sync failed: %s\n", name.c_str(), figures.sync_error.c_str());
      return 1;
    }
  }
  report(name, figures, bench_case.rounds);
  return 0;
}

std::optional<wv::LinkMode> parse_link_mode(const std::string& text) {
  for (wv::LinkMode mode : {wv::LinkMode::kAuto, wv::LinkMode::kClone, wv::LinkMode::kHardlink,
                            wv::LinkMode::kCopy}) {
    if (wv::to_string(mode) == text) return mode;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--case") options.which = next();
    else if (arg == "--wheels") options.wheels = std::atoi(next().c_str());
    else if (arg == "--big") options.big = std::atoi(next().c_str());
    else if (arg == "--files") options.files = std::atoi(next().c_str());
    else if (arg == "--rounds") options.rounds = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--python") options.python = next();
    else if (arg == "--no-pip") options.pip = false;
    else if (arg == "--dir") options.dir = next();
    else if (arg == "--keep-wheels") options.keep_wheels = next();
    else if (arg == "--compile-bytecode") options.compile_bytecode = true;
    else if (arg == "--wvlock") options.wvlock = next();
    else if (arg == "--link-mode") {
      std::string text = next();
      auto mode = parse_link_mode(text);
      if (!mode) {
        std::fprintf(stderr, "`--link-mode` takes auto, clone, hardlink or copy, not `%s`\n", text.c_str());
        return 2;
      }
      options.link_mode = *mode;
    } else {
      std::fprintf(stderr, "unknown option `%s`\n", arg.c_str());
      return 2;
    }
  }
  if (options.which != "small" && options.which != "torch" && options.which != "biglib" &&
      options.which != "all") {
    std::fprintf(stderr, "`--case` takes small, torch, biglib or all, not `%s`\n", options.which.c_str());
    return 2;
  }
  std::string dir_template = options.dir + "/wvlock-install-bench-XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) return 3;

  struct utsname uname_result;
  ::uname(&uname_result);
  Context context{options, dir_template, uname_result.machine, {}, options.wvlock, ""};
  context.host.os.set(wv::targets::OsKind::kLinux, wv::targets::FactSource::kUname);
  context.host.arch.set(context.machine, wv::targets::FactSource::kUname);
  context.host.libc.set(wv::targets::LibcKind::kGlibc, wv::targets::FactSource::kLibc);
  context.host.libc_version.set({2, 35}, wv::targets::FactSource::kLibc);
  context.keep_rounds = file_system_type(options.dir) == kExtMagic;
  if (context.wvlock.empty()) context.wvlock = find_wvlock();
  if (options.pip) context.pip_python = options.python.empty() ? find_pip_python() : options.python;

  cpu_set_t usable;
  CPU_ZERO(&usable);
  ::sched_getaffinity(0, sizeof usable, &usable);
  std::printf("machine: %u cores online, %d usable; --dir %s is %s; link mode %s, bytecode %s\n",
              std::thread::hardware_concurrency(), CPU_COUNT(&usable), options.dir.c_str(),
              file_system_name(options.dir).c_str(), std::string(wv::to_string(options.link_mode)).c_str(),
              options.compile_bytecode ? "compiled" : "off");
  if (context.keep_rounds) {
    std::printf("ext4: each round's trees are kept until the run ends (~6.5 GB a torch round), and "
                "files removed in the last minutes (an earlier run's) still slow inode allocation\n");
  }
  std::printf("wvlock: %s; pip: %s\n", context.wvlock.empty() ? "not found" : context.wvlock.c_str(),
              context.pip_python.empty() ? "not measured" : context.pip_python.c_str());
  int code = 0;
  for (const char* name : {"small", "torch", "biglib"}) {
    if (options.which == "all" || options.which == name) code = std::max(code, run_case(context, name));
  }
  remove_tree(context.dir);
  return code;
}
