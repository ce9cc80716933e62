// `wvlock lock` against the chaos server (docs/fault-injection.md): every run ends with the
// reference lockfile or a clear error that leaves the previous lockfile as it was, and the cache
// it leaves never serves a bad file (an offline lock gives the reference or "not in the cache").
#include <catch2/catch.hpp>

#include <functional>

#include "tests/fault/lock_bench.h"

using namespace wv::fault;
using wv::str_cat;

TEST_CASE("fault: wvlock lock under server-wide chaos ends in the reference lock or a clear "
          "error, and its cache never serves a bad file", "[fault][lock]") {
  LockBench bench;
  const std::uint64_t runs = knob("WV_FAULT_LOCK_RUNS", 2);
  const std::uint64_t seed = knob("WV_FAULT_SEED", 1);
  const double rate = knob_double("WV_FAULT_RATE", 0.1);
  Tally tally;
  tally.name = str_cat("lock (", runs, " runs, seeds ", seed, "..", seed + runs - 1, ", rate ", decimal(rate), ")");
  const std::string shared = bench.tmp.path() + "/cache-shared";
  for (std::uint64_t i = 0; i < runs; ++i) {
    const std::uint64_t run_seed = seed + i;
    // The previous state: no lockfile, the reference, or an older lockfile.
    std::string previous = i % 3 == 0 ? "" : i % 3 == 1 ? bench.reference : bench.older;
    fs::remove(bench.project + "/pylock.toml");
    if (!previous.empty()) spit(bench.project + "/pylock.toml", previous);
    const bool fresh = i % 2 == 0;
    const std::string cache = fresh ? str_cat(bench.tmp.path(), "/cache-", run_seed) : shared;
    // Half the runs read a third of the METADATA by range requests (never cached, so an
    // offline lock after them stops at "not in the cache"); the other half read every
    // METADATA from PEP 658 files, so an offline lock after a success can give the reference.
    // Runs cycle through (fresh, ranges), (shared, PEP 658), (fresh, PEP 658), (shared, ranges).
    const bool ranges = ((i + 1) / 2) % 2 == 0;
    const std::string mode = ranges ? "" : "&strip658=0";
    REQUIRE(bench.server.reseed(str_cat("lock-", run_seed), rate, mode));
    // Every fifth run is SIGKILLed after 0-6 s (a run takes about 5 s).
    KillPlan plan;
    if (i % 5 == 4) {
      plan.when = KillPlan::When::kAfterDelay;
      plan.delay = std::chrono::milliseconds(std::mt19937_64(run_seed)() % 6000);
    }
    Child run = bench.lock(cache, false, plan);
    tally.add_faults(bench.server.tally());
    ++tally.runs;
    std::string what = str_cat("lock seed ", run_seed, fresh ? " (fresh cache" : " (shared cache",
                               ranges ? ", range reads)" : ")");
    bench.judge(run, previous, what, tally);
    if (fresh) {
      REQUIRE(bench.server.reseed("offline", 0, mode));
      // A lock that succeeded left every answer it used in the cache (a rejected one was
      // fetched again and its replacement kept): offline must give the same lockfile.
      bench.check_offline(cache, what + ", offline", tally, run.exit_code == 0 && !run.killed);
      fs::remove_all(cache);
    }
  }
  REQUIRE(bench.server.reseed("offline", 0, "&strip658=0"));
  bench.check_offline(shared, "the shared cache, offline", tally);
  tally.report();
  INFO(tally.render());
  CHECK(tally.bad.empty());
}

