// Solver benchmark: seeded synthetic registries solved by wv::solver (PubGrub over
// OfflineProvider<std::string, int>), then the same registries, written out as JSON, solved by
// pip's bundled resolvelib (bench/solver_reference.py under /usr/bin/python3) in the same run,
// with the ratio. Both sides try candidates newest first and decide the package with the
// fewest candidates first. Each case runs in a forked child so its peak memory is its own.
// Options: --no-python, --rounds N (our repetitions, median reported), --timeout S (Python),
// --only I (run case I alone, from 0).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/solve.h"
#include "solver/state_impl.h"

namespace {

using wv::solver::Bound;
using Set = wv::solver::Ranges<int>;
using Provider = wv::solver::OfflineProvider<std::string, int>;

// A half-open interval [lo, hi) of integer versions; nullopt is unbounded.
struct Interval {
  std::optional<int> lo, hi;
};
struct Dependency {
  int package;
  std::vector<Interval> intervals;  // their union
};
struct Version {
  int number;
  bool available = true;
  std::vector<Dependency> dependencies;
};
struct Registry {
  std::string name;
  std::vector<std::string> names;
  std::vector<std::vector<Version>> versions;  // per package, oldest first
  std::vector<Dependency> root;
};

Set to_set(const std::vector<Interval>& intervals) {
  Set out;
  for (const Interval& i : intervals) {
    out = out.union_with(
        Set::from_segment(i.lo ? Bound<int>::included(*i.lo) : Bound<int>::unbounded(),
                          i.hi ? Bound<int>::excluded(*i.hi) : Bound<int>::unbounded()));
  }
  return out;
}

int uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// 500 packages x 40 versions, 5-15 dependencies each on later packages; lower bounds that rise
// with the version, and some upper bounds that force backtracking.
Registry wide(std::uint32_t seed) {
  std::mt19937 rng(seed);
  Registry r;
  r.name = "wide 500x40";
  constexpr int kPackages = 500, kVersions = 40;
  for (int p = 0; p < kPackages; ++p) r.names.push_back("p" + std::to_string(p));
  r.versions.resize(kPackages);
  for (int p = 0; p < kPackages; ++p) {
    for (int v = 1; v <= kVersions; ++v) {
      Version version{v, true, {}};
      int remaining = kPackages - p - 1;
      int count = std::min(remaining, uniform(rng, 5, 15));
      std::vector<int> targets;
      while (static_cast<int>(targets.size()) < count) {
        int q = uniform(rng, p + 1, std::min(kPackages - 1, p + 60));
        if (std::find(targets.begin(), targets.end(), q) == targets.end()) targets.push_back(q);
      }
      for (int q : targets) {
        int lo = std::max(1, v / 2 - uniform(rng, 0, 10));
        Interval i{lo, std::nullopt};
        if (uniform(rng, 0, 99) < 10) i.hi = lo + uniform(rng, 10, 40);
        version.dependencies.push_back({q, {i}});
      }
      r.versions[p].push_back(std::move(version));
    }
  }
  for (int p = 0; p < 20; ++p) r.root.push_back({p, {Interval{}}});
  return r;
}

// Every p_i's newest versions pin q_i ==v, and q_i v needs shared >= v, but `limit` holds
// shared below 3: each p_i walks down its 40 versions. The argument is the number of chains
// (resolvelib's time grows exponentially with it: 3 chains take it ~0.3 s, 4 chains ~9 s).
Registry backtracking(std::uint32_t chains) {
  Registry r;
  r.name = "backtracking " + std::to_string(chains) + "x40";
  const int kChains = static_cast<int>(chains), kVersions = 40;
  auto add = [&](const std::string& name) {
    r.names.push_back(name);
    r.versions.emplace_back();
    return static_cast<int>(r.names.size()) - 1;
  };
  int shared = add("shared");
  for (int v = 1; v <= kVersions; ++v) r.versions[shared].push_back({v, true, {}});
  int limit = add("limit");
  r.versions[limit].push_back({1, true, {{shared, {Interval{std::nullopt, 3}}}}});
  r.root.push_back({limit, {Interval{}}});
  for (int i = 0; i < kChains; ++i) {
    int p = add("p" + std::to_string(i));
    int q = add("q" + std::to_string(i));
    for (int v = 1; v <= kVersions; ++v) {
      r.versions[p].push_back({v, true, {{q, {Interval{v, v + 1}}}}});
      r.versions[q].push_back({v, true, {{shared, {Interval{v, std::nullopt}}}}});
    }
    r.root.push_back({p, {Interval{}}});
  }
  return r;
}

// PyPI-like: 2000 packages; a few popular ones (low index) are required by many; versions per
// package vary (3-80); newer versions need newer dependencies; some cap a dependency's major;
// a few versions are unavailable (no wheel); the root needs 40 application packages.
Registry realistic(std::uint32_t seed) {
  std::mt19937 rng(seed);
  Registry r;
  r.name = "realistic 2000";
  constexpr int kPackages = 2000;
  std::vector<int> counts(kPackages);
  for (int p = 0; p < kPackages; ++p) {
    r.names.push_back("pkg-" + std::to_string(p));
    counts[p] = p < 50 ? uniform(rng, 30, 80) : uniform(rng, 3, 40);
  }
  r.versions.resize(kPackages);
  std::geometric_distribution<int> zipfish(0.02);
  for (int p = 0; p < kPackages; ++p) {
    for (int v = 1; v <= counts[p]; ++v) {
      Version version{v, uniform(rng, 0, 99) >= 3, {}};
      int count = p == 0 ? 0 : std::min(p, uniform(rng, 0, p < 50 ? 3 : 8));
      std::vector<int> targets;
      for (int tries = 0; static_cast<int>(targets.size()) < count && tries < 50; ++tries) {
        int q = std::min(p - 1, zipfish(rng));
        if (std::find(targets.begin(), targets.end(), q) == targets.end()) targets.push_back(q);
      }
      for (int q : targets) {
        // Track the dependency's history: version v of p was released when q was at about
        // v/count_p of its history.
        int now = std::max(1, counts[q] * v / counts[p]);
        int lo = std::max(1, now - uniform(rng, 2, 15));
        Interval i{lo, std::nullopt};
        if (uniform(rng, 0, 99) < 20) i.hi = std::min(counts[q] + 1, now + uniform(rng, 1, 10));
        if (i.hi && *i.hi <= lo) i.hi = lo + 1;
        version.dependencies.push_back({q, {i}});
      }
      r.versions[p].push_back(std::move(version));
    }
  }
  for (int k = 0; k < 40; ++k) {
    int p = kPackages - 1 - k * 7;
    r.root.push_back({p, {Interval{std::max(1, counts[p] - 10), std::nullopt}}});
  }
  return r;
}

Provider make_provider(const Registry& r) {
  Provider provider;
  auto constraints = [&](const std::vector<Dependency>& deps) {
    std::vector<std::pair<std::string, Set>> out;
    for (const Dependency& d : deps) out.emplace_back(r.names[d.package], to_set(d.intervals));
    return out;
  };
  provider.add_dependencies("root", 0, constraints(r.root));
  for (std::size_t p = 0; p < r.names.size(); ++p) {
    for (const Version& v : r.versions[p]) {
      if (v.available) {
        provider.add_dependencies(r.names[p], v.number, constraints(v.dependencies));
      } else {
        provider.add_unavailable(r.names[p], v.number, "it has no compatible wheel");
      }
    }
  }
  return provider;
}

std::string json_intervals(const std::vector<Interval>& intervals) {
  std::string out = "[";
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    if (i) out += ",";
    out += "[" + (intervals[i].lo ? std::to_string(*intervals[i].lo) : std::string("null")) + "," +
           (intervals[i].hi ? std::to_string(*intervals[i].hi) : std::string("null")) + "]";
  }
  return out + "]";
}

