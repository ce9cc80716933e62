// Locking benchmark (docs/lockfile.md "Figures"): the five-target example lock in process and
// through the wvlock binary (local index; loopback HTTP cold and warm), the second example
// (fixtures/example-pytorch: backend indexes, torch pinned per target), a seeded synthetic
// ecosystem (bench/synthetic_ecosystem.py) locked for 1 and 5 targets, and pip's resolver
// (bench/lock_reference.py) on the same index and requirements for one target, with package
// counts and version agreement, and a find-links folder of 500,000 wheels locked cold (no
// digest) and warm (the folder's digest kept in the cache). Times are best of --rounds; CPU is
// user+system.
// Options: --projects N (1000), --seed N (1), --rounds N (3), --python PATH (/usr/bin/python3),
// --eco DIR (where the ecosystem is generated and reused, /tmp/wvlock-lock-bench-eco), --no-pip,
// --latency-only (the example and the 20 ms latency case, no synthetic ecosystem),
// --findlinks-only (that case alone), --findlinks-files N (500000), --findlinks-dir DIR (where
// the folder is generated and reused, /tmp/wvlock-lock-bench-findlinks), --baseline-wvlock PATH
// (another wvlock binary, e.g. main's, timed on the same folder and checked for the same lock;
// also locked cold over the 20 ms server, alternating with this build),
// --real-cases DIR (that mode alone: real PyPI graphs from resolvelib's snapshots,
// bench/lock_real_cases.cc; with --baseline-wvlock, both binaries in the same run).
#include <fcntl.h>
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

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/index/sources.h"
#include "src/net/curl_fetcher.h"
#include "lock/catalog.h"
#include "lock/lockfile.h"
#include "lock/project_inputs.h"
#include "lock/resolve.h"
#include "targets/project_file.h"
#include "bench/lock_bench_support.h"

namespace {

using namespace wv::bench;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  int projects = 1000;
  int seed = 1;
  int rounds = 3;
  std::string python = "/usr/bin/python3";
  std::string eco = "/tmp/wvlock-lock-bench-eco";
  bool pip = true;
  bool latency_only = false;  ///< the example cases and the latency case only
  bool fetch_only = false;    ///< the fetch case only
  bool findlinks_only = false;
  int findlinks_files = 500000;
  std::string findlinks_dir = "/tmp/wvlock-lock-bench-findlinks";
  std::string baseline_wvlock;
  std::string real_cases;  ///< resolvelib's tests/functional/python/inputs: that mode alone
};

/// The example's pyproject with its index replaced by `index`.
std::string with_index(std::string text, const std::string& index) {
  const std::string key = "index-url = \"../generated/simple\"";
  std::size_t at = text.find(key);
  if (at != std::string::npos) text.replace(at, key.size(), "index-url = \"" + index + "\"");
  return text;
}

/// A pyproject for `requirements` over `index` with the given `[[tool.wvlock.target]]` tables.
std::string pyproject(const std::vector<std::string>& requirements, const std::string& index,
                      const std::string& targets) {
  std::string deps;
  for (const std::string& requirement : requirements) deps += "  \"" + requirement + "\",\n";
  return wv::str_cat("[project]\nname = \"bench\"\nversion = \"0.1.0\"\n",
                     "requires-python = \">=3.11\"\ndependencies = [\n", deps, "]\n\n",
                     "[tool.wvlock]\npython = \"3.11\"\nindex-url = \"", index, "\"\n\n", targets);
}

const char* kCpuTarget =
    "[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
const char* kFiveTargets =
    "[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n\n"
    "[[tool.wvlock.target]]\nname = \"arm\"\nplatform = \"linux-aarch64\"\nglibc = \"2.28\"\n\n"
    "[[tool.wvlock.target]]\nname = \"mac\"\nplatform = \"macos-arm64\"\nmacos = \"14.0\"\n\n"
    "[[tool.wvlock.target]]\nname = \"win\"\nplatform = \"windows-amd64\"\n\n"
    "[[tool.wvlock.target]]\nname = \"h100\"\nplatform = \"linux-x86_64\"\nglibc = \"2.35\"\n"
    "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\n";

