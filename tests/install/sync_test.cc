// Installing real wheels into real venvs (`python3 -m venv --without-pip`): imports, console
// scripts, RECORD, upgrades, removals, bad input leaving the environment unchanged, the
// journal, the sync lock.
#include <sys/utsname.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/support/package_name.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/journal.h"
#include "src/install/sync.h"
#include "src/pkg/wheel_filename.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelEntry;
using test::WheelSpec;

using test::live_host;
using test::machine;

/// One target `cpu` whose closure is every given wheel (each its own package).
lock::Lockfile lock_of(const std::vector<lock::LockedFile>& files) { return test::lock_of_wheels(files); }

/// Every path under `root` with its type and content hash, sorted: equal strings mean an
/// unchanged environment.
std::string tree_digest(const std::string& root) {
  std::map<std::string, std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& path = it->path();
    std::string rel = path.lexically_relative(root).generic_string();
    if (it->is_symlink()) {
      entries[rel] = "link " + fs::read_symlink(path).string();
    } else if (it->is_directory()) {
      entries[rel] = "dir";
    } else {
      entries[rel] = "file " + sha256_file_hex(path.string()).value_or("?") +
                     (access(path.c_str(), X_OK) == 0 ? " x" : "");
    }
  }
  std::string out;
  for (const auto& [rel, what] : entries) out += rel + " " + what + "\n";
  return out;
}

std::string run(const std::string& command, int expected_exit = 0) {
  return test::run_checked(command, expected_exit);
}

WheelSpec alpha(const std::string& version, bool with_old_module) {
  WheelSpec spec;
  spec.name = "alpha";
  spec.version = version;
  const std::string data = "alpha-" + version + ".data/";
  spec.files = {
      {"alpha/__init__.py",
       "VALUE = '" + version + "'\ndef main():\n    print('alpha-cli ran', VALUE)\n    return 0\n"},
      {data + "scripts/alpha-tool", "#!python\nimport alpha\nprint('tool', alpha.VALUE)\n", true},
      {data + "data/share/alpha/readme.txt", "read me\n"},
      {data + "headers/alpha.h", "#define ALPHA 1\n"},
  };
  if (with_old_module) spec.files.push_back({"alpha/old.py", "OLD = True\n"});
  else spec.files.push_back({"alpha/new.py", "NEW = True\n"});
  spec.entry_points = "[console_scripts]\nalpha-cli = alpha:main\n\n[other]\nx = y:z\n";
  return spec;
}

WheelSpec beta() {
  WheelSpec spec;
  spec.name = "beta";
  spec.version = "2.0";
  spec.root_is_purelib = false;  // goes to platlib
  spec.files = {{"beta/__init__.py", "from beta.core import answer\n"},
                {"beta/core.py", "def answer():\n    return 7\n"}};
  return spec;
}

/// A fixture: a temp folder with wheels/ and venv/, and a sync with a LocalWheelStore.
struct Env {
  test::TempDir dir;
  std::string venv = dir.file("venv");
  std::string wheels = dir.file("wheels");
  LocalWheelStore store{""};

  lock::LockedFile wheel(const WheelSpec& spec) {
    return test::locked_file(test::build_wheel(spec, wheels));
  }
  Result<SyncReport> sync_lock(const lock::Lockfile& lockfile, SyncOptions options = {}) {
    options.venv = venv;
    return sync(options, lockfile, live_host(), store);
  }
  std::string site() {
    auto facts = read_interpreter(venv);
    REQUIRE(facts.has_value());
    return venv + "/" + facts->scheme.purelib;
  }
};

// Checks every installed RECORD with Python's own csv/hashlib: each listed file exists inside
// the venv with the recorded sha256 and size; RECORD lists itself without a hash.
constexpr const char* kRecordCheck = R"PY(
import base64, csv, hashlib, os, sys, sysconfig
site = sysconfig.get_paths()["purelib"]
checked = 0
for d in sorted(os.listdir(site)):
    if not d.endswith(".dist-info"): continue
    with open(os.path.join(site, d, "RECORD"), newline="") as f:
        rows = list(csv.reader(f))
    assert [r for r in rows if r[0] == d + "/RECORD"] == [[d + "/RECORD", "", ""]], d
    for path, digest, size in rows:
        full = os.path.normpath(os.path.join(site, path))
        assert full.startswith(sys.prefix + os.sep), full
        assert os.path.isfile(full), full
        if not digest: continue
        data = open(full, "rb").read()
        algo, value = digest.split("=", 1)
        assert algo == "sha256", digest
        assert base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode() == value, path
        assert int(size) == len(data), path
        checked += 1
    assert open(os.path.join(site, d, "INSTALLER")).read() == "wvlock\n"