std::string json_dependencies(const Registry& r, const std::vector<Dependency>& deps) {
  std::string out = "[";
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (i) out += ",";
    out += "[\"" + r.names[deps[i].package] + "\"," + json_intervals(deps[i].intervals) + "]";
  }
  return out + "]";
}

// {"root": [[name, [[lo, hi], ...]], ...], "packages": {name: [[version, available, deps]]}}
void write_json(const Registry& r, const std::string& path) {
  std::ofstream out(path);
  out << "{\"root\":" << json_dependencies(r, r.root) << ",\"packages\":{";
  for (std::size_t p = 0; p < r.names.size(); ++p) {
    if (p) out << ",";
    out << "\"" << r.names[p] << "\":[";
    for (std::size_t k = 0; k < r.versions[p].size(); ++k) {
      const Version& v = r.versions[p][k];
      if (k) out << ",";
      out << "[" << v.number << "," << (v.available ? "true" : "false") << ","
          << json_dependencies(r, v.dependencies) << "]";
    }
    out << "]";
  }
  out << "}}\n";
}

// A selection is valid when every selected version exists, is available, and has every
// dependency satisfied by the selection.
bool valid(const Registry& r, const std::map<std::string, int>& picks) {
  std::map<std::string, int> index;
  for (std::size_t p = 0; p < r.names.size(); ++p) index[r.names[p]] = static_cast<int>(p);
  auto satisfied = [&](const std::vector<Dependency>& deps) {
    for (const Dependency& d : deps) {
      auto it = picks.find(r.names[d.package]);
      if (it == picks.end() || !to_set(d.intervals).contains(it->second)) return false;
    }
    return true;
  };
  if (!satisfied(r.root)) return false;
  for (const auto& [name, number] : picks) {
    if (name == "root") continue;
    const auto& versions = r.versions[index.at(name)];
    auto it = std::find_if(versions.begin(), versions.end(),
                           [&](const Version& v) { return v.number == number; });
    if (it == versions.end() || !it->available || !satisfied(it->dependencies)) return false;
  }
  return true;
}