/// The loopback server's counters (`GET /__stats`): requests, 304 answers, peak in flight.
struct ServerStats {
  long requests = -1;
  long not_modified = -1;
  long peak = -1;
};

long json_number(const std::string& text, const std::string& key) {
  std::size_t at = text.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atol(text.c_str() + at + key.size() + 3);
}

ServerStats server_stats(int port, bool reset) {
  wv::net::CurlFetcherOptions network;
  network.progress = wv::net::ProgressMode::kNever;
  wv::net::CurlFetcher fetcher(network);
  ServerStats stats;
  auto answer = fetcher.fetch({wv::str_cat("http://127.0.0.1:", port, "/__stats")});
  if (answer && answer->status == 200) {
    stats = {json_number(answer->body, "requests"), json_number(answer->body, "not_modified"),
             json_number(answer->body, "peak")};
  }
  if (reset) (void)fetcher.fetch({wv::str_cat("http://127.0.0.1:", port, "/__reset")});
  return stats;
}

std::string stats_note(const ServerStats& stats) {
  return wv::str_cat(stats.requests, " requests (", stats.not_modified, " answered 304), peak ",
                     stats.peak, " in flight");
}

/// How many bursts range_server.py's --log shows: runs of requests that arrive with less than
/// half the server's 20 ms delay between them (a batch, or what one round trip unblocked).
int request_bursts(const std::string& log) {
  std::istringstream lines(log);
  int bursts = 0;
  double last = -1e9;
  for (std::string line; std::getline(lines, line);) {
    const double at = std::atof(line.c_str());
    if (at - last > 10.0) ++bursts;
    last = at;
  }
  return bursts;
}

