// `wvlock sync` against the chaos server, also SIGKILLed at random points (docs/fault-injection.md):
// the environment is always exactly the old state or the new one (after the next run repairs
// it from the journal), never a mix, and its Python imports the right torch.
#include <catch2/catch.hpp>

#include "tests/fault/sync_bench.h"

using namespace wv::fault;
using wv::str_cat;

TEST_CASE("fault: wvlock sync under chaos and SIGKILL leaves the old or the new environment, "
          "never a mix", "[fault][sync]") {
  SyncBench bench;
  const std::uint64_t runs = knob("WV_FAULT_SYNC_RUNS", 4);
  const std::uint64_t seed = knob("WV_FAULT_SEED", 1);
  const double rate = knob_double("WV_FAULT_RATE", 0.1);
  Tally tally;
  tally.name = str_cat("sync (", runs, " runs, seeds ", seed, "..", seed + runs - 1, ", rate ", decimal(rate), ")");
  const std::string shared = bench.tmp.path() + "/cache-shared";
  const std::string empty = bench.tmp.path() + "/cache-empty";
  int current = 0;
  for (std::uint64_t i = 0; i < runs; ++i) {
    const std::uint64_t run_seed = seed + i;
    std::mt19937_64 random(run_seed);
    const int target = 1 - current;
    // A quarter of the runs are not killed; a quarter are killed after 0-2 s; a quarter once
    // the journal exists (the commit has begun) plus 0-15 ms; a quarter once it is gone again
    // (the commit point has passed: trash and emptied folders are being removed) plus 0-3 ms.
    KillPlan plan;
    plan.watch = bench.venv + "/.wvlock-journal";
    switch (i % 4) {
      case 0: break;
      case 1:
        plan.when = KillPlan::When::kAfterDelay;
        plan.delay = std::chrono::milliseconds(random() % 2000);
        break;
      case 2:
        plan.when = KillPlan::When::kWhenFileAppears;
        plan.delay = std::chrono::milliseconds(random() % 16);
        break;
      default:
        plan.when = KillPlan::When::kWhenFileGone;
        plan.delay = std::chrono::microseconds(random() % 3000);
        break;
    }
    const bool fresh = (i / 4) % 2 == 0;
    const std::string cache = fresh ? str_cat(bench.tmp.path(), "/cache-", run_seed) : shared;
    REQUIRE(bench.server.reseed(str_cat("sync-", run_seed), rate));
    Child run = bench.sync(target, cache, false, plan);
    tally.add_faults(bench.server.tally());
    ++tally.runs;
    if (fresh) fs::remove_all(cache);
    std::string what = str_cat("sync seed ", run_seed, " ", bench.states[current].name, " -> ",
                               bench.states[target].name);
    TreeDigest after;
    int state = bench.state_now(&after);
    if (run.timed_out) {
      tally.fail(what + ": ran past the bound (a hang)");
    } else if (!run.killed && run.signal != 0) {
      tally.fail(str_cat(what, ": died of signal ", run.signal, "\n", run.err));
    } else if (has_sanitizer_report(run.err)) {
      tally.fail(what + ": sanitizer report\n" + run.err);
    } else if (!run.killed) {
      if (run.exit_code == 0) {
        if (state != target) {
          tally.fail(what + ": exit 0 but the environment is not the new state\n" +
                     listing_diff(bench.states[target].digest, after));
        } else {
          ++tally.outcomes["success"];
        }
      } else if (state != current) {
        tally.fail(str_cat(what, ": failed (exit ", run.exit_code, ") and the environment changed\n",
                           run.err, listing_diff(bench.states[current].digest, after)));
      } else if (run.err.find("error: ") == std::string::npos ||
                 (run.err.find("http://127.0.0.1:") == std::string::npos &&
                  run.err.find("sha256") == std::string::npos)) {
        tally.fail(str_cat(what, ": unclear error (exit ", run.exit_code, ")\n", run.err));
      } else if (bench.leftovers()) {
        tally.fail(what + ": a failed sync left wvlock's staging or journal behind");
      } else {
        ++tally.outcomes["clear error"];
      }
    }
    if (run.killed && !run.timed_out) {
      // The next run repairs: offline from an empty cache, it rolls an interrupted commit back
      // and then fails to fetch (environment unchanged), or finds nothing left to do.
      const bool journal = fs::exists(bench.venv + "/.wvlock-journal");
      Child repair = bench.sync(target, empty, true);
      TreeDigest repaired;
      int after_repair = bench.state_now(&repaired);
      if (has_sanitizer_report(repair.err) || repair.signal != 0) {
        tally.fail(what + ": the repair run crashed\n" + repair.err);
      } else if (after_repair < 0) {
        tally.fail(str_cat(what, ": killed, then repaired into neither state (journal ",
                           journal ? "present" : "absent", ")\n", repair.err,
                           listing_diff(bench.states[current].digest, repaired)));
      } else if (journal && after_repair != current) {
        tally.fail(what + ": the journal was rolled forward, not back");
      } else if (!journal && state >= 0 && after_repair != state) {
        // (With the journal present, a tree that already looks new is still rolled back: the
        // commit point had not passed; the check above covers it.)
        tally.fail(what + ": a whole state before the repair became another after it");
      } else if (bench.leftovers()) {
        tally.fail(what + ": the repair run left wvlock's staging or journal behind");
      } else {
        ++tally.outcomes[after_repair == current ? "killed -> recovered to old"
                                                 : "killed -> recovered to new"];
        if (journal) ++tally.outcomes["killed mid-commit (journal rolled back)"];
        if (journal && state == target) {
          ++tally.outcomes["killed with every file moved, before the commit point (rolled back)"];
        }
      }
      state = after_repair;
    }
    if (state >= 0) {
      std::string said;
      if (!bench.imports(state, &said)) tally.fail(what + ": python cannot import torch: " + said);
      current = state;
    } else {
      // Unknown state: put the environment back to a reference state for the next run.
      REQUIRE(bench.server.reseed("restore", 0));
      Child restore = bench.sync(current, bench.clean_cache, false);
      INFO(tally.render() << "\nrestore: " << restore.err);
      REQUIRE(bench.state_now() == current);
    }
  }
  // After the campaign, a clean sync to the other state still works.
  REQUIRE(bench.server.reseed("final", 0));
  Child final_run = bench.sync(1 - current, bench.clean_cache, false);
  if (final_run.exit_code != 0 || bench.state_now() != 1 - current) {
    tally.fail("the clean sync after the campaign failed\n" + final_run.err);
  }
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
}