print("checked", checked)
)PY";

}  // namespace

TEST_CASE("sync: installs wheels natively into a fresh venv", "[install][sync]") {
  Env env;
  lock::Lockfile lockfile = lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())});
  auto report = env.sync_lock(lockfile);
  REQUIRE(report.has_value());
  CHECK(report->created_environment);
  CHECK(report->plan.count(PlanAction::kInstall) == 2);
  CHECK(report->selection.target == "cpu");
  const std::string py = env.venv + "/bin/python";

  CHECK(run(py + " -c 'import alpha, beta; print(alpha.VALUE, beta.answer())'") == "1.0 7\n");
  CHECK(run(env.venv + "/bin/alpha-cli") == "alpha-cli ran 1.0\n");
  CHECK(run(env.venv + "/bin/alpha-tool") == "tool 1.0\n");
  CHECK_FALSE(fs::exists(env.venv + "/bin/x"));  // only console_scripts/gui_scripts
  CHECK(fs::exists(env.venv + "/share/alpha/readme.txt"));
  bool header = false;
  for (const auto& entry : fs::recursive_directory_iterator(env.venv + "/include")) {
    if (entry.path().filename() == "alpha.h") {
      header = entry.path().parent_path().filename() == "alpha";
    }
  }
  CHECK(header);
  std::ifstream tool(env.venv + "/bin/alpha-tool");
  std::string first_line;
  std::getline(tool, first_line);
  CHECK(first_line == "#!" + env.venv + "/bin/python");

  std::ofstream(env.dir.file("check.py")) << kRecordCheck;
  // The wheels' files, launchers and metadata, with a REQUESTED each (both are roots).
  CHECK(run(py + " " + env.dir.file("check.py")) == "checked 21\n");
  // direct_url.json for a local wheel (PEP 610).
  std::ifstream direct(env.site() + "/alpha-1.0.dist-info/direct_url.json");
  std::string direct_text((std::istreambuf_iterator<char>(direct)), {});
  CHECK(direct_text.find("\"url\": \"file://" + env.wheels + "/alpha-1.0-py3-none-any.whl\"") !=
        std::string::npos);

  // A second sync changes nothing.
  std::string before = tree_digest(env.venv);
  auto again = env.sync_lock(lockfile);
  REQUIRE(again.has_value());
  CHECK(again->plan.count(PlanAction::kKeep) == 2);
  CHECK(again->plan.count(PlanAction::kInstall) == 0);
  CHECK(tree_digest(env.venv) == before);
}

TEST_CASE("sync: an upgrade replaces files and a removal deletes by RECORD", "[install][sync]") {
  Env env;
  REQUIRE(env.sync_lock(lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())})).has_value());
  const std::string py = env.venv + "/bin/python";
  run(py + " -c 'import alpha.old, beta.core'");  // leaves byte-code caches behind
  const std::string site = env.site();
  REQUIRE(fs::exists(site + "/alpha/old.py"));

  auto report = env.sync_lock(lock_of({env.wheel(alpha("2.0", false))}));
  REQUIRE(report.has_value());
  CHECK(report->plan.count(PlanAction::kUpgrade) == 1);
  CHECK(report->plan.count(PlanAction::kRemove) == 1);
  std::string rendered = render_plan(report->plan, false);
  CHECK(rendered.find("  ~ alpha 1.0 -> 2.0 (upgrade, alpha-2.0-py3-none-any.whl)\n") !=
        std::string::npos);
  CHECK(rendered.find("  - beta 2.0\n") != std::string::npos);
  CHECK(rendered.find("packages: 0 installed, 1 upgraded, 0 downgraded, 0 reinstalled, 1 removed, "
                      "0 kept as they are\n") != std::string::npos);

  CHECK_FALSE(fs::exists(site + "/alpha/old.py"));
  CHECK(fs::exists(site + "/alpha/new.py"));
  CHECK_FALSE(fs::exists(site + "/alpha-1.0.dist-info"));
  CHECK(fs::exists(site + "/alpha-2.0.dist-info/RECORD"));
  CHECK_FALSE(fs::exists(site + "/beta"));  // files, caches and the emptied folder
  CHECK_FALSE(fs::exists(site + "/beta-2.0.dist-info"));
  bool stale_cache = false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(site + "/alpha/__pycache__", ec)) {
    stale_cache |= entry.path().filename().string().rfind("old.", 0) == 0;
  }
  CHECK_FALSE(stale_cache);
  CHECK(run(py + " -c 'import alpha.new; print(alpha.VALUE)'") == "2.0\n");
  CHECK(run(env.venv + "/bin/alpha-cli") == "alpha-cli ran 2.0\n");
}

