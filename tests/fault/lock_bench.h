// The lock bench of the fault tests: the example project against the chaos server, its reference
// lockfile and an older one, and how a finished lock run is judged. Header-only: the fault test
// files include it.
#pragma once

#include <catch2/catch.hpp>

#include "tests/fault/fault_harness.h"
#include "tests/support/temp_dir.h"

namespace wv::fault {

struct LockBench {
  wv::test::TempDir tmp;
  std::string project;
  ChaosServer server;
  std::string reference;  ///< the lockfile against the well-behaved server
  std::string older;      ///< a lockfile of a slightly different project: a previous state

  LockBench() : server(ecosystem_dir(), 2.0) {
    REQUIRE(!ecosystem_dir().empty());
    REQUIRE(server.ok());
    project = tmp.path() + "/project";
    std::string index = server.base() + "/simple";
    // The older lockfile: the same index, one dependency fewer.
    write_example_project(project, index, "  \"requests[socks]>=2.32\",\n", "");
    REQUIRE(server.reseed("reference", 0));
    Child old_lock = lock(tmp.path() + "/cache-reference", false);
    INFO(old_lock.err);
    REQUIRE(old_lock.exit_code == 0);
    older = slurp(project + "/pylock.toml");
    write_example_project(project, index);
    fs::remove(project + "/pylock.toml");
    Child clean = lock(tmp.path() + "/cache-reference", false);
    INFO(clean.err);
    REQUIRE(clean.exit_code == 0);
    reference = slurp(project + "/pylock.toml");
    REQUIRE(!reference.empty());
    REQUIRE(reference != older);
  }

  Child lock(const std::string& cache, bool offline, const KillPlan& plan = {},
             std::optional<std::uint64_t> max_file_bytes = std::nullopt) {
    return lock_in(project, cache, offline, plan, max_file_bytes);
  }

  /// `wvlock lock` of the project folder `dir` (a copy of the project, or the project).
  Child lock_in(const std::string& dir, const std::string& cache, bool offline,
                const KillPlan& plan = {}, std::optional<std::uint64_t> max_file_bytes = std::nullopt) {
    std::vector<std::string> argv = {WVLOCK_BINARY, "--project", dir, "--cache-dir", cache};
    if (offline) argv.push_back("--offline");
    argv.push_back("lock");
    return run_child(argv, {"WVLOCK_HTTP_TIMEOUT=1"}, tmp.path(), std::chrono::seconds(120), plan,
                     max_file_bytes);
  }

  /// Classifies one finished lock run; a bad outcome is recorded in `tally`.
  void judge(const Child& run, const std::string& previous, const std::string& what, Tally& tally) {
    std::string now = fs::exists(project + "/pylock.toml") ? slurp(project + "/pylock.toml") : "";
    if (run.timed_out) return tally.fail(what + ": ran past the bound (a hang)");
    if (run.killed) {
      // SIGKILLed on purpose: the lockfile is the previous one or the new one, whole.
      if (now == previous) ++tally.outcomes["killed: previous lockfile"];
      else if (now == reference) ++tally.outcomes["killed: reference lockfile"];
      else tally.fail(what + ": killed, and the lockfile is neither the previous nor the new one");
      std::error_code ec;
      for (fs::directory_iterator it(project, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().filename().string().rfind("pylock.toml.", 0) == 0) {
          ++tally.outcomes["killed: stray pylock.toml.tmp.* left (harmless)"];
          fs::remove(it->path(), ec);
        }
      }
      return;
    }
    if (run.signal != 0) return tally.fail(str_cat(what, ": killed by signal ", run.signal, "\n", run.err));
    if (has_sanitizer_report(run.err)) return tally.fail(what + ": sanitizer report\n" + run.err);
    if (run.exit_code == 0) {
      if (now != reference) {
        return tally.fail(what + ": exit 0 but the lockfile differs from the reference: " +
                          first_difference(reference, now) + "\n" + run.err);
      }
      ++tally.outcomes["success"];
      return;
    }
    if (now != previous) return tally.fail(what + ": failed and the lockfile changed\n" + run.err);
    // A clear error: `error: ...` naming what failed (a URL of the index, or the cache).
    bool names_it = run.err.find("error: ") != std::string::npos &&
                    (run.err.find("http://127.0.0.1:") != std::string::npos ||
                     run.err.find("offline") != std::string::npos);
    if (!names_it) return tally.fail(str_cat(what, ": unclear error (exit ", run.exit_code, ")\n", run.err));
    ++tally.outcomes["clear error"];
  }

  /// An offline lock from `cache`: the reference lockfile, or a clear "not in the cache" (not
  /// even that when the cache is `complete`: a lock with a well-behaved server filled it).
  void check_offline(const std::string& cache, const std::string& what, Tally& tally,
                     bool complete = false) {
    fs::remove(project + "/pylock.toml");
    Child run = lock(cache, true);
    if (run.exit_code == 0) {
      if (slurp(project + "/pylock.toml") != reference) {
        tally.fail(what + ": the offline lock from the cache differs from the reference");
      } else {
        ++tally.outcomes["offline: reference"];
      }
    } else if (!complete && run.signal == 0 && run.err.find("is not in the cache") != std::string::npos &&
               fs::exists(project + "/pylock.toml") == false) {
      ++tally.outcomes["offline: not cached"];
    } else {
      tally.fail(str_cat(what, ": the offline lock neither matched nor said `not in the cache` (exit ",
                         run.exit_code, ")\n", run.err));
    }
    // Stored downloads are named by their sha256: each must still hash to its name.
    std::error_code ec;
    for (fs::recursive_directory_iterator it(cache + "/files-v1", ec), end; !ec && it != end;
         it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      std::string name = it->path().filename().string();
      if (name.find(".tmp.") != std::string::npos) continue;
      auto digest = wv::sha256_file_hex(it->path().string());
      if (!digest || *digest != name) tally.fail(what + ": a stored file does not hash to its name: " + name);
    }
  }
};

}  // namespace wv::fault
