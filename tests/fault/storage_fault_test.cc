// Storage faults (docs/fault-injection.md): a full disk (a child that may not write a file past a
// size, so its writes fail with EFBIG as they would with ENOSPC), a cache that cannot be created,
// and two wvlock processes at once on one cache, one project or one environment. Every run ends
// with the correct result or a clear error that changed nothing, and leaves no temporary files.
#include <catch2/catch.hpp>

#include <functional>

#include "tests/fault/lock_bench.h"
#include "tests/fault/sync_bench.h"

using namespace wv::fault;
using wv::str_cat;

namespace {

/// Temporary files a write left behind under `root` (`NAME.tmp.PID.N`, the atomic writes).
std::vector<std::string> temporaries(const std::string& root) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string leaf = it->path().filename().string();
    if (leaf.find(".tmp.") != std::string::npos) found.push_back(it->path().string());
  }
  return found;
}

/// Every temporary file left under `roots` is a bad outcome.
void check_no_temporaries(Tally& tally, const std::string& what,
                          std::initializer_list<std::string> roots) {
  for (const std::string& root : roots) {
    for (const std::string& path : temporaries(root)) tally.fail(what + ": left " + path);
  }
}

/// A failed run's error names the failed write's reason.
bool says_disk_full(const Child& run) {
  return run.err.find("error: ") != std::string::npos &&
         run.err.find("File too large") != std::string::npos;
}

/// Starts two children at once and waits for both.
std::pair<Child, Child> run_together(const std::function<Child()>& first,
                                     const std::function<Child()>& second) {
  Child other;
  std::thread thread([&] { other = second(); });
  Child one = first();
  thread.join();
  return {std::move(one), std::move(other)};
}

}  // namespace

TEST_CASE("fault: a full disk during lock leaves the previous lockfile, and the cache still "
          "serves only good files", "[fault][lock][storage]") {
  LockBench bench;
  REQUIRE(bench.server.reseed("disk", 0));
  Tally tally;
  tally.name = "lock with a full disk";
  // From less than most index pages to more than the lockfile (about 76 KiB).
  const std::vector<std::uint64_t> sizes = {1024, 2048, 8192, 32768, 65536, 131072};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string what = str_cat("lock, files up to ", sizes[i], " bytes");
    const std::string cache = str_cat(bench.tmp.path(), "/cache-disk-", i);
    const std::string previous = i % 2 == 0 ? bench.older : bench.reference;
    spit(bench.project + "/pylock.toml", previous);
    Child run = bench.lock(cache, false, {}, sizes[i]);
    ++tally.runs;
    const std::string now = slurp(bench.project + "/pylock.toml");
    if (run.signal != 0 || has_sanitizer_report(run.err)) {
      tally.fail(str_cat(what, ": crashed (signal ", run.signal, ")\n", run.err));
    } else if (run.exit_code == 0) {
      if (now != bench.reference) tally.fail(what + ": exit 0 but not the reference lockfile");
      else ++tally.outcomes["success"];
    } else if (now != previous) {
      tally.fail(what + ": failed and the lockfile changed\n" + run.err);
    } else if (!says_disk_full(run) || run.err.find("pylock.toml` is unchanged") == std::string::npos) {
      tally.fail(str_cat(what, ": unclear error (exit ", run.exit_code, ")\n", run.err));
    } else {
      ++tally.outcomes["clear error, lockfile unchanged"];
    }
    check_no_temporaries(tally, what, {bench.project, cache});
    // What the cache kept is good: online and offline it gives the reference, and every stored
    // download hashes to its name.
    Child again = bench.lock(cache, false);
    if (again.exit_code != 0 || slurp(bench.project + "/pylock.toml") != bench.reference) {
      tally.fail(what + ": the next lock, with room, failed\n" + again.err);
    }
    bench.check_offline(cache, what, tally, again.exit_code == 0);
  }
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
  // The sweep reaches both ends: a lockfile too large to write, and enough room for all.
  CHECK(tally.outcomes["success"] >= 1);
  CHECK(tally.outcomes["clear error, lockfile unchanged"] >= 1);
}