TEST_CASE("sync: bad input is a clear error and leaves the environment unchanged",
          "[install][sync][safety]") {
  Env env;
  lock::LockedFile good = env.wheel(alpha("1.0", true));
  REQUIRE(env.sync_lock(lock_of({good})).has_value());
  const std::string before = tree_digest(env.venv);
  WheelSpec gamma;
  gamma.name = "gamma";
  gamma.version = "1.0";
  gamma.files = {{"gamma/__init__.py", "G = 1\n"}};
  SyncOptions options;
  std::string expected;
  ErrorCode code = ErrorCode::kIntegrity;
  std::optional<lock::LockedFile> bad;

  SECTION("a wheel whose hash does not match the lock") {
    bad = env.wheel(gamma);
    bad->sha256 = std::string(64, '0');
    expected = "hash mismatch for `gamma-1.0-py3-none-any.whl`: the lock expects sha256 0000";
  }
  SECTION("a truncated download") {
    bad = env.wheel(gamma);
    fs::resize_file(bad->path, *bad->size / 2);
    expected = "bytes, the lock says";
  }
  SECTION("a truncated zip the lock agrees with") {
    std::string path = test::build_wheel(gamma, env.wheels);
    fs::resize_file(path, fs::file_size(path) - 30);
    bad = test::locked_file(path);
    expected = "wheel `gamma-1.0-py3-none-any.whl` is not a valid zip";
  }
  SECTION("an entry with `..`") {
    gamma.files.push_back({"../evil.py", "x"});
    bad = env.wheel(gamma);
    code = ErrorCode::kInvalidInput;
    expected = "has an entry `../evil.py` with a `..` component";
  }
  SECTION("an absolute entry") {
    gamma.files.push_back({"/tmp/evil.py", "x"});
    bad = env.wheel(gamma);
    code = ErrorCode::kInvalidInput;
    expected = "has an entry `/tmp/evil.py` with an absolute path";
  }
  SECTION("a RECORD that lies about a hash") {
    gamma.files.push_back(
        {"gamma/data.py", "D = 2\n", false, false, true, sha256_record_digest("something else")});
    bad = env.wheel(gamma);
    expected = "hash mismatch for `gamma/data.py` in `gamma-1.0-py3-none-any.whl`: RECORD says";
  }
  SECTION("a file RECORD does not list") {
    gamma.files.push_back({"gamma/hidden.py", "H = 3\n", false, false, false});
    bad = env.wheel(gamma);
    expected = "`gamma/hidden.py` in `gamma-1.0-py3-none-any.whl` is not listed in RECORD";
  }
  SECTION("a symlink entry") {
    gamma.files.push_back({"gamma/link", "/etc/passwd", false, true});
    bad = env.wheel(gamma);
    code = ErrorCode::kInvalidInput;
    expected = "has a symlink entry `gamma/link`";
  }
  SECTION("a symlinked folder in the environment pointing outside") {
    std::string outside = env.dir.file("outside");
    fs::create_directories(outside);
    fs::create_symlink(outside, env.site() + "/gamma");
    const std::string with_link = tree_digest(env.venv);
    bad = env.wheel(gamma);
    auto report = env.sync_lock(lock_of({good, *bad}), options);
    REQUIRE_FALSE(report.has_value());
    CHECK(report.error().message.find("is a symlink leading outside the environment") !=
          std::string::npos);
    CHECK(fs::is_empty(outside));
    CHECK(tree_digest(env.venv) == with_link);
    return;
  }
  SECTION("more than the uncompressed size limit") {
    gamma.files.push_back({"gamma/big.bin", std::string(5000, 'z')});
    bad = env.wheel(gamma);
    options.limits.max_total_size = 4096;
    code = ErrorCode::kLimit;
    expected = "is over the unpacked-bytes limit of 4096 bytes";
  }
  SECTION("more than the entry count limit") {
    bad = env.wheel(gamma);
    options.limits.max_entries = 2;
    code = ErrorCode::kLimit;
    expected = "is 4 entries, over the wheel-entries limit of 2 entries";
  }
  REQUIRE(bad.has_value());
  auto report = env.sync_lock(lock_of({good, *bad}), options);
  REQUIRE_FALSE(report.has_value());
  INFO(report.error().to_string());
  CHECK(report.error().code == code);
  CHECK(report.error().message.find(expected) != std::string::npos);
  if (code == ErrorCode::kLimit) {
    CHECK(report.error().to_string().find("raise it with `--limit ") != std::string::npos);
  }
  CHECK(tree_digest(env.venv) == before);
}