/// The example over a server that answers each request after 20 ms and sends
/// `Cache-Control: max-age=600` on project pages (the public index's header): cold, warm and
/// offline locks with the requests each made, and whether the lock is the one the plain
/// loopback server gave (`reference`, with that server's URL replaced).
void bench_latency(const Options& options, const std::string& wvlock, const std::string& dir,
                   const std::string& generated, const std::string& example_text,
                   const std::string& reference_lock, const std::string& reference_url) {
  std::printf("\nlatency (the example over loopback HTTP, 20 ms per response, max-age=600 on "
              "pages)\n");
  const std::string log = dir + "/latency-requests.log";
  Server server(options.python, std::string(WV_SOURCE_DIR) + "/tests/index/range_server.py",
                generated, {"--delay-ms", "20", "--max-age", "600", "--log", log});
  if (server.port() == 0) {
    std::printf("  the server did not start\n");
    return;
  }
  const std::string url = wv::str_cat("http://127.0.0.1:", server.port(), "/simple");
  const std::string project = dir + "/example-latency";
  write_text(project + "/pyproject.toml", with_index(example_text, url));
  const std::string cache = dir + "/cache-latency";
  // Cold locks, alternating with the baseline binary (when given) round by round.
  struct Cold {
    std::string binary;
    Timing timing;
    ServerStats stats;
    int bursts = 0;
  };
  std::vector<Cold> colds = {{wvlock, {}, {}, 0}};
  if (!options.baseline_wvlock.empty()) colds.push_back({options.baseline_wvlock, {}, {}, 0});
  for (int round = 0; round < options.rounds; ++round) {
    for (Cold& one : colds) {
      fs::remove_all(cache);
      fs::remove(project + "/pylock.toml");
      (void)server_stats(server.port(), true);
      write_text(log, "");
      Timing timing =
          time_cli({one.binary, "-q", "--project", project, "--cache-dir", cache}, 1);
      if (timing.wall < 0) {
        std::printf("  cold lock failed (%s)\n", one.binary.c_str());
        return;
      }
      one.timing.keep_best(timing);
      one.stats = server_stats(server.port(), true);
      one.bursts = request_bursts(read_text(log));
    }
  }
  if (colds.size() > 1) {
    print_row("baseline binary, 20 ms server, cold", colds[1].timing,
              wv::str_cat(stats_note(colds[1].stats), ", ", colds[1].bursts, " bursts"));
    fs::remove_all(cache);  // the rows below read this binary's cache
    fs::remove(project + "/pylock.toml");
    (void)time_cli({wvlock, "-q", "--project", project, "--cache-dir", cache}, 1);
    (void)server_stats(server.port(), true);
  }
  const Timing cold = colds[0].timing;
  const ServerStats cold_stats = colds[0].stats;
  print_row("wvlock lock, 20 ms server, cold", cold,
            wv::str_cat(stats_note(cold_stats), ", ", colds[0].bursts, " bursts",
                        cold.wall <= 0.5 ? "; goal <=0.5 s: met" : "; goal <=0.5 s: NOT met"));
  std::string lock_text = read_text(project + "/pylock.toml");
  Timing offline = time_cli({wvlock, "-q", "--offline", "--project", project, "--cache-dir", cache},
                            options.rounds);
  (void)server_stats(server.port(), true);
  Timing warm =
      time_cli({wvlock, "-q", "--project", project, "--cache-dir", cache}, options.rounds);
  ServerStats warm_stats = server_stats(server.port(), true);
  bool warm_goal = warm_stats.requests == 0 && warm.wall <= 2 * offline.wall;
  print_row("wvlock lock, 20 ms server, warm (within max-age)", warm,
            wv::str_cat(stats_note(warm_stats), " over ", options.rounds, " runs; goal 0 requests, <=2x offline: ",
                        warm_goal ? "met" : "NOT met"));
  print_row("wvlock lock, 20 ms server, --offline", offline);
  Timing refresh = time_cli(
      {wvlock, "-q", "--project", project, "--cache-dir", cache, "--refresh"}, 1);
  print_row("wvlock lock, 20 ms server, --refresh (revalidates pages)", refresh,
            stats_note(server_stats(server.port(), true)));
  // The input-hash covers the index URL, whose port differs; everything else must be equal.
  auto comparable = [](std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; !from.empty() && (at = text.find(from, at)) != std::string::npos;
         at += to.size()) {
      text.replace(at, from.size(), to);
    }
    std::size_t hash = text.find("\ninput-hash = ");
    if (hash != std::string::npos) text.erase(hash + 1, text.find('\n', hash + 1) - hash);
    return text;
  };
  bool same = !reference_lock.empty() &&
              comparable(lock_text, url, reference_url) == comparable(reference_lock, "", "");
  std::printf("  lock byte-identical to the plain loopback server's (but the input-hash): %s\n",
              same ? "yes" : "NO");
}

/// `wvlock fetch` of fixtures/example-pytorch's five targets over a server that answers each
/// request after 20 ms: every file the targets install into an empty cache, with the default
/// parallel downloads and one at a time (WVLOCK_CONCURRENT_DOWNLOADS=1), side by side, each
/// with the most requests the server had in flight at once.
void bench_fetch(const Options& options, const std::string& wvlock, const std::string& dir,
                 const std::string& generated) {
  std::printf("\nfetch (fixtures/example-pytorch, 5 targets, over loopback HTTP, 20 ms per "
              "response; empty cache each round)\n");
  Server server(options.python, std::string(WV_SOURCE_DIR) + "/tests/index/range_server.py",
                generated + "/today", {"--delay-ms", "20"});
  if (server.port() == 0) {
    std::printf("  the server did not start\n");
    return;
  }
  std::string text = read_text(std::string(WV_SOURCE_DIR) + "/fixtures/example-pytorch/pyproject.toml");
  const std::string base = wv::str_cat("http://127.0.0.1:", server.port());
  for (std::size_t at; (at = text.find("\"../generated/today")) != std::string::npos;) {
    text.replace(at, 19, "\"" + base);
  }
  const std::string project = dir + "/example-pytorch-fetch";
  write_text(project + "/pyproject.toml", text);
  if (run_program({wvlock, "-q", "--project", project, "--cache-dir", dir + "/fetch-lock", "lock"},
                  nullptr, "", true) != 0) {
    std::printf("  the lock failed\n");
    return;
  }
  struct Row {
    const char* what;
    std::vector<std::string> prefix;
  };
  const Row rows[] = {{"wvlock fetch, parallel (default, 50 at once)", {}},
                      {"wvlock fetch, sequential (WVLOCK_CONCURRENT_DOWNLOADS=1)",
                       {"env", "WVLOCK_CONCURRENT_DOWNLOADS=1"}}};
  std::string files;
  for (const Row& row : rows) {
    Timing best;
    ServerStats stats;
    for (int round = 0; round < options.rounds; ++round) {
      const std::string cache = wv::str_cat(dir, "/fetch-cache-", round);
      fs::remove_all(cache);
      (void)server_stats(server.port(), true);
      std::vector<std::string> argv = row.prefix;
      for (const std::string& arg : {wvlock, std::string("-q"), std::string("--project"), project,
                                     std::string("--cache-dir"), cache, std::string("fetch")}) {
        argv.push_back(arg);
      }
      Timing timing;
      if (run_program(argv, &timing, dir + "/fetch.out", round == 0) != 0) {
        std::printf("  %s failed\n", row.what);
        return;
      }
      best.keep_best(timing);
      stats = server_stats(server.port(), true);
      fs::remove_all(cache);
    }
    files = read_text(dir + "/fetch.out");
    print_row(row.what, best,
              wv::str_cat(stats.requests, " requests, peak ", stats.peak, " in flight"));
  }
  std::printf("  %s", files.c_str());
}

