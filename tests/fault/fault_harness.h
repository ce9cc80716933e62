// The fault-injection harness (docs/fault-injection.md): the chaos server of
// tests/net/fault_server.py, the built `wvlock` run as a child process (bounded in time, killed
// at a chosen moment), digests of a virtual environment, and the tally a campaign prints.
// Header-only: the fault test files include it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/net/curl_fetcher.h"
#include "tests/support/server_process.h"

extern char** environ;

namespace wv::fault {

namespace fs = std::filesystem;

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// A campaign knob from the environment (scripts/fault-injection.sh sets them), else `fallback`.
inline std::uint64_t knob(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr) return fallback;
  std::optional<std::uint64_t> parsed = parse_uint64(value);
  return parsed ? *parsed : fallback;
}

inline double knob_double(const char* name, double fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atof(value) : fallback;
}

/// `value` as text ("0.1"); str_cat takes no floating point.
inline std::string decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// When to SIGKILL a child: never, after a delay, once `watch` exists, or once `watch` has
/// existed and is gone again (each plus `delay`).
struct KillPlan {
  enum class When { kNever, kAfterDelay, kWhenFileAppears, kWhenFileGone } when = When::kNever;
  std::chrono::microseconds delay{0};
  std::string watch;
};

struct Child {
  int exit_code = -1;  ///< -1 unless it exited
  int signal = 0;      ///< the signal that ended it, 0 when it exited
  bool killed = false;     ///< we sent SIGKILL by plan
  bool timed_out = false;  ///< we sent SIGKILL because it ran past the bound
  double seconds = 0;
  std::string out, err;
};

/// Runs `argv` in `dir` with `environment` (KEY=VALUE, added to or replacing this process's),
/// stdout and stderr to files, for at most `bound`, SIGKILLed as `plan` says. `max_file_bytes`
/// (a multiple of 512) stands in for a full disk: the child may not write a file past that size
/// (RLIMIT_FSIZE), and such a write fails with EFBIG (SIGXFSZ ignored) as ENOSPC would.
inline Child run_child(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       const std::string& dir, std::chrono::seconds bound, const KillPlan& plan = {},
                       std::optional<std::uint64_t> max_file_bytes = std::nullopt) {
  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry; ++entry) {
    std::string item = *entry;
    std::string key = item.substr(0, item.find('='));
    bool replaced = std::any_of(environment.begin(), environment.end(), [&](const std::string& e) {
      return e.substr(0, e.find('=')) == key;
    });
    if (!replaced) env_strings.push_back(item);
  }
  for (const std::string& item : environment) env_strings.push_back(item);
  std::vector<char*> envp;
  for (std::string& item : env_strings) envp.push_back(item.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers;
  for (std::string& item : args) arg_pointers.push_back(item.data());
  arg_pointers.push_back(nullptr);

  const std::string out_path = dir + "/.child-out", err_path = dir + "/.child-err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Child child;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  // posix_spawn has no working-directory action in glibc 2.36's public API: spawn a shell `cd`.
  // dash counts `ulimit -f` in 512-byte blocks; an ignored signal stays ignored across exec.
  std::string script = "cd \"$0\" && exec \"$@\"";
  if (max_file_bytes) script = str_cat("trap '' XFSZ; ulimit -f ", *max_file_bytes / 512, "; ", script);
  std::vector<std::string> shell = {"/bin/sh", "-c", script, dir};
  for (const std::string& item : args) shell.push_back(item);
  std::vector<char*> shell_pointers;
  for (std::string& item : shell) shell_pointers.push_back(item.data());
  shell_pointers.push_back(nullptr);
  int spawned = ::posix_spawn(&pid, "/bin/sh", &actions, nullptr, shell_pointers.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    child.err = "cannot start " + argv.front();
    return child;
  }
  std::optional<std::chrono::steady_clock::time_point> kill_at;
  bool seen = false;
  if (plan.when == KillPlan::When::kAfterDelay) kill_at = start + plan.delay;
  int status = 0;
  while (true) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    auto now = std::chrono::steady_clock::now();
    if (!kill_at && (plan.when == KillPlan::When::kWhenFileAppears ||
                     plan.when == KillPlan::When::kWhenFileGone)) {
      struct stat info;
      const bool exists = ::lstat(plan.watch.c_str(), &info) == 0;
      if (exists && plan.when == KillPlan::When::kWhenFileAppears) kill_at = now + plan.delay;
      if (!exists && seen) kill_at = now + plan.delay;
      seen = seen || exists;
    }
    if (kill_at && now >= *kill_at && !child.killed) {
      ::kill(pid, SIGKILL);
      child.killed = true;
    }
    if (now - start > bound && !child.killed) {
      ::kill(pid, SIGKILL);
      child.timed_out = true;
      child.killed = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  child.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) child.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) child.signal = WTERMSIG(status);
  // A plan that fired after the child had already exited did not kill it.
  if (child.killed && child.signal != SIGKILL) child.killed = child.timed_out = false;
  child.out = slurp(out_path);
  child.err = slurp(err_path);
  return child;
}