TEST_CASE("sync: another build of the same version is replaced, the same one kept",
          "[install][sync]") {
  Env env;
  REQUIRE(env.sync_lock(lock_of({env.wheel(alpha("1.0", true))})).has_value());
  WheelSpec rebuilt = alpha("1.0", false);
  rebuilt.build = "1";
  lock::Lockfile lockfile = lock_of({env.wheel(rebuilt)});
  auto report = env.sync_lock(lockfile);
  REQUIRE(report.has_value());
  REQUIRE(report->plan.items.size() == 1);
  CHECK(report->plan.items[0].action == PlanAction::kReinstall);
  CHECK(report->plan.items[0].wheel == "alpha-1.0-1-py3-none-any.whl");
  CHECK(fs::exists(env.site() + "/alpha/new.py"));
  CHECK_FALSE(fs::exists(env.site() + "/alpha/old.py"));
  auto again = env.sync_lock(lockfile);
  REQUIRE(again.has_value());
  CHECK(again->plan.items[0].action == PlanAction::kKeep);
  SyncOptions options;
  options.reinstall = true;
  auto forced = env.sync_lock(lockfile, options);
  REQUIRE(forced.has_value());
  CHECK(forced->plan.items[0].action == PlanAction::kReinstall);
  CHECK(run(env.venv + "/bin/alpha-cli") == "alpha-cli ran 1.0\n");
}

TEST_CASE("sync: when two wheels install one path the later in plan order wins",
          "[install][sync]") {
  Env env;
  WheelSpec one;
  one.name = "one";
  one.version = "1.0";
  one.files = {{"shared/data.txt", "from one\n"}, {"one.py", "ONE = 1\n"}};
  one.entry_points = "[gui_scripts]\none-gui = one:main\n";
  WheelSpec two = one;
  two.name = "two";
  two.files = {{"shared/data.txt", "from two\n"}, {"two.py", "TWO = 2\n"}};
  two.entry_points.clear();
  auto report = env.sync_lock(lock_of({env.wheel(one), env.wheel(two)}));
  REQUIRE(report.has_value());
  std::ifstream shared(env.site() + "/shared/data.txt");
  std::string text((std::istreambuf_iterator<char>(shared)), {});
  CHECK(text == "from two\n");
  CHECK(fs::exists(env.venv + "/bin/one-gui"));  // gui_scripts get a launcher too
  CHECK(run(env.venv + "/bin/python -c 'import one, two; print(one.ONE + two.TWO)'") == "3\n");
}

TEST_CASE("sync: url wheels come from the network store in one batch", "[install][sync]") {
  Env env;
  lock::LockedFile local = env.wheel(alpha("1.0", true));
  lock::LockedFile remote = env.wheel(beta());
  const std::string cached = remote.path;  // where a verified cache would hold it
  remote.path.clear();
  remote.url = "https://files.example.org/" + remote.name;
  std::vector<std::string> asked;
  CallbackWheelStore network(
      [&](const lock::LockedFile& file) -> Result<std::string> {
        asked.push_back("one " + file.url);
        return cached;
      },
      [&](const std::vector<const lock::LockedFile*>& files) {
        std::vector<Result<std::string>> results;
        for (const lock::LockedFile* file : files) {
          asked.push_back("batch " + file->url);
          if (file->url.find("beta") == std::string::npos) {
            results.push_back(make_error(ErrorCode::kNetwork, "unexpected"));
          } else {
            results.push_back(cached);
          }
        }
        return results;
      });
  LocalWheelStore store("", &network);
  lock::Lockfile lockfile = lock_of({local, remote});
  for (lock::LockedPackage& package : lockfile.packages) {
    if (package.name == "beta"_pkg) package.index = "https://files.example.org/simple";
  }
  SyncOptions options;
  options.venv = env.venv;
  options.dry_run = true;
  auto plan = sync(options, lockfile, live_host(), store);
  REQUIRE(plan.has_value());
  CHECK(render_plan(plan->plan, true).find("  + beta 2.0 (beta-2.0-py3-none-any.whl, download)\n") !=
        std::string::npos);
  CHECK(asked.empty());  // a dry run fetches nothing

  SECTION("installed") {
    options.dry_run = false;
    auto report = sync(options, lockfile, live_host(), store);
    REQUIRE(report.has_value());
    CHECK(asked == std::vector<std::string>{"batch https://files.example.org/beta-2.0-py3-none-any.whl"});
    CHECK(fs::exists(env.site() + "/beta/core.py"));
    CHECK_FALSE(fs::exists(env.site() + "/beta-2.0.dist-info/direct_url.json"));  // index wheel
    CHECK(fs::exists(env.site() + "/alpha-1.0.dist-info/direct_url.json"));
  }
  SECTION("a failed download changes nothing") {
    CallbackWheelStore offline([](const lock::LockedFile& file) -> Result<std::string> {
      return make_error(ErrorCode::kNetwork, "offline: " + file.url + " is not cached");
    });
    LocalWheelStore offline_store("", &offline);
    options.dry_run = false;
    auto report = sync(options, lockfile, live_host(), offline_store);
    REQUIRE_FALSE(report.has_value());
    CHECK(report.error().code == ErrorCode::kNetwork);
    CHECK(tree_digest(env.venv).find("alpha") == std::string::npos);
  }
}