/// The find-links folder of bench_findlinks(): `files` wheel files, generated once and reused
/// while its STAMP matches. The three projects the bench project needs (pip, setuptools, wheel)
/// are Debian's real wheels; every other file is an empty file with a valid wheel name, never
/// read by a lock that does not ask for its project. Names mix spellings (`_`, `.`, capitals),
/// and some unrequested projects share the requested ones' first word (`pip_ext7`), so the
/// requested buckets hold files the lookup must filter out.
bool make_findlinks_folder(const std::string& root, int files) {
  const std::string folder = root + "/wheels";
  const std::string stamp = wv::str_cat("findlinks v1 files=", files, "\n");
  if (read_text(root + "/STAMP") == stamp) return true;
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(folder, ec);
  int made = 0;
  for (const char* leaf : {"pip-23.0.1-py3-none-any.whl", "setuptools-66.1.1-py3-none-any.whl",
                           "wheel-0.38.4-py3-none-any.whl"}) {
    fs::copy_file(std::string("/usr/share/python-wheels/") + leaf, folder + "/" + leaf, ec);
    if (ec) {
      std::fprintf(stderr, "cannot copy /usr/share/python-wheels/%s: %s\n", leaf,
                   ec.message().c_str());
      return false;
    }
    ++made;
  }
  auto touch = [&](const std::string& leaf) {
    int fd = ::open((folder + "/" + leaf).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  };
  const char* spellings[] = {"%s", "%s_tools", "%s.ext", "Py%s_Core"};
  const char* platforms[] = {"py3-none-any", "cp311-cp311-manylinux_2_28_x86_64",
                             "cp312-cp312-macosx_11_0_arm64", "cp311-cp311-win_amd64"};
  // 3,000 files in the requested buckets, then 20 versions per project.
  for (int i = 0; i < 1000 && made < files; ++i) {
    for (const char* word : {"pip_ext", "Setuptools.plugin", "wheel_filename"}) {
      if (!touch(wv::str_cat(word, i, "-1.0-py3-none-any.whl"))) return false;
      ++made;
    }
  }
  for (int project = 0; made < files; ++project) {
    char base[32];
    std::snprintf(base, sizeof base, "p%dlib", project);
    char name[64];
    std::snprintf(name, sizeof name, spellings[project % 4], base);
    for (int version = 0; version < 20 && made < files; ++version) {
      if (!touch(wv::str_cat(name, "-", 1 + version / 10, ".", version % 10, "-",
                             platforms[(project + version) % 4], ".whl"))) {
        return false;
      }
      ++made;
    }
  }
  // Changed more than two seconds ago, as a folder is between two locks: a digest is kept only
  // for a folder that has settled (flat_folder.cc).
  fs::last_write_time(folder, fs::file_time_type::clock::now() - std::chrono::hours(1), ec);
  write_text(root + "/STAMP", stamp);
  return true;
}

}  // namespace