// Regression: a sync killed after its commit point (the journal removed) but before the
// emptied folders of removed distributions were deleted left an empty `*.dist-info` folder;
// every later sync then failed with "cannot read `.../RECORD`". The emptied folders now go
// before the commit point, under the journal.
TEST_CASE("fault: a sync killed just after its commit point leaves the new environment, and "
          "the next sync works", "[fault][sync][regression]") {
  SyncBench bench;
  REQUIRE(bench.server.reseed("regression", 0));
  int current = 0;
  for (int i = 0; i < 8; ++i) {
    const int target = 1 - current;
    KillPlan plan;
    plan.when = KillPlan::When::kWhenFileGone;
    plan.watch = bench.venv + "/.wvlock-journal";
    plan.delay = std::chrono::microseconds(250 * (i % 6));
    Child run = bench.sync(target, bench.clean_cache, false, plan);
    INFO("kill " << i << " after " << 250 * (i % 6) << " us; killed " << run.killed << "\n" << run.err);
    REQUIRE(run.signal == (run.killed ? SIGKILL : 0));
    Child next = bench.sync(target, bench.clean_cache, false);
    INFO(next.err);
    CHECK(next.exit_code == 0);
    TreeDigest after;
    int state = bench.state_now(&after);
    INFO(listing_diff(bench.states[target].digest, after));
    REQUIRE(state == target);
    current = state;
  }
}