TEST_CASE("sync: a failure midway through the commit restores the environment",
          "[install][sync][safety]") {
  Env env;
  REQUIRE(env.sync_lock(lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())})).has_value());
  const std::string before = tree_digest(env.venv);
  lock::Lockfile upgrade = lock_of({env.wheel(alpha("2.0", false))});
  RealFileSystem real;
  SyncOptions options;

  SECTION("rolled back at once") {
    test::FaultyFileSystem faulty(real, 5);
    options.file_system = &faulty;
    auto report = env.sync_lock(upgrade, options);
    REQUIRE_FALSE(report.has_value());
    CHECK(report.error().message == "simulated failure after 5 renames");
    REQUIRE(report.error().notes.size() == 1);
    CHECK(report.error().notes[0].find("was restored to its state before the sync") !=
          std::string::npos);
    CHECK(tree_digest(env.venv) == before);
  }
  SECTION("left for the next sync, which rolls it back and says so") {
    test::FaultyFileSystem killed(real, 5, test::FaultyFileSystem::Mode::kKilled);
    options.file_system = &killed;
    REQUIRE_FALSE(env.sync_lock(upgrade, options).has_value());
    CHECK(fs::exists(env.venv + "/.wvlock-journal"));
    CHECK(tree_digest(env.venv) != before);
    auto repaired = repair_environment(real, env.venv);
    REQUIRE(repaired.has_value());
    CHECK(repaired->find("an interrupted sync left") == 0);
    CHECK(tree_digest(env.venv) == before);
    // And a sync after a killed one repairs, then syncs.
    test::FaultyFileSystem killed_again(real, 5, test::FaultyFileSystem::Mode::kKilled);
    options.file_system = &killed_again;
    REQUIRE_FALSE(env.sync_lock(upgrade, options).has_value());
    auto report = env.sync_lock(upgrade);
    REQUIRE(report.has_value());
    REQUIRE(report->notes.size() == 1);
    CHECK(report->notes[0].find("its changes were rolled back") != std::string::npos);
    CHECK(run(env.venv + "/bin/python -c 'import alpha.new; print(alpha.VALUE)'") == "2.0\n");
  }
}

/// The renames a commit makes: one per T (to the trash) and P (into place) entry of its journal.
int journal_moves(const std::string& journal) {
  int moves = 0;
  for (std::string_view line : split(journal, '\n')) {
    if (line.rfind("T ", 0) == 0 || line.rfind("P ", 0) == 0) ++moves;
  }
  return moves;
}

/// The journal a sync through `file_system` wrote into `venv`.
std::string written_journal(const test::FaultyFileSystem& file_system, const std::string& venv) {
  auto journal = file_system.written().find(venv + "/.wvlock-journal");
  REQUIRE(journal != file_system.written().end());
  return journal->second;
}

