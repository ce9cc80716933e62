// PEP 440 benchmark: parse, sort and filter (a few specifier sets) the valid versions of the
// conformance data and a generated, seeded corpus of 1M versions with wv::pkg, then run the
// same work through Python's packaging (bench/pep440_reference.py under /usr/bin/python3, with
// packaging 26.4 from ../shared/oracles when it is there) and
// print both CPU times and the ratio. The specifier sets are evaluated over the first
// --contains N versions (default 200000) on both sides, since packaging needs minutes for a
// million. Options: --count N (corpus size), --contains N, --no-python.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

namespace {

using wv::pkg::Version;

const std::vector<std::string> kSpecifierSets = {
    ">=1.0,<2.0",
    "~=2.2.0",
    "==1.*,!=1.3.*",
    ">=0.5rc1,<10,!=3.0.post1",
    "==2.8.0+cu128,>=2",
};

// CPU time of this process in ms: the machine is shared, so wall time would measure the
// neighbours; the Python side uses time.process_time() for the same reason.
double cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// A realistic mix: mostly short releases, some pre/post/dev releases, local labels, calendar
// versions, epochs and non-normal spellings (which the parser must normalise).
std::vector<std::string> generate_corpus(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  auto below = [&](std::uint64_t n) { return random() % n; };
  auto chance = [&](int percent) { return below(100) < static_cast<std::uint64_t>(percent); };
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string v;
    if (chance(3)) v += chance(50) ? "v" : "V";
    if (chance(1)) v += std::to_string(1 + below(3)) + "!";
    if (chance(8)) {
      v += std::to_string(2015 + below(11)) + "." + std::to_string(1 + below(12));
      if (chance(50)) v += "." + std::to_string(1 + below(28));
    } else {
      v += std::to_string(below(4) == 0 ? below(40) : below(4));
      v += "." + std::to_string(below(3) == 0 ? below(120) : below(12));
      if (chance(75)) v += "." + std::to_string(below(4) == 0 ? below(60) : below(8));
      if (chance(5)) v += "." + std::to_string(below(10));
    }
    if (chance(12)) {
      static const char* kPre[] = {"a", "b", "rc", "rc", "-rc", ".RC", "alpha", "beta", "c"};
      v += kPre[below(std::size(kPre))];
      v += std::to_string(below(12));
    }
    if (chance(5)) {
      static const char* kPost[] = {".post", ".post", "-", "_post", ".rev"};
      v += kPost[below(std::size(kPost))] + std::to_string(below(6));
    }
    if (chance(6)) {
      v += ".dev";
      v += chance(20) ? std::to_string(20200000 + below(60000)) : std::to_string(below(10));
    }
    if (chance(5)) {
      static const char* kLocal[] = {"+cu128", "+cpu", "+cu121", "+rocm6.2", "+ubuntu-1", "+1"};
      v += kLocal[below(std::size(kLocal))];
    }
    out.push_back(std::move(v));
  }
  return out;
}

// The "input" of every valid line of versions.jsonl (a tiny JSON string reader).
std::vector<std::string> conformance_versions() {
  const char* env = std::getenv("WVLOCK_CONFORMANCE_DIR");
  const std::string dir = env != nullptr ? env : WV_DEFAULT_CONFORMANCE_DIR;
  std::ifstream in(dir + "/pep-current/versions.jsonl");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"valid\": true") == std::string::npos) continue;
    const std::string key = "\"input\": \"";
    std::size_t at = line.find(key);
    if (at == std::string::npos) continue;
    std::string value;
    for (std::size_t i = at + key.size(); i < line.size() && line[i] != '"'; ++i) {
      if (line[i] != '\\' || i + 1 >= line.size()) {
        value.push_back(line[i]);
        continue;
      }
      const char c = line[++i];
      if (c == 't') value.push_back('\t');
      else if (c == 'n') value.push_back('\n');
      else if (c == 'r') value.push_back('\r');
      else if (c == 'f') value.push_back('\f');
      else if (c == 'u' && i + 4 < line.size()) {
        const unsigned code = static_cast<unsigned>(std::stoul(line.substr(i + 1, 4), nullptr, 16));
        i += 4;
        if (code < 0x80) value.push_back(static_cast<char>(code));
        else if (code < 0x800) {
          value.push_back(static_cast<char>(0xc0 | (code >> 6)));
          value.push_back(static_cast<char>(0x80 | (code & 0x3f)));
        } else {
          value.push_back(static_cast<char>(0xe0 | (code >> 12)));
          value.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
          value.push_back(static_cast<char>(0x80 | (code & 0x3f)));
        }
      } else {
        value.push_back(c);
      }
    }
    out.push_back(std::move(value));
  }
  return out;
}