/// What must never appear on a child's stderr.
inline bool has_sanitizer_report(const std::string& err) {
  return err.find("Sanitizer") != std::string::npos || err.find("runtime error:") != std::string::npos ||
         err.find("terminate called") != std::string::npos;
}

/// tests/net/fault_server.py in chaos mode over the fixture ecosystem, reseeded per run.
class ChaosServer {
 public:
  ChaosServer(const std::string& root, double stall_seconds)
      : process_({WV_SOURCE_DIR "/tests/net/fault_server.py", "--root", root, "--chaos", "0",
                  "--chaos-rate", "0", "--chaos-stall-s", decimal(stall_seconds)}) {
    net::CurlFetcherOptions options;
    options.proxy = net::ProxySettings{};
    options.use_netrc = false;
    options.progress = net::ProgressMode::kNever;
    control_ = std::make_unique<net::CurlFetcher>(options);
  }
  bool ok() const { return process_.ok(); }
  std::string base() const { return str_cat("http://127.0.0.1:", process_.port()); }
  /// A new seed and fault rate; hit counts and the tally start from zero.
  /// `extra` adds restrictions: `&kinds=a,b`, `&only=TEXT`, `&max_hit=N`.
  bool reseed(const std::string& seed, double rate, const std::string& extra = "") {
    return get(str_cat("/__chaos/seed?seed=", seed, "&rate=", decimal(rate), extra)).has_value();
  }
  /// The faults applied since the last reseed: "KIND CLASS" -> count, and "requests".
  std::map<std::string, std::uint64_t> tally() {
    std::map<std::string, std::uint64_t> counts;
    std::optional<std::string> text = get("/__chaos/tally");
    if (!text) return counts;
    for (std::string_view line : split(*text, '\n')) {
      std::size_t space = line.rfind(' ');
      if (space == std::string_view::npos) continue;
      if (auto value = parse_uint64(line.substr(space + 1))) {
        counts[std::string(line.substr(0, space))] = *value;
      }
    }
    return counts;
  }

 private:
  std::optional<std::string> get(const std::string& path) {
    FetchRequest request;
    request.url = base() + path;
    Result<FetchResponse> response = control_->fetch(request);
    if (!response || response->status != 200) return std::nullopt;
    return response->body;
  }

  test::ServerProcess process_;
  std::unique_ptr<net::CurlFetcher> control_;
};

/// A digest of a virtual environment: every file (path, content, executable bit), symlink
/// (path, target) and folder, except wvlock's own `.wvlock*` entries at the top and Python's
/// byte code (`__pycache__`). `listing` is the text the digest is taken of, for diffs.
struct TreeDigest {
  std::string digest;
  std::string listing;
  bool operator==(const TreeDigest& other) const { return digest == other.digest; }
};

inline TreeDigest digest_tree(const std::string& root) {
  std::vector<std::string> lines;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    std::string rel = path.lexically_relative(root).generic_string();
    std::string leaf = path.filename().string();
    fs::file_status status = it->symlink_status();
    if ((it.depth() == 0 && leaf.rfind(".wvlock", 0) == 0) || leaf == "__pycache__") {
      if (fs::is_directory(status)) it.disable_recursion_pending();
      continue;
    }
    if (fs::is_symlink(status)) {
      lines.push_back("L " + rel + " -> " + fs::read_symlink(path, ec).string());
    } else if (fs::is_directory(status)) {
      lines.push_back("D " + rel);
    } else if (leaf.size() > 4 && leaf.compare(leaf.size() - 4, 4, ".pyc") == 0) {
      continue;
    } else {
      bool executable = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
      lines.push_back(str_cat("F ", rel, " ", sha256_hex(slurp(path.string())), executable ? " x" : ""));
    }
  }
  std::sort(lines.begin(), lines.end());
  TreeDigest result;
  for (const std::string& line : lines) result.listing += line + "\n";
  result.digest = sha256_hex(result.listing);
  return result;
}