TEST_CASE("sync: a failed move at the first, a middle or the last rename restores the "
          "environment exactly", "[install][sync][safety]") {
  Env env;
  REQUIRE(env.sync_lock(lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())})).has_value());
  const std::string before = tree_digest(env.venv);
  // An upgrade that also removes beta: files go to the trash, new ones come in.
  lock::Lockfile upgrade = lock_of({env.wheel(alpha("2.0", false))});
  RealFileSystem real;
  // Fails the rename after the first `n`; returns the journal the commit wrote.
  auto fail_after = [&](int n) {
    INFO("the rename after " << n);
    test::FaultyFileSystem faulty(real, n);
    SyncOptions options;
    options.file_system = &faulty;
    auto report = env.sync_lock(upgrade, options);
    REQUIRE_FALSE(report.has_value());
    CHECK(report.error().message == str_cat("simulated failure after ", n, " renames"));
    REQUIRE_FALSE(report.error().notes.empty());
    CHECK(report.error().notes.back().find("was restored to its state before the sync") !=
          std::string::npos);
    CHECK(tree_digest(env.venv) == before);
    CHECK_FALSE(fs::exists(env.venv + "/.wvlock-journal"));
    return written_journal(faulty, env.venv);
  };
  const std::string journal = fail_after(0);
  const int moves = journal_moves(journal);
  REQUIRE(moves > 10);
  CHECK(fail_after(moves / 2) == journal);
  CHECK(fail_after(moves - 1) == journal);
  // With every one of the journal's renames allowed the sync goes through: `moves - 1` above
  // failed the last move.
  test::FaultyFileSystem exact(real, moves);
  SyncOptions options;
  options.file_system = &exact;
  REQUIRE(env.sync_lock(upgrade, options).has_value());
  CHECK(exact.renames() == moves);
  CHECK(run(env.venv + "/bin/python -c 'import alpha.new; print(alpha.VALUE)'") == "2.0\n");
  CHECK_FALSE(fs::exists(env.site() + "/beta"));
}

TEST_CASE("sync: a sync killed at the first, a middle or the last move leaves its journal, "
          "which the next sync rolls back", "[install][sync][safety]") {
  Env env;
  const lock::Lockfile old_lock = lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())});
  REQUIRE(env.sync_lock(old_lock).has_value());
  const std::string before = tree_digest(env.venv);
  lock::Lockfile upgrade = lock_of({env.wheel(alpha("2.0", false))});
  RealFileSystem real;
  SyncOptions options;
  test::FaultyFileSystem counting(real, 0);
  options.file_system = &counting;
  REQUIRE_FALSE(env.sync_lock(upgrade, options).has_value());
  const int moves = journal_moves(written_journal(counting, env.venv));
  REQUIRE(moves > 10);
  for (int n : {0, moves / 2, moves - 1}) {
    INFO("killed at the rename after " << n << " of " << moves);
    test::FaultyFileSystem killed(real, n, test::FaultyFileSystem::Mode::kKilled);
    options.file_system = &killed;
    auto report = env.sync_lock(upgrade, options);
    REQUIRE_FALSE(report.has_value());
    CHECK(report.error().message == str_cat("simulated failure after ", n, " renames"));
    REQUIRE_FALSE(report.error().notes.empty());
    CHECK(report.error().notes.back().find("rolling back failed too") != std::string::npos);
    CHECK(killed.renames() == n + 1);  // nothing moved after the kill
    CHECK(fs::exists(env.venv + "/.wvlock-journal"));
    // The next sync (of the old lock, so nothing else changes) rolls the journal back first.
    auto next = env.sync_lock(old_lock);
    REQUIRE(next.has_value());
    REQUIRE(next->notes.size() == 1);
    CHECK(next->notes[0].find("an interrupted sync left") == 0);
    CHECK(tree_digest(env.venv) == before);
  }
  REQUIRE(env.sync_lock(upgrade).has_value());
  CHECK(run(env.venv + "/bin/python -c 'import alpha.new; print(alpha.VALUE)'") == "2.0\n");
}

TEST_CASE("sync: a second sync on the same environment is refused", "[install][sync][safety]") {
  Env env;
  lock::Lockfile lockfile = lock_of({env.wheel(alpha("1.0", true))});
  REQUIRE(env.sync_lock(lockfile).has_value());
  const std::string before = tree_digest(env.venv);
  auto held = SyncLock::acquire(env.venv);  // as another process's sync would
  REQUIRE(held.has_value());
  auto report = env.sync_lock(lock_of({env.wheel(beta())}));
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().code == ErrorCode::kUnavailable);
  CHECK(report.error().message.find("another `wvlock sync` is changing") == 0);
  CHECK(tree_digest(env.venv) == before);
}

TEST_CASE("sync: --dry-run plans without creating or changing anything", "[install][sync]") {
  Env env;
  lock::Lockfile lockfile = lock_of({env.wheel(alpha("1.0", true)), env.wheel(beta())});
  SyncOptions options;
  options.dry_run = true;
  auto report = env.sync_lock(lockfile, options);
  REQUIRE(report.has_value());
  CHECK_FALSE(fs::exists(env.venv));
  std::string text = render_plan(report->plan, true);
  CHECK(text.find("would sync ") == 0);
  CHECK(text.find("  + alpha 1.0 (alpha-1.0-py3-none-any.whl)\n") != std::string::npos);
  CHECK(text.find("packages: 2 to install, 0 to upgrade, 0 to downgrade, 0 to reinstall, "
                  "0 to remove, 0 kept as they are\n") != std::string::npos);
}