struct Timings {
  double parse_ms = 0;
  double sort_ms = 0;
  double contains_ms = 0;
  std::vector<std::size_t> matches;
  std::string first, median, last;
  std::string packaging;  // the reference's version
  double total() const { return parse_ms + sort_ms + contains_ms; }
};

// The best of `rounds` runs of the whole work (the results of the last one).
Timings run_ours(const std::vector<std::string>& inputs, std::size_t contains_limit, int rounds,
                 double* keyed_share) {
  std::vector<wv::pkg::SpecifierSet> sets;
  for (const std::string& text : kSpecifierSets) sets.push_back(wv::pkg::parse_specifier_set(text).value());
  Timings best;
  for (int round = 0; round < rounds; ++round) {
    Timings t;
    double start = cpu_ms();
    std::vector<Version> versions;
    versions.reserve(inputs.size());
    for (const std::string& text : inputs) {
      auto parsed = wv::pkg::parse_version(text);
      if (!parsed) {
        std::cerr << "unexpected invalid version " << text << "\n";
        std::exit(1);
      }
      versions.push_back(std::move(*parsed));
    }
    t.parse_ms = cpu_ms() - start;

    std::vector<Version> ordered = versions;  // copy outside the timed region
    start = cpu_ms();
    std::sort(ordered.begin(), ordered.end());
    t.sort_ms = cpu_ms() - start;

    const std::size_t sample = std::min(contains_limit, versions.size());
    start = cpu_ms();
    for (const auto& set : sets) {
      std::size_t n = 0;
      for (std::size_t i = 0; i < sample; ++i) n += set.contains(versions[i]);
      t.matches.push_back(n);
    }
    t.contains_ms = cpu_ms() - start;
    t.first = ordered.front().to_string();
    t.median = ordered[ordered.size() / 2].to_string();
    t.last = ordered.back().to_string();
    std::size_t keyed = 0;
    for (const Version& v : versions) keyed += v.has_compact_key();
    *keyed_share = static_cast<double>(keyed) / static_cast<double>(versions.size());
    if (round == 0 || t.total() < best.total()) best = t;
  }
  return best;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

bool run_python(const std::vector<std::string>& inputs, std::size_t contains_limit, Timings& t) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pep440_bench_" + std::to_string(::getpid()) + ".txt"))
                               .string();
  {
    std::ofstream out(path);
    for (const std::string& line : inputs) out << line << '\n';
  }
  // The current reference (packaging 26.4, ../shared/oracles) when it is there.
  std::string command;
  std::error_code code;
  if (std::filesystem::is_directory(WV_PACKAGING_ORACLE_DIR "/packaging", code)) {
    command = "PYTHONPATH=" + shell_quote(WV_PACKAGING_ORACLE_DIR) + " ";
  }
  command += "/usr/bin/python3 " + shell_quote(std::string(WV_BENCH_DIR) + "/pep440_reference.py") +
                        " " + shell_quote(path) + " " + std::to_string(contains_limit);
  for (const std::string& set : kSpecifierSets) command += " " + shell_quote(set);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  std::map<std::string, std::string> values;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  const int status = ::pclose(pipe);
  std::filesystem::remove(path);
  if (status != 0 || !values.count("parse_ms")) return false;
  t.packaging = values["packaging"];
  t.parse_ms = std::stod(values["parse_ms"]);
  t.sort_ms = std::stod(values["sort_ms"]);
  t.contains_ms = std::stod(values["contains_ms"]);
  std::stringstream matches(values["matches"]);
  for (std::string n; std::getline(matches, n, ',');) t.matches.push_back(std::stoul(n));
  t.first = values["first"];
  t.median = values["median"];
  t.last = values["last"];
  return true;
}