/// The lines of `a` not in `b` ("-") and of `b` not in `a` ("+"), at most `limit` of them.
inline std::string listing_diff(const TreeDigest& a, const TreeDigest& b, std::size_t limit = 12) {
  std::vector<std::string> left, right;
  for (std::string_view line : split(a.listing, '\n')) left.emplace_back(line);
  for (std::string_view line : split(b.listing, '\n')) right.emplace_back(line);
  std::string out;
  std::size_t shown = 0;
  for (const std::string& line : left) {
    if (!std::binary_search(right.begin(), right.end(), line) && shown++ < limit) out += "  - " + line + "\n";
  }
  for (const std::string& line : right) {
    if (!std::binary_search(left.begin(), left.end(), line) && shown++ < limit) out += "  + " + line + "\n";
  }
  return out;
}

/// The first line where `a` and `b` differ, as "line N: A | B" (for reports).
inline std::string first_difference(const std::string& a, const std::string& b) {
  std::vector<std::string_view> left = split(a, '\n'), right = split(b, '\n');
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    std::string_view x = i < left.size() ? left[i] : "<end>", y = i < right.size() ? right[i] : "<end>";
    if (x != y) return str_cat("line ", i + 1, ": `", x, "` became `", y, "`");
  }
  return "no difference";
}

/// Outcomes and injected faults of a campaign, printed at the end.
struct Tally {
  std::string name;
  std::uint64_t runs = 0;
  std::map<std::string, std::uint64_t> outcomes;
  std::map<std::string, std::uint64_t> faults;  ///< "KIND CLASS" -> count
  std::uint64_t requests = 0;
  std::vector<std::string> bad;  ///< lost, corrupted or unclear outcomes: must stay empty
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void add_faults(const std::map<std::string, std::uint64_t>& counts) {
    for (const auto& [key, count] : counts) {
      if (key == "requests") requests += count;
      else faults[key] += count;
    }
  }
  void fail(std::string what) { bad.push_back(std::move(what)); }

  std::string render() const {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string out = str_cat("== fault tally: ", name, " ==\nruns ", runs, "\nwall_seconds ",
                              std::uint64_t(seconds), "\nrequests ", requests, "\n");
    for (const auto& [outcome, count] : outcomes) out += str_cat("outcome ", outcome, " ", count, "\n");
    std::map<std::string, std::uint64_t> by_kind;
    for (const auto& [key, count] : faults) by_kind[key.substr(0, key.find(' '))] += count;
    for (const auto& [kind, count] : by_kind) out += str_cat("fault ", kind, " ", count, "\n");
    for (const auto& [key, count] : faults) out += str_cat("fault_by_class ", key, " ", count, "\n");
    out += str_cat("bad ", bad.size(), "\n");
    for (const std::string& line : bad) {  // one line each, for scripts/fault-injection.sh
      std::string flat = line;
      for (std::size_t at; (at = flat.find('\n')) != std::string::npos;) flat.replace(at, 1, " | ");
      out += "BAD " + flat + "\n";
    }
    return out;
  }
  /// Prints the tally, and appends it to $WV_FAULT_TALLY_FILE when set (the campaign script).
  void report() const {
    std::string text = render();
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (const char* file = std::getenv("WV_FAULT_TALLY_FILE"); file && *file) {
      std::ofstream(file, std::ios::app) << text;
    }
  }
};

/// <dir>/pyproject.toml: the example project with its index at `index_url`.
inline void write_example_project(const std::string& dir, const std::string& index_url,
                                  const std::string& edit_from = "", const std::string& edit_to = "") {
  fs::create_directories(dir);
  std::string pyproject = slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  const std::string local = "index-url = \"../generated/simple\"";
  std::size_t at = pyproject.find(local);
  if (at != std::string::npos) pyproject.replace(at, local.size(), "index-url = \"" + index_url + "\"");
  if (!edit_from.empty()) {
    std::size_t edit = pyproject.find(edit_from);
    if (edit != std::string::npos) pyproject.replace(edit, edit_from.size(), edit_to);
  }
  spit(dir + "/pyproject.toml", pyproject);
}

/// The fixture ecosystem of this build.
inline std::string ecosystem_dir() {
  const char* build = std::getenv("WV_BUILD_DIR");
  return build ? std::string(build) + "/fixtures/ecosystem" : std::string();
}

}  // namespace wv::fault