TEST_CASE("unpack: RECORD parsing and member names", "[install][unpack]") {
  auto rows = parse_record("a.py,sha256=x,1\n\"b,c.py\",sha256=y,2\r\nd/RECORD,,\n", "RECORD");
  REQUIRE(rows.has_value());
  REQUIRE(rows->size() == 3);
  CHECK((*rows)[1].path == "b,c.py");
  CHECK((*rows)[2].hash.empty());
  auto bad = parse_record("a.py,sha256=x\n", "x/RECORD");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message == "x/RECORD:1: expected 3 fields (path, hash, size), found 2");
  CHECK_FALSE(parse_record("\"a.py,sha256=x,1\n", "RECORD").has_value());

  CHECK(check_member_name("pkg/mod.py").empty());
  CHECK(check_member_name("pkg/").empty());
  CHECK(check_member_name("../x") == "a `..` component");
  CHECK(check_member_name("a/../../x") == "a `..` component");
  CHECK(check_member_name("/etc/passwd") == "an absolute path");
  CHECK(check_member_name("C:/x") == "a drive letter");
  CHECK(check_member_name("a\\..\\x") == "a backslash");
  CHECK(check_member_name(std::string("a\0b", 3)) == "a control character");
  CHECK(check_member_name("a//b") == "an empty or `.` component");
}


TEST_CASE("sync: an older version is a downgrade, a distribution the lock does not name is kept "
          "with inexact", "[install][sync][plan]") {
  Env env;
  REQUIRE(env.sync_lock(lock_of({env.wheel(alpha("2.0", false)), env.wheel(beta())})).has_value());
  SyncOptions options;
  options.inexact = true;
  auto report = env.sync_lock(lock_of({env.wheel(alpha("1.0", true))}), options);
  REQUIRE(report.has_value());
  CHECK(report->plan.count(PlanAction::kDowngrade) == 1);
  CHECK(report->plan.count(PlanAction::kUpgrade) == 0);
  CHECK(report->plan.count(PlanAction::kRemove) == 0);
  CHECK(report->plan.count_unlisted() == 1);
  const std::string text = render_plan(report->plan, false);
  CHECK(text.find("  ~ alpha 2.0 -> 1.0 (downgrade, alpha-1.0-py3-none-any.whl)\n") !=
        std::string::npos);
  CHECK(text.find("  = beta 2.0 (not in the lock; kept: --inexact)\n") != std::string::npos);
  CHECK(text.find("0 upgraded, 1 downgraded, 0 reinstalled, 0 removed, 1 kept as they are (1 not in "
                  "the lock: --inexact)\n") != std::string::npos);
  CHECK(fs::exists(env.site() + "/alpha/old.py"));
  CHECK(run(env.venv + "/bin/python -c 'import beta; print(beta.answer())'") == "7\n");
}

TEST_CASE("sync: a new environment is removed again when its sync fails", "[install][sync]") {
  Env env;
  lock::LockedFile file = env.wheel(alpha("1.0", true));
  lock::Lockfile lockfile = lock_of({file});
  fs::remove(file.path);  // selection and planning pass; fetching fails once the venv exists
  auto report = env.sync_lock(lockfile);
  REQUIRE_FALSE(report.has_value());
  INFO(report.error().to_string());
  CHECK(report.error().to_string().find("the new environment `") != std::string::npos);
  CHECK_FALSE(fs::exists(env.venv));
}