void print_row(const char* what, double ours, double python, bool have_python) {
  std::printf("  %-10s %12.1f ms", what, ours);
  if (have_python) std::printf(" %12.1f ms %9.1fx", python, python / ours);
  std::printf("\n");
}

// Same results on both sides: match counts and the sort's ends and middle (compared as versions,
// since equal versions such as 1.0 and 1.0.0 may be spelled either way).
bool same_results(const Timings& ours, const Timings& python) {
  auto same_version = [](const std::string& a, const std::string& b) {
    auto x = wv::pkg::parse_version(a), y = wv::pkg::parse_version(b);
    return x && y && *x == *y;
  };
  return ours.matches == python.matches && same_version(ours.first, python.first) &&
         same_version(ours.median, python.median) && same_version(ours.last, python.last);
}

int bench(const char* label, const std::vector<std::string>& inputs, std::size_t contains_limit,
          int rounds, bool python) {
  double keyed = 0;
  const Timings ours = run_ours(inputs, contains_limit, rounds, &keyed);
  Timings reference;
  const bool have_python = python && run_python(inputs, contains_limit, reference);
  std::printf("%s: %zu versions (sets evaluated over %zu), %.1f%% with an exact key, "
              "sizeof(Version) = %zu\n",
              label, inputs.size(), std::min(contains_limit, inputs.size()), keyed * 100.0,
              sizeof(Version));
  std::printf("  %-10s %15s", "", "wv::pkg");
  if (have_python) {
    std::printf(" %15s %10s", ("packaging " + reference.packaging).substr(0, 15).c_str(), "ratio");
  }
  std::printf("\n");
  print_row("parse", ours.parse_ms, reference.parse_ms, have_python);
  print_row("sort", ours.sort_ms, reference.sort_ms, have_python);
  print_row("contains", ours.contains_ms, reference.contains_ms, have_python);
  print_row("total", ours.total(), reference.total(), have_python);
  std::printf("  matches per set:");
  for (std::size_t n : ours.matches) std::printf(" %zu", n);
  std::printf("   (sets: ");
  for (std::size_t i = 0; i < kSpecifierSets.size(); ++i) {
    std::printf("%s%s", i ? " | " : "", kSpecifierSets[i].c_str());
  }
  std::printf(")\n");
  if (python && !have_python) {
    std::printf("  (python reference could not run: /usr/bin/python3 with packaging needed)\n");
    return 0;
  }
  if (have_python) {
    if (!same_results(ours, reference)) {
      std::printf("  RESULTS DIFFER from packaging: first %s/%s median %s/%s last %s/%s\n",
                  ours.first.c_str(), reference.first.c_str(), ours.median.c_str(),
                  reference.median.c_str(), ours.last.c_str(), reference.last.c_str());
      return 1;
    }
    std::printf("  results identical to packaging (match counts, sorted first/median/last)\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows while Python runs
  std::size_t count = 1000000;
  std::size_t contains_limit = 200000;
  bool python = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-python") python = false;
    else if (arg == "--count" && i + 1 < argc) count = std::stoul(argv[++i]);
    else if (arg == "--contains" && i + 1 < argc) contains_limit = std::stoul(argv[++i]);
    else {
      std::fprintf(stderr, "usage: pep440_bench [--count N] [--contains N] [--no-python]\n");
      return 2;
    }
  }
  int status = 0;
  const std::vector<std::string> conformance = conformance_versions();
  if (conformance.empty()) {
    std::printf("conformance versions: none found (set WVLOCK_CONFORMANCE_DIR)\n");
  } else {
    // Small input: repeat our side and keep the best run so timer noise does not dominate.
    status |= bench("conformance versions", conformance, contains_limit, 20, python);
  }
  status |= bench("generated corpus (seed 440)", generate_corpus(count, 440), contains_limit, 3,
                  python);
  return status;
}