// CPU time of this process in milliseconds (the child is single-threaded).
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

struct Ours {
  double median_ms = 0;  // CPU time of the solve (the machine may be shared)
  double min_ms = 0;
  double wall_ms = 0;  // wall-clock median
  long registry_kib = 0, peak_kib = 0;
  std::string outcome;
  std::map<std::string, int> picks;
  std::size_t decisions = 0, conflicts = 0, incompatibilities = 0;
};

using Generator = Registry (*)(std::uint32_t);

// Runs in the forked child: generate and build, solve `rounds` times, print one parseable line.
void run_ours(Generator generate, std::uint32_t seed, int rounds, int fd) {
  Provider provider = make_provider(generate(seed));
  long registry_kib = peak_rss_kib();
  std::vector<double> times, walls;
  std::string outcome;
  std::map<std::string, int> picks;
  wv::solver::SolveStatistics stats;
  wv::solver::SolveOptions<std::string, int> options;
  options.statistics = &stats;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    double cpu_start = cpu_ms();
    auto result = wv::solver::solve(provider, std::string("root"), 0, options);
    times.push_back(cpu_ms() - cpu_start);
    auto end = std::chrono::steady_clock::now();
    walls.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    if (auto* s = std::get_if<wv::solver::Solution<std::string, int>>(&result)) {
      outcome = "solved";
      picks.clear();
      for (const auto& [name, number] : s->packages) picks[name] = number;
    } else if (std::holds_alternative<wv::solver::NoSolution<std::string, Set, std::string>>(
                   result)) {
      outcome = "impossible";
    } else {
      outcome = "provider-failure";
    }
  }
  std::sort(times.begin(), times.end());
  std::sort(walls.begin(), walls.end());
  std::ostringstream line;
  line << times[times.size() / 2] << " " << times.front() << " " << walls[walls.size() / 2] << " "
       << registry_kib << " " << peak_rss_kib() << " " << stats.decisions << " " << stats.conflicts
       << " " << stats.incompatibilities << " " << outcome;
  for (const auto& [name, number] : picks) line << " " << name << "=" << number;
  line << "\n";
  std::string text = line.str();
  if (::write(fd, text.data(), text.size()) < 0) std::perror("write");
}

// The registry is generated in the child, so the child's peak memory is the case's own.
std::optional<Ours> fork_ours(Generator generate, std::uint32_t seed, int rounds) {
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    run_ours(generate, seed, rounds, fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::istringstream in(text);
  Ours ours;
  if (!(in >> ours.median_ms >> ours.min_ms >> ours.wall_ms >> ours.registry_kib >> ours.peak_kib >>
        ours.decisions >> ours.conflicts >> ours.incompatibilities >> ours.outcome)) {
    return std::nullopt;
  }
  std::string pick;
  while (in >> pick) {
    auto eq = pick.find('=');
    ours.picks[pick.substr(0, eq)] = std::stoi(pick.substr(eq + 1));
  }
  return ours;
}

struct Reference {
  double ms = 0;  // CPU time
  double wall_ms = 0;
  std::string outcome;  // solved, impossible, too-deep, timeout, error
  std::map<std::string, int> picks;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Reference run_python(const Registry& r, int timeout_s) {
  Reference ref;
  std::string path = (std::filesystem::temp_directory_path() /
                      ("wv_solver_bench_" + std::to_string(::getpid()) + ".json"))
                         .string();
  write_json(r, path);
  std::string command = "timeout " + std::to_string(timeout_s) + " /usr/bin/python3 " +
                        shell_quote(std::string(WV_BENCH_DIR) + "/solver_reference.py") + " " +
                        shell_quote(path) + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string text;
  if (pipe) {
    char buffer[65536];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
    int status = ::pclose(pipe);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 124) ref.outcome = "timeout";
  }
  std::filesystem::remove(path);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ms=", 0) == 0) ref.wall_ms = std::stod(line.substr(3));
    if (line.rfind("cpu_ms=", 0) == 0) ref.ms = std::stod(line.substr(7));
    if (line.rfind("outcome=", 0) == 0 && ref.outcome.empty()) ref.outcome = line.substr(8);
    if (line.rfind("pick ", 0) == 0) {
      std::istringstream pick(line.substr(5));
      std::string name;
      int number;
      pick >> name >> number;
      ref.picks[name] = number;
    }
  }
  if (ref.outcome.empty()) ref.outcome = "error: " + text.substr(0, 200);
  return ref;
}

}  // namespace

