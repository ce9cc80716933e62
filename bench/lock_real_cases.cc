// lock_bench --real-cases INPUTS: locks of real PyPI dependency graphs (docs/solver.md
// "Locking real graphs"). INPUTS is resolvelib's tests/functional/python/inputs folder
// (https://github.com/sarugaku/resolvelib): each case names a snapshot of PyPI's metadata on
// one day and the requested requirements. bench/real_case_index.py turns a snapshot into a
// local simple index of tiny real wheels (kept under /tmp/wvlock-lock-bench-real while its
// STAMP matches); the case is then locked for one target (linux-x86_64, glibc 2.28,
// Python 3.11) by this wvlock and the baseline binary, alternating round by round, and
// resolved by pip (bench/lock_reference.py) on the same index, all in one run.
#include <string>
#include <vector>

#include "bench/lock_bench_support.h"
#include "src/base/str.h"

namespace wv::bench {
namespace {

constexpr const char* kCases[] = {"cheroot", "chalice"};

// The value of the first `"key": "value"` in a JSON text ("" when absent).
std::string json_string(const std::string& text, const std::string& key) {
  std::size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  std::size_t open = text.find('"', text.find(':', at) + 1);
  std::size_t close = text.find('"', open + 1);
  if (open == std::string::npos || close == std::string::npos) return "";
  return text.substr(open + 1, close - open - 1);
}

std::string project_text(const std::string& requirements_file, const std::string& index) {
  std::string deps;
  std::istringstream lines(read_text(requirements_file));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) deps += "  \"" + line + "\",\n";
  }
  return str_cat("[project]\nname = \"bench\"\nversion = \"0.1.0\"\n",
                 "requires-python = \">=3.11\"\ndependencies = [\n", deps, "]\n\n",
                 "[tool.wvlock]\npython = \"3.11\"\nindex-url = \"", index, "\"\n\n",
                 "[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\n",
                 "glibc = \"2.28\"\n");
}

// Best of `rounds` whole `wvlock lock` runs of each binary, alternating so that both see the
// same machine load; -1 wall when one fails.
std::vector<Timing> time_alternating(const std::vector<std::string>& binaries,
                                     const std::string& project, int rounds) {
  std::vector<Timing> best(binaries.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t b = 0; b < binaries.size(); ++b) {
      if (best[b].wall < 0) continue;  // failed before
      fs::remove(project + "/pylock.toml");  // a first lock, as pip's is: no preferences
      Timing timing = time_cli({binaries[b], "-q", "--project", project}, 1);
      if (timing.wall < 0) {
        best[b] = timing;
      } else {
        best[b].keep_best(timing);
      }
    }
  }
  return best;
}

bool bench_case(const std::string& python, int rounds, const std::string& inputs,
                const std::string& name, const std::vector<std::string>& binaries,
                const std::string& dir) {
  const std::string case_file = str_cat(inputs, "/case/", name, ".json");
  const std::string snapshot = json_string(read_text(case_file), "index");
  if (snapshot.empty()) {
    std::printf("  %s: no case file %s\n", name.c_str(), case_file.c_str());
    return false;
  }
  const std::string index = "/tmp/wvlock-lock-bench-real/" + name;
  if (run_program({python, std::string(WV_BENCH_DIR) + "/real_case_index.py", "--case",
                   case_file, "--index", str_cat(inputs, "/index/", snapshot, ".json"), "--out",
                   index},
                  nullptr, "", true) != 0) {
    std::printf("  %s: the index could not be generated\n", name.c_str());
    return false;
  }
  const std::string project = str_cat(dir, "/real-", name);
  write_text(project + "/pyproject.toml",
             project_text(index + "/requirements.txt", index + "/simple"));
  std::vector<Timing> timings = time_alternating(binaries, project, rounds);
  const std::string lock = read_text(project + "/pylock.toml");  // the last binary's
  std::map<std::string, std::string> versions = locked_versions(project, "cpu");
  if (binaries.size() > 1) {
    fs::remove(project + "/pylock.toml");
    (void)time_cli({binaries[0], "-q", "--project", project}, 1);
  }
  const bool same = read_text(project + "/pylock.toml") == lock;
  PipResult pip = run_pip(python, index + "/simple", index + "/requirements.txt", dir);
  for (int round = 1; pip.ok && round < std::min(rounds, 2); ++round) {
    PipResult again = run_pip(python, index + "/simple", index + "/requirements.txt", dir);
    if (again.ok) pip.timing.keep_best(again.timing);
  }
  std::printf("%s (%s; %zu packages locked)\n", name.c_str(), snapshot.c_str(), versions.size());
  if (pip.ok) print_row("pip (best of 2)", pip.timing);
  const char* labels[] = {"wvlock lock (this build)", "wvlock lock (baseline binary)"};
  for (std::size_t b = 0; b < binaries.size(); ++b) {
    if (timings[b].wall < 0) {
      std::printf("  %s failed\n", labels[b]);
      return false;
    }
    std::string note;
    if (pip.ok) {
      double ratio = pip.timing.wall / timings[b].wall;
      note = str_cat(std::to_string(ratio).substr(0, 5), "x pip (wall); goal >=50x: ",
                     ratio >= 50 ? "met" : "NOT met");
    }
    print_row(labels[b], timings[b], note);
  }
  if (binaries.size() > 1) {
    std::printf("  lock byte-identical to the baseline's: %s\n", same ? "yes" : "NO");
  }
  if (pip.ok) compare(name, versions, pip, timings[0]);
  return true;
}

}  // namespace

bool bench_real_cases(const std::string& python, int rounds, const std::string& inputs,
                      const std::string& wvlock, const std::string& baseline,
                      const std::string& dir) {
  std::printf("real PyPI graphs (resolvelib snapshots, 1 target, local index; best of %d, "
              "whole command)\n", rounds);
  std::vector<std::string> binaries = {wvlock};
  if (!baseline.empty()) binaries.push_back(baseline);
  bool ok = true;
  for (const char* name : kCases) ok = bench_case(python, rounds, inputs, name, binaries, dir) && ok;
  return ok;
}

}  // namespace wv::bench