namespace {

// Rewrites every cached answer whose URL ends with `suffix` (a whole, consistent entry: body
// and sidecar agree, as the cache would have stored a bad answer from the server), with
// `damage` applied to the body. Returns how many entries it changed.
int damage_cache_entries(const std::string& cache, const std::string& suffix,
                         const std::function<void(std::string&)>& damage) {
  int changed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(cache + "/http-v2", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string path = it->path().string();
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".meta") != 0) continue;
    std::string meta = slurp(path);
    std::size_t url = meta.find("\nurl ");
    std::size_t url_end = meta.find('\n', url + 1);
    std::string address = meta.substr(url + 5, url_end - url - 5);
    if (address.size() < suffix.size() ||
        address.compare(address.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::string body_path = path.substr(0, path.size() - 5) + ".body";
    std::string body = slurp(body_path);
    std::string old_sha = wv::sha256_hex(body), old_size = std::to_string(body.size());
    damage(body);
    spit(body_path, body);
    auto replace = [&](const std::string& from, const std::string& to) {
      std::size_t at = meta.find(from);
      REQUIRE(at != std::string::npos);
      meta.replace(at, from.size(), to);
    };
    replace("body-sha256 " + old_sha, "body-sha256 " + wv::sha256_hex(body));
    replace("body-size " + old_size + "\n", "body-size " + std::to_string(body.size()) + "\n");
    spit(path, meta);
    ++changed;
  }
  return changed;
}

}  // namespace

// Regression: the page cache stored answers the index then rejected (a .metadata or
// variants.json whose sha256 is not the listed one, a JSON page that does not parse), and a
// revalidation (304: the ETag was the good file's) or an offline lock served the bad copy again
// and again. Now a rejected answer is asked for once more past the cache, which drops its copy.
TEST_CASE("fault: a bad cached .metadata, variants.json or page is dropped and fetched again, "
          "never served twice", "[fault][lock][regression]") {
  LockBench bench;
  const std::string cache = bench.tmp.path() + "/cache-reference";
  struct Damage {
    const char* suffix;
    const char* what;
  };
  for (const Damage& damage : {Damage{".metadata", "metadata"}, Damage{"-variants.json", "variants"},
                               Damage{"/simple/torch/", "page"}}) {
    SECTION(damage.what) {
      int changed = damage_cache_entries(cache, damage.suffix, [](std::string& body) {
        body.insert(body.size() / 2, "\"chaos\"");
      });
      REQUIRE(changed > 0);
      // Offline: the bad copy is not served; the error says the file is not in the cache.
      fs::remove(bench.project + "/pylock.toml");
      Child offline = bench.lock(cache, true);
      INFO(offline.err);
      CHECK(offline.exit_code != 0);
      CHECK(offline.err.find("is not in the cache") != std::string::npos);
      CHECK_FALSE(fs::exists(bench.project + "/pylock.toml"));
      // Online: the server's good copy, and the reference lockfile.
      damage_cache_entries(cache, damage.suffix, [](std::string& body) {
        body.insert(body.size() / 2, "\"chaos\"");
      });
      Child online = bench.lock(cache, false);
      INFO(online.err);
      CHECK(online.exit_code == 0);
      CHECK(slurp(bench.project + "/pylock.toml") == bench.reference);
      // The good copy fetched again took the bad one's place: offline works again.
      fs::remove(bench.project + "/pylock.toml");
      Child again = bench.lock(cache, true);
      INFO(again.err);
      CHECK(again.exit_code == 0);
      CHECK(slurp(bench.project + "/pylock.toml") == bench.reference);
    }
  }
}