int main(int argc, char** argv) {
  bool python = true;
  int rounds = 5, timeout_s = 60, only = -1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--no-python") {
      python = false;
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--only" && i + 1 < argc) {
      only = std::atoi(argv[++i]);
    } else if (arg == "--timeout" && i + 1 < argc) {
      timeout_s = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(
          stderr,
          "usage: solver_bench [--no-python] [--rounds N] [--timeout SECONDS] [--only CASE]\n");
      return 2;
    }
  }
  const std::vector<std::pair<Generator, std::uint32_t>> cases = {
      {wide, 500040}, {backtracking, 3}, {backtracking, 20}, {realistic, 2026}};
  std::printf("CPU milliseconds of the solve alone (median of the rounds; resolvelib: one run)\n");
  std::printf("%-20s %8s %9s %8s %10s %10s %14s %10s  %s\n", "case", "packages", "versions",
              "picked", "ours ms", "peak MiB", "resolvelib ms", "ratio", "outcome");
  int exit_code = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    if (only >= 0 && static_cast<std::size_t>(only) != c) continue;
    const auto& [generate, seed] = cases[c];
    std::optional<Ours> ours = fork_ours(generate, seed, rounds);
    const Registry r = generate(seed);
    std::size_t version_count = 0;
    for (const auto& v : r.versions) version_count += v.size();
    if (!ours) {
      std::printf("%-20s failed to run\n", r.name.c_str());
      exit_code = 1;
      continue;
    }
    bool ours_valid = ours->outcome != "solved" || valid(r, ours->picks);
    std::printf("%-20s %8zu %9zu %8zu %10.2f %10.1f", r.name.c_str(), r.names.size(), version_count,
                ours->picks.size(), ours->median_ms, ours->peak_kib / 1024.0);
    std::string note = "ours " + ours->outcome + (ours_valid ? "" : " (INVALID)");
    std::string wall_note;
    if (!ours_valid) exit_code = 1;
    if (python) {
      Reference ref = run_python(r, timeout_s);
      bool ref_valid = ref.outcome != "solved" || valid(r, ref.picks);
      if (ref.outcome == "timeout") {
        std::printf(
            " %14s %10s", (">" + std::to_string(timeout_s * 1000)).c_str(),
            (">" + std::to_string(static_cast<long>(timeout_s * 1000 / ours->median_ms)) + "x")
                .c_str());
      } else {
        std::printf(" %14.1f %9.1fx", ref.ms, ref.ms / ours->median_ms);
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, " (resolvelib %.1f ms)", ref.wall_ms);
        wall_note = buffer;
      }
      note += ", resolvelib " + ref.outcome + (ref_valid ? "" : " (INVALID)");
      if (ref.outcome == "solved" && ours->outcome == "solved") {
        note += ours->picks == ref.picks ? ", same solution" : ", different valid solutions";
      } else if ((ref.outcome == "solved") != (ours->outcome == "solved") &&
                 (ref.outcome == "solved" || ref.outcome == "impossible")) {
        note += ", DISAGREE";
        exit_code = 1;
      }
    }
    std::printf("  %s\n", note.c_str());
    std::printf(
        "%-20s peak before solving (registry) %.1f MiB; fastest of %d rounds %.2f ms; "
        "wall-clock median %.2f ms%s; %zu decisions, %zu conflicts, %zu incompatibilities\n",
        "", ours->registry_kib / 1024.0, rounds, ours->min_ms, ours->wall_ms, wall_note.c_str(),
        ours->decisions, ours->conflicts, ours->incompatibilities);
  }
  return exit_code;
}