TEST_CASE("fault: a full disk during sync leaves the old environment or the new one, with a "
          "clear error", "[fault][sync][storage]") {
  SyncBench bench;
  REQUIRE(bench.server.reseed("disk", 0));
  Tally tally;
  tally.name = "sync with a full disk";
  // Wheels are 1.3-3.1 KiB, their files smaller or larger: each size fails at another write
  // (the download into the cache, a staged file, RECORD, the journal) or lets all through.
  const std::vector<std::uint64_t> sizes = {1024, 1536, 2048, 2560, 3072, 4096, 8192, 65536};
  int current = 0;
  for (std::size_t i = 0; i < sizes.size() * 2; ++i) {
    const std::uint64_t size = sizes[i % sizes.size()];
    const int target = 1 - current;
    // The first pass downloads into an empty cache; the second finds the wheels cached.
    const std::string cache = i < sizes.size() ? str_cat(bench.tmp.path(), "/cache-disk-", i)
                                               : bench.clean_cache;
    const std::string what = str_cat("sync ", bench.states[current].name, " -> ",
                                     bench.states[target].name, ", files up to ", size, " bytes",
                                     i < sizes.size() ? ", empty cache" : ", warm cache");
    Child run = bench.sync(target, cache, false, {}, size);
    ++tally.runs;
    TreeDigest after;
    const int state = bench.state_now(&after);
    if (run.signal != 0 || has_sanitizer_report(run.err)) {
      tally.fail(str_cat(what, ": crashed (signal ", run.signal, ")\n", run.err));
    } else if (run.exit_code == 0) {
      if (state != target) {
        tally.fail(what + ": exit 0 but not the new state\n" +
                   listing_diff(bench.states[target].digest, after));
      } else {
        ++tally.outcomes["success"];
      }
    } else if (state != current) {
      tally.fail(str_cat(what, ": failed and the environment changed\n", run.err,
                         listing_diff(bench.states[current].digest, after)));
    } else if (!says_disk_full(run)) {
      tally.fail(str_cat(what, ": unclear error (exit ", run.exit_code, ")\n", run.err));
    } else if (bench.leftovers()) {
      tally.fail(what + ": a failed sync left wvlock's staging or journal behind");
    } else {
      ++tally.outcomes["clear error, environment unchanged"];
    }
    check_no_temporaries(tally, what, {bench.venv, cache});
    // With room again, the same sync reaches the new state (nothing half-written stands in the way).
    Child again = bench.sync(target, cache, false);
    if (again.exit_code != 0 || bench.state_now() != target) {
      tally.fail(what + ": the next sync, with room, failed\n" + again.err);
    } else {
      std::string said;
      if (!bench.imports(target, &said)) tally.fail(what + ": python cannot import torch: " + said);
    }
    current = bench.state_now();
    REQUIRE(current >= 0);
  }
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
  CHECK(tally.outcomes["success"] >= 1);
  CHECK(tally.outcomes["clear error, environment unchanged"] >= 1);
}

TEST_CASE("fault: a cache folder that cannot be created", "[fault][lock][sync][storage]") {
  SyncBench bench;
  REQUIRE(bench.server.reseed("unwritable", 0));
  // The cache's parent is a regular file: every create fails with ENOTDIR, as for root (whom
  // permission bits do not stop) on a read-only mount.
  const std::string blocker = bench.tmp.path() + "/not-a-folder";
  spit(blocker, "x");
  const std::string cache = blocker + "/cache";
  const std::string lockfile = slurp(bench.project + "/pylock.toml");
  SECTION("lock: the answers are used without being stored, with a warning") {
    std::vector<std::string> argv = {WVLOCK_BINARY, "--project", bench.project, "--cache-dir", cache, "lock"};
    Child run = run_child(argv, {}, bench.tmp.path(), std::chrono::seconds(120));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    // One warning for the run, not one per page.
    const std::string warning = "warning: cannot write the cache";
    const std::size_t first = run.err.find(warning);
    CHECK(first != std::string::npos);
    CHECK(run.err.find(warning, first + 1) == std::string::npos);
    CHECK(slurp(bench.project + "/pylock.toml") == lockfile);
  }
  SECTION("sync: a clear error naming the cache, and the environment unchanged") {
    Child run = bench.sync(1, cache, false);
    INFO(run.err);
    CHECK(run.exit_code != 0);
    CHECK(run.signal == 0);
    CHECK(run.err.find("error: ") != std::string::npos);
    CHECK(run.err.find(cache) != std::string::npos);
    CHECK(run.err.find("Not a directory") != std::string::npos);
    CHECK(bench.state_now() == 0);
    CHECK_FALSE(bench.leftovers());
  }
}