// Regression: METADATA read by range requests carries no hash, and a range answer damaged on
// the way made the zip look malformed, which the resolver takes as "this version is
// unavailable": the lock quietly chose an older markupsafe (exit 0, a different lockfile). Now
// a malformed range read is checked against the whole wheel and its sha256 first.
TEST_CASE("fault: a damaged range read of a wheel's METADATA does not pass for a broken wheel",
          "[fault][lock][regression]") {
  LockBench bench;
  // markupsafe's page has no PEP 658 attributes in chaos mode: its METADATA is read by range.
  // `changing` appends a line to the wheel, so the range read of its tail finds no zip end.
  SECTION("the first answer for each markupsafe wheel is damaged") {
    fs::remove(bench.project + "/pylock.toml");
    REQUIRE(bench.server.reseed("range", 1, "&kinds=changing&only=/markupsafe/markupsafe-&max_hit=1"));
    Child run = bench.lock(bench.tmp.path() + "/cache-range", false);
    auto faults = bench.server.tally();
    INFO(run.err);
    CHECK(faults["changing range"] > 0);
    CHECK(run.exit_code == 0);
    CHECK(slurp(bench.project + "/pylock.toml") == bench.reference);
    // The whole wheels read to check the damaged range reads were one-off reads: the page
    // cache keeps no wheel (each sidecar names its URL on a `url ` line).
    std::error_code ec;
    for (fs::recursive_directory_iterator it(bench.tmp.path() + "/cache-range/http-v2", ec), end;
         !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".meta") continue;
      const std::string sidecar = slurp(it->path().string());  // split() views into it
      for (std::string_view line : wv::split(sidecar, '\n')) {
        if (line.starts_with("url ")) CHECK_FALSE(line.ends_with(".whl"));
      }
    }
  }
  SECTION("a wheel that stays damaged is a clear integrity error") {
    fs::remove(bench.project + "/pylock.toml");
    REQUIRE(bench.server.reseed("range", 1, "&kinds=changing&only=/markupsafe/markupsafe-3.0.3"));
    Child run = bench.lock(bench.tmp.path() + "/cache-range", false);
    INFO(run.err);
    CHECK(run.exit_code != 0);
    CHECK(run.err.find("markupsafe-3.0.3") != std::string::npos);
    CHECK(run.err.find("sha256") != std::string::npos);
    CHECK_FALSE(fs::exists(bench.project + "/pylock.toml"));
  }
}

// Regression: the wheels a target keeps besides its best one are those with the same
// dependencies; a wheel whose METADATA could not be fetched (the server kept failing, or sent
// bytes with the wrong sha256) was quietly left out, and the lock succeeded with a different
// lockfile. Now that is an error naming the file.
TEST_CASE("fault: a kept wheel whose metadata cannot be read fails the lock instead of "
          "leaving the kept list", "[fault][lock][regression]") {
  LockBench bench;
  // mi300 keeps torchvision's rocm6.3 build besides its rocm6.4 build.
  const std::string wheel = "torchvision-0.24.0-cp311-cp311-manylinux_2_28_x86_64-rocm6.3.whl";
  REQUIRE(bench.reference.find(wheel) != std::string::npos);
  fs::remove(bench.project + "/pylock.toml");
  REQUIRE(bench.server.reseed("kept", 1, "&strip658=0&kinds=tamper&only=/" + wheel + ".metadata"));
  Child run = bench.lock(bench.tmp.path() + "/cache-kept", false);
  auto faults = bench.server.tally();
  INFO(run.err);
  CHECK(faults["tamper metadata"] > 0);
  CHECK(run.exit_code != 0);
  CHECK(run.err.find(wheel + ".metadata") != std::string::npos);
  CHECK(run.err.find("sha256") != std::string::npos);
  CHECK_FALSE(fs::exists(bench.project + "/pylock.toml"));
}

// Regression: when a `*-variants.json` could not be fetched (the server kept failing, or sent
// bytes with the wrong sha256), the variant wheels of that version counted as unusable and the
// lock quietly chose an older flash-attn for the CUDA targets (exit 0). Now it is an error that
// names the file.
TEST_CASE("fault: variant metadata that cannot be fetched fails the lock instead of making "
          "the version unavailable", "[fault][lock][regression]") {
  LockBench bench;
  const std::string file = "flash_attn-2.8.3-variants.json";
  fs::remove(bench.project + "/pylock.toml");
  REQUIRE(bench.server.reseed("variants", 1, "&strip658=0&kinds=tamper&only=/" + file));
  Child run = bench.lock(bench.tmp.path() + "/cache-variants", false);
  auto faults = bench.server.tally();
  INFO(run.err);
  CHECK(faults["tamper variants"] > 0);
  CHECK(run.exit_code != 0);
  CHECK(run.err.find(file) != std::string::npos);
  CHECK(run.err.find("sha256") != std::string::npos);
  CHECK_FALSE(fs::exists(bench.project + "/pylock.toml"));
}