/// A find-links folder of `options.findlinks_files` wheels (docs/sources.md "find-links"):
/// `wvlock lock` of a three-dependency project cold (a fresh cache: the folder is listed and
/// its digest written), warm (the digest read back, the folder not listed), and with
/// `--baseline-wvlock`, another binary on the same folder. Every lock must be byte-identical.
bool bench_findlinks(const Options& options, const std::string& wvlock, const std::string& dir) {
  std::printf("\nfind-links folder (%d wheel files, %s)\n", options.findlinks_files,
              options.findlinks_dir.c_str());
  auto generate_start = Clock::now();
  if (!make_findlinks_folder(options.findlinks_dir, options.findlinks_files)) return false;
  std::printf("  generated or reused in %.1f s (not timed below)\n",
              std::chrono::duration<double>(Clock::now() - generate_start).count());
  const std::string project = dir + "/findlinks";
  write_text(project + "/pyproject.toml",
             wv::str_cat("[project]\nname = \"bench\"\nversion = \"0.1.0\"\n",
                         "requires-python = \">=3.11\"\n",
                         "dependencies = [\"pip\", \"setuptools>=60\", \"wheel\"]\n\n",
                         "[tool.wvlock]\npython = \"3.11\"\nfind-links = [\"",
                         options.findlinks_dir, "/wheels\"]\n\n", kCpuTarget));
  const std::string lock_path = project + "/pylock.toml";
  auto row = [](const std::string& what, const Timing& timing, const std::string& note) {
    print_row(what, timing, wv::str_cat(wv::str_cat(static_cast<int>(timing.max_rss_mib + 0.5)),
                                        " MiB max RSS", note.empty() ? "" : "; ", note));
  };
  Timing cold;
  std::string first_lock;
  for (int round = 0; round < options.rounds; ++round) {
    const std::string cache = wv::str_cat(dir, "/findlinks-cache-cold", round);
    fs::remove(lock_path);
    Timing timing = time_cli({wvlock, "-q", "--project", project, "--cache-dir", cache}, 1);
    if (timing.wall < 0) {
      std::printf("  wvlock lock failed\n");
      return false;
    }
    cold.keep_best(timing);
    if (round == 0) first_lock = read_text(lock_path);
  }
  row("wvlock lock, cold (fresh cache dir: folder listed)", cold, "");
  const std::vector<std::string> warm_command = {wvlock, "-q", "--project", project, "--cache-dir",
                                                 dir + "/findlinks-cache-cold0"};
  fs::remove(lock_path);
  Timing warm = time_cli(warm_command, options.rounds);
  const bool same = read_text(lock_path) == first_lock;
  row("wvlock lock, warm (same cache dir: folder digest)", warm,
      wv::str_cat(warm.wall < 0.2 ? "goal <200 ms: met" : "goal <200 ms: NOT met",
                  same ? ", lock identical to the cold one" : ", LOCK DIFFERS from the cold one"));
  if (!options.baseline_wvlock.empty()) {
    fs::remove(lock_path);
    Timing baseline = time_cli({options.baseline_wvlock, "-q", "--project", project, "--cache-dir",
                                dir + "/findlinks-cache-baseline"},
                               options.rounds);
    const bool same_as_baseline = read_text(lock_path) == first_lock;
    row("baseline wvlock lock (--baseline-wvlock)", baseline,
        same_as_baseline ? "lock identical" : "LOCK DIFFERS");
  }
  return same;
}

/// A local project's package source as the CLI asks it: find-links folders, then the indexes
/// in uv's asking order, every named index pinnable. Wheels only (no builder), local only (no
/// fetcher): the examples' indexes are folders of wheels.
struct LocalSource {
  std::unique_ptr<wv::index::IndexSource> source;
  std::vector<std::pair<std::string, std::unique_ptr<wv::pkg::PackageSource>>> pinned;