TEST_CASE("fault: two wvlock processes at once on one cache or one project", "[fault][lock][storage]") {
  LockBench bench;
  REQUIRE(bench.server.reseed("concurrent", 0));
  Tally tally;
  tally.name = "two locks at once";
  const std::uint64_t rounds = knob("WV_FAULT_CONCURRENT_RUNS", 2);
  // A second copy of the project, so two lockfiles are written at once.
  const std::string copy = bench.tmp.path() + "/project-copy";
  fs::create_directories(copy);
  fs::copy_file(bench.project + "/pyproject.toml", copy + "/pyproject.toml");
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::string cache = str_cat(bench.tmp.path(), "/cache-concurrent-", i);
    const bool same_project = i % 2 == 1;
    const std::string other = same_project ? bench.project : copy;
    const std::string what = str_cat("round ", i, same_project ? ", one project" : ", two projects",
                                     ", one empty cache");
    fs::remove(bench.project + "/pylock.toml");
    fs::remove(copy + "/pylock.toml");
    auto [one, two] = run_together([&] { return bench.lock_in(bench.project, cache, false); },
                                   [&] { return bench.lock_in(other, cache, false); });
    tally.runs += 2;
    for (const Child* run : {&one, &two}) {
      if (run->exit_code != 0 || has_sanitizer_report(run->err)) {
        tally.fail(str_cat(what, ": a lock failed (exit ", run->exit_code, ", signal ", run->signal,
                           ")\n", run->err));
      } else {
        ++tally.outcomes["success"];
      }
    }
    for (const std::string& dir : {bench.project, other}) {
      if (slurp(dir + "/pylock.toml") != bench.reference) {
        tally.fail(what + ": " + dir + "/pylock.toml is not the reference lockfile");
      }
    }
    check_no_temporaries(tally, what, {bench.project, copy, cache});
    bench.check_offline(cache, what, tally, true);
  }
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
}

TEST_CASE("fault: two syncs at once on one environment: the second is refused (or runs after "
          "the first), never a mix", "[fault][sync][storage]") {
  SyncBench bench;
  REQUIRE(bench.server.reseed("concurrent", 0));
  Tally tally;
  tally.name = "two syncs at once";
  const std::uint64_t rounds = knob("WV_FAULT_CONCURRENT_RUNS", 2) * 2;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::string what = str_cat("round ", i);
    // One run towards each state, both from the warm reference cache, started together.
    auto [to_cpu, to_h100] =
        run_together([&] { return bench.sync(0, bench.clean_cache, false); },
                     [&] { return bench.sync(1, bench.clean_cache, false); });
    tally.runs += 2;
    const int state = bench.state_now();
    int succeeded = 0;
    for (const Child* run : {&to_cpu, &to_h100}) {
      if (run->exit_code == 0) {
        ++succeeded;
        ++tally.outcomes["success"];
      } else if (run->signal == 0 && run->err.find("another `wvlock sync` is changing") != std::string::npos) {
        ++tally.outcomes["refused: another sync holds the environment"];
      } else {
        tally.fail(str_cat(what, ": unexpected failure (exit ", run->exit_code, ", signal ",
                           run->signal, ")\n", run->err));
      }
    }
    if (state < 0) tally.fail(what + ": the environment is in neither state");
    if (succeeded == 0) tally.fail(what + ": neither sync went through");
    if (succeeded == 1 && state >= 0 && (state == 0 ? to_cpu : to_h100).exit_code != 0) {
      tally.fail(what + ": the environment is in the state of the sync that was refused");
    }
    if (bench.leftovers()) tally.fail(what + ": staging or journal left behind");
    check_no_temporaries(tally, what, {bench.venv});
    std::string said;
    if (state >= 0 && !bench.imports(state, &said)) tally.fail(what + ": python cannot import torch: " + said);
  }
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
}