TEST_CASE("sync: a venv that does not meet --python is recreated, and kept when that fails",
          "[install][sync][python]") {
  Env env;
  lock::Lockfile good = lock_of({env.wheel(alpha("1.0", true))});
  REQUIRE(env.sync_lock(good).has_value());
  Result<InterpreterFacts> base = read_interpreter(env.venv);
  REQUIRE(base.has_value());
  // The venv's python reports another version: the machine may have one Python only, so the
  // "other" interpreter is a wrapper around the same one.
  const std::string python = env.venv + "/bin/python";
  fs::remove(python);
  std::ofstream(python) << "#!/bin/sh\n'" << base->base_executable
                        << "' \"$@\" | sed -e 's/^version=.*/version=3.1.0/'\n";
  fs::permissions(python, fs::perms::owner_all);
  std::ofstream(env.venv + "/marker") << "old\n";
  SyncOptions options;
  options.python = base->base_executable;
  auto request = parse_python_request(base->full_version);
  REQUIRE(request.has_value());
  options.python_request = *request;

  lock::LockedFile missing = env.wheel(beta());
  lock::Lockfile broken = lock_of({missing});
  fs::remove(missing.path);
  auto failed = env.sync_lock(broken, options);
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().to_string().find("is as it was before the sync") != std::string::npos);
  CHECK(fs::exists(env.venv + "/marker"));
  std::ifstream wrapper(python);
  CHECK(std::string(std::istreambuf_iterator<char>(wrapper), {}).find("version=3.1.0") !=
        std::string::npos);
  for (const auto& entry : fs::directory_iterator(fs::path(env.venv).parent_path())) {
    CHECK(entry.path().filename().string().find(".wvlock-swap") == std::string::npos);
  }

  auto recreated = env.sync_lock(good, options);
  REQUIRE(recreated.has_value());
  CHECK(recreated->recreated_environment);
  CHECK(recreated->plan.environment_reason.find("replacing Python 3.1.0") != std::string::npos);
  CHECK(recreated->plan.count(PlanAction::kInstall) == 1);
  CHECK_FALSE(fs::exists(env.venv + "/marker"));
  CHECK(run(env.venv + "/bin/alpha-cli") == "alpha-cli ran 1.0\n");
  // It meets the request now: kept.
  auto kept = env.sync_lock(good, options);
  REQUIRE(kept.has_value());
  CHECK_FALSE(kept->recreated_environment);
  CHECK(kept->plan.count(PlanAction::kKeep) == 1);
}

TEST_CASE("sync: --python requests", "[install][python]") {
  auto plain = parse_python_request("3.12");
  REQUIRE(plain.has_value());
  CHECK(plain->version == std::vector<int>{3, 12});
  CHECK(plain->executable.empty());
  CHECK_FALSE(plain->cpython_only);
  for (const char* text : {"python3.12", "cpython3.12", "cpython@3.12", "cpython-3.12"}) {
    auto request = parse_python_request(text);
    REQUIRE(request.has_value());
    CHECK(request->version == std::vector<int>{3, 12});
    CHECK(request->cpython_only == (std::string(text).rfind("cpython", 0) == 0));
  }
  auto patch = parse_python_request("3.11.4");
  REQUIRE(patch.has_value());
  CHECK(patch->version == std::vector<int>{3, 11, 4});
  auto path = parse_python_request("/opt/py/bin/python3");
  REQUIRE(path.has_value());
  CHECK(path->executable == "/opt/py/bin/python3");
  CHECK_FALSE(parse_python_request("").has_value());

  InterpreterFacts facts;
  facts.full_version = "3.12.4";
  facts.markers.implementation_name = "cpython";
  CHECK(satisfies(facts, *plain));
  CHECK_FALSE(satisfies(facts, *patch));
  facts.full_version = "3.11.4";
  CHECK(satisfies(facts, *patch));
  CHECK_FALSE(satisfies(facts, *plain));
  CHECK_FALSE(satisfies(facts, *path));
}

TEST_CASE("sync: find_python asks each candidate and takes the first that matches",
          "[install][python]") {
  test::TempDir dir;
  auto real = read_interpreter(".", "python3");
  REQUIRE(real.has_value());
  // Two folders on PATH: the first has a python3 that is not the asked version, the second a
  // python<M.m> that is (the real interpreter).
  const std::string minor = std::to_string(real->version.major) + "." +
                            std::to_string(real->version.minor);
  const std::string first = dir.file("first");
  const std::string second = dir.file("second");
  fs::create_directories(first);
  fs::create_directories(second);
  std::ofstream(first + "/python3") << "#!/bin/sh\n'" << real->base_executable
                                    << "' \"$@\" | sed -e 's/^version=.*/version=2.7.0/'\n";
  fs::permissions(first + "/python3", fs::perms::owner_all);
  fs::create_symlink(real->base_executable, second + "/python" + minor);
  auto request = parse_python_request(minor);
  REQUIRE(request.has_value());
  PythonSearch search{first + ":" + second, ""};
  auto found = find_python(*request, search);
  REQUIRE(found.has_value());
  CHECK(*found == second + "/python" + minor);
  auto none = find_python(*parse_python_request("3.1"), PythonSearch{first, ""});
  REQUIRE_FALSE(none.has_value());
  INFO(none.error().to_string());
  CHECK(none.error().to_string().find(first + "/python3 is cpython 2.7.0") != std::string::npos);
}

}  // namespace wv::install