  LocalSource(const wv::targets::ProjectConfig& config, const wv::FileSystem& file_system) {
    std::vector<wv::index::SourceLocation> locations;
    for (const std::string& folder : config.find_links) {
      locations.push_back({wv::index::LocationKind::kFlatFolder,
                           wv::targets::resolve_project_path(config, folder)});
    }
    for (const wv::targets::IndexConfig& index : config.indexes) {
      locations.push_back({wv::index::LocationKind::kSimpleIndex,
                           wv::targets::resolve_project_path(config, index.url), index.name,
                           index.explicit_only});
    }
    source = std::make_unique<wv::index::IndexSource>(std::move(locations), file_system, nullptr);
    source->set_best_match(config.index_best_match);
    for (const wv::targets::IndexConfig& index : config.indexes) {
      auto view = source->pinned(index.name);
      if (view) pinned.emplace_back(index.name, std::move(*view));
    }
  }

  std::unique_ptr<wv::lock::Catalog> make_catalog() {
    auto catalog = std::make_unique<wv::lock::Catalog>(*source);
    for (auto& [name, view] : pinned) catalog->add_pinned_index(name, *view);
    return catalog;
  }
};

/// Locks `project_dir` in process: the first resolve (fresh IndexSource) and the best warm
/// one (fresh Catalog, same IndexSource), printed as rows. False when it does not resolve.
/// The lock layer's inputs come from lock::project_inputs, as the wvlock command makes them.
bool bench_in_process(const std::string& project_dir, int rounds) {
  wv::RealFileSystem file_system;
  auto config = wv::targets::read_project_file(file_system, project_dir + "/pyproject.toml");
  if (!config) {
    std::fprintf(stderr, "%s\n", config.error().to_string().c_str());
    return false;
  }
  auto project = wv::lock::project_inputs(*config, {}, file_system, true);
  if (!project) {
    std::fprintf(stderr, "%s\n", project.error().to_string().c_str());
    return false;
  }
  for (const wv::lock::TargetContext& target : project->targets) {
    if (!target.direct_sources.empty()) {
      std::fprintf(stderr, "%s: direct sources are not benchmarked in process\n",
                   project_dir.c_str());
      return false;
    }
  }
  LocalSource wired(*config, file_system);
  Timing first;
  Timing warm;
  std::size_t packages = 0;
  for (int round = 0; round <= rounds; ++round) {
    auto start = Clock::now();
    double cpu_start = process_cpu();
    std::unique_ptr<wv::lock::Catalog> catalog = wired.make_catalog();
    auto outcome = wv::lock::resolve_targets(project->requirements, project->targets, *catalog, {});
    Timing timing{std::chrono::duration<double>(Clock::now() - start).count(),
                  process_cpu() - cpu_start};
    if (!outcome || !outcome->lockfile) {
      std::fprintf(stderr, "%s did not resolve\n", project_dir.c_str());
      return false;
    }
    packages = outcome->lockfile->packages.size();
    if (round == 0) first = timing;
    else warm.keep_best(timing);
  }
  print_row("in process, first resolve (fresh IndexSource)", first);
  print_row("in process, warm (fresh Catalog, same IndexSource)", warm,
            wv::str_cat(packages, " package versions"));
  return true;
}

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--projects") options.projects = std::max(10, std::atoi(next().c_str()));
    else if (arg == "--seed") options.seed = std::atoi(next().c_str());
    else if (arg == "--rounds") options.rounds = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--python") options.python = next();
    else if (arg == "--eco") options.eco = next();
    else if (arg == "--no-pip") options.pip = false;
    else if (arg == "--latency-only") options.latency_only = true;
    else if (arg == "--fetch-only") options.fetch_only = true;
    else if (arg == "--findlinks-only") options.findlinks_only = true;
    else if (arg == "--findlinks-files") options.findlinks_files = std::max(10, std::atoi(next().c_str()));
    else if (arg == "--findlinks-dir") options.findlinks_dir = next();
    else if (arg == "--baseline-wvlock") options.baseline_wvlock = next();
    else if (arg == "--real-cases") options.real_cases = next();
    else {
      std::fprintf(stderr, "unknown option `%s`\n", arg.c_str());
      return 2;
    }
  }
  const std::string source = WV_SOURCE_DIR;
  const std::string wvlock = WV_WVLOCK_PATH;
  char dir_template[] = "/tmp/wvlock-lock-bench-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return 3;
  const std::string dir = dir_template;
  if (!options.real_cases.empty()) {
    const bool ok = bench_real_cases(options.python, options.rounds, options.real_cases, wvlock,
                                     options.baseline_wvlock, dir);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return ok ? 0 : 1;
  }
  if (options.findlinks_only) {
    const bool ok = bench_findlinks(options, wvlock, dir);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return ok ? 0 : 1;
  }

  // 1. The five-target example.
  std::string generated = source + "/fixtures/generated";
  if (!fs::exists(generated + "/simple/index.html") ||
      !fs::exists(generated + "/today/pypi/simple/index.html")) {
    generated = dir + "/generated";
    if (run_program({options.python, source + "/fixtures/generate.py", "--out", generated},
                    nullptr, "", true) != 0) {
      std::fprintf(stderr, "cannot generate the example index\n");
      return 3;
    }
  }
  if (options.fetch_only) {
    bench_fetch(options, wvlock, dir, generated);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
  }
  const std::string example_text = read_text(source + "/fixtures/example/pyproject.toml");
  const std::string example = dir + "/example";
  write_text(example + "/pyproject.toml", with_index(example_text, generated + "/simple"));
  std::printf("example (fixtures/example, 5 targets, local simple index by path)\n");
  if (!bench_in_process(example, options.rounds)) return 1;
  Timing cli_local = time_cli({wvlock, "-q", "--project", example}, options.rounds + 1);
  print_row("wvlock lock (whole command, local index)", cli_local,
            cli_local.wall < 0.1 ? "goal <100 ms: met" : "goal <100 ms: NOT met");
  std::string reference_lock, reference_url;
  {
    Server server(options.python, source + "/tests/index/range_server.py", generated);
    if (server.port() == 0) {
      std::printf("  loopback HTTP: the server did not start\n");
    } else {
      const std::string http = dir + "/example-http";
      write_text(http + "/pyproject.toml",
                 with_index(example_text,
                            wv::str_cat("http://127.0.0.1:", server.port(), "/simple")));
      Timing cold;
      for (int round = 0; round < options.rounds; ++round) {
        std::string cache = wv::str_cat(dir, "/cache-cold", round);
        fs::remove(http + "/pylock.toml");
        Timing timing = time_cli({wvlock, "-q", "--project", http, "--cache-dir", cache}, 1);
        if (timing.wall < 0) {
          cold = timing;
          break;
        }
        cold.keep_best(timing);
      }
      print_row("wvlock lock, loopback HTTP, cold (fresh cache dir)", cold);
      Timing warm = time_cli(
          {wvlock, "-q", "--project", http, "--cache-dir", dir + "/cache-cold0"}, options.rounds);
      print_row("wvlock lock, loopback HTTP, warm (same cache dir)", warm);
      // Online, every cached page is revalidated (a conditional request each); --offline
      // answers from the cache alone, which is the floor the round trips sit on.
      Timing offline = time_cli({wvlock, "-q", "--offline", "--project", http, "--cache-dir",
                                 dir + "/cache-cold0"},
                                options.rounds);
      print_row("wvlock lock, loopback HTTP cache, --offline", offline);
      reference_lock = read_text(http + "/pylock.toml");
      reference_url = wv::str_cat("http://127.0.0.1:", server.port(), "/simple");
    }
  }
  bench_latency(options, wvlock, dir, generated, example_text, reference_lock, reference_url);
  bench_fetch(options, wvlock, dir, generated);
  if (options.latency_only) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
  }

  // 1b. The second example: today's backend indexes, torch pinned per target.
  {
    std::string text = read_text(source + "/fixtures/example-pytorch/pyproject.toml");
    std::size_t at;
    while ((at = text.find("\"../generated/")) != std::string::npos) {
      text.replace(at, 14, "\"" + generated + "/");
    }
    const std::string today = dir + "/example-pytorch";
    write_text(today + "/pyproject.toml", text);
    std::printf("example-pytorch (fixtures/example-pytorch, 5 targets, 4 named indexes, torch "
                "pinned per target)\n");
    if (!bench_in_process(today, options.rounds)) return 1;
    Timing cli = time_cli({wvlock, "-q", "--project", today}, options.rounds + 1);
    print_row("wvlock lock (whole command, local indexes)", cli,
              cli.wall < 0.03 ? "goal <30 ms: met" : "goal <30 ms: NOT met");
    std::printf("  not compared with pip: pip cannot pin one package to an index per "
                "platform (it mixes every index's versions)\n");
  }

  // 2. The synthetic ecosystem.
  const std::string eco = options.eco;
  std::printf("\nsynthetic ecosystem (bench/synthetic_ecosystem.py --projects %d --seed %d, %s)\n",
              options.projects, options.seed, eco.c_str());
  auto generate_start = Clock::now();
  if (run_program({options.python, std::string(WV_BENCH_DIR) + "/synthetic_ecosystem.py", "--out",
                   eco, "--projects", std::to_string(options.projects), "--seed",
                   std::to_string(options.seed)},
                  nullptr, "", true) != 0) {
    std::fprintf(stderr, "cannot generate the synthetic ecosystem\n");
    return 3;
  }
  std::printf("  generated or reused in %.1f s (not timed below)\n",
              std::chrono::duration<double>(Clock::now() - generate_start).count());
  std::vector<std::string> roots;
  {
    std::istringstream lines(read_text(eco + "/requirements.txt"));
    std::string line;
    while (std::getline(lines, line)) {
      if (!line.empty()) roots.push_back(line);
    }
  }
  const std::string syn1 = dir + "/synthetic-1";
  const std::string syn5 = dir + "/synthetic-5";
  write_text(syn1 + "/pyproject.toml", pyproject(roots, eco + "/simple", kCpuTarget));
  write_text(syn5 + "/pyproject.toml", pyproject(roots, eco + "/simple", kFiveTargets));
  Timing syn1_timing = time_cli({wvlock, "-q", "--project", syn1}, options.rounds);
  auto syn1_versions = locked_versions(syn1, "cpu");
  print_row(wv::str_cat("wvlock lock, ", roots.size(), " roots, 1 target (cpu)"), syn1_timing,
            wv::str_cat(syn1_versions.size(), " packages"));
  Timing syn5_timing = time_cli({wvlock, "-q", "--project", syn5}, options.rounds);
  print_row(wv::str_cat("wvlock lock, ", roots.size(), " roots, 5 targets"), syn5_timing,
            wv::str_cat(locked_versions(syn5, "cpu").size(), " packages on cpu"));

  // 3. pip on one target.
  if (options.pip) {
    std::printf("\npip (%s -m pip install --dry-run --report, manylinux_2_28_x86_64, "
                "python 3.11, one run each)\n", options.python.c_str());
    PipResult pip = run_pip(options.python, eco + "/simple", eco + "/requirements.txt", dir);
    if (!pip.ok) {
      std::printf("  synthetic: pip failed\n");
    } else {
      print_row("pip, synthetic, 1 target (cpu)", pip.timing);
      compare("synthetic cpu", syn1_versions, pip, syn1_timing);
    }
    // Not on the example: every torch wheel (and numpy 2's) carries a variant label, which
    // pip cannot parse as a wheel file name, and without them pip 23.0 still fails on the
    // fixture's requests (its `charset_normalizer` requirement against metadata named
    // `charset-normalizer`: "inconsistent Name", ResolutionImpossible). So pip runs on the
    // synthetic ecosystem only.
    std::printf("  example: not compared (variant wheels; pip 23.0 rejects the fixture's "
                "charset_normalizer spelling)\n");
  }
  const bool findlinks = bench_findlinks(options, wvlock, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return findlinks ? 0 : 1;
}
