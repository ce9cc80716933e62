// `wvlock run` end to end in real venvs over the fixture ecosystem: argv, environment and exit
// code pass through; everything after CMD is CMD's (global flags too); sync's plan goes to
// stderr; a missing or stale lock is locked first, `--locked` refuses it and `--frozen` installs
// it as it is; PEP 723 scripts get an environment of their own, reused while their metadata is
// unchanged; the public index is the default, and the index flags override it.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::kNoGpu;
using wv::test::Run;
using wv::test::slurp;
using wv::test::write_text;

// One target for this host, the fixture index as the default; `dependencies` as given.
std::string project(const std::string& dependencies = "\"colorama>=0.4\"",
                    const std::string& index = "index-url = \"../generated/simple\"\n") {
  return "[project]\nname = \"runner\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [" + dependencies + "]\n\n"
         "[tool.wvlock]\npython = \"" + wv::test::test_python_minor() + "\"\n" + index +
         "\n[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
}

struct Runner : wv::test::ProjectCopy {
  explicit Runner(const std::string& pyproject = project()) : ProjectCopy("runner", pyproject) {}
  Run run(const std::string& arguments, const std::string& environment = "") const {
    return wvlock(kNoGpu + environment, "run " + arguments);
  }
  void set_dependencies(const std::string& dependencies) const {
    write_text(dir + "/pyproject.toml", project(dependencies));
  }
};

}  // namespace

TEST_CASE("cli run: argv, environment and exit code pass through", "[cli][run]") {
  Runner runner;
  // No lock yet: run locks, syncs, then runs; stdout is the command's alone.
  Run first = runner.run("python -c 'import colorama, sys; print(sys.argv[1:])' a 'b c'");
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK(first.out == "['a', 'b c']\n");
  CHECK(fs::exists(runner.dir + "/pylock.toml"));
  CHECK(first.err.find("wrote ") != std::string::npos);
  CHECK(first.err.find("+ colorama") != std::string::npos);  // the plan, on stderr

  SECTION("the environment: bin first on PATH, VIRTUAL_ENV, no PYTHONHOME") {
    Run env = runner.run(
        "python -c 'import os, sys; print(sys.prefix); print(os.environ[\"VIRTUAL_ENV\"]); "
        "print(os.environ[\"PATH\"].split(\":\")[0]); print(os.environ.get(\"PYTHONHOME\"))'",
        "PYTHONHOME=/nowhere ");
    INFO(env.err);
    REQUIRE(env.status == 0);
    const std::string venv = fs::canonical(runner.dir + "/.venv").string();
    CHECK(env.out == venv + "\n" + venv + "\n" + venv + "/bin\nNone\n");
  }
  SECTION("the exit code is the command's") {
    CHECK(runner.run("python -c 'import sys; sys.exit(7)'").status == 7);
    CHECK(runner.run("false").status == 1);
    CHECK(runner.run("true").status == 0);
  }
  SECTION("everything after CMD is CMD's, global options included") {
    Run flags = runner.run("python -c 'import sys; print(sys.argv[1:])' -q --offline --project x");
    INFO(flags.err);
    REQUIRE(flags.status == 0);
    CHECK(flags.out == "['-q', '--offline', '--project', 'x']\n");
    Run dashed = runner.run("-- echo --offline -v --help");
    REQUIRE(dashed.status == 0);
    CHECK(dashed.out == "--offline -v --help\n");
    // Options before CMD are run's: a sync option with its value, a global one.
    Run before = runner.run("--target cpu -q echo hi");
    REQUIRE(before.status == 0);
    CHECK(before.out == "hi\n");
    CHECK(before.err.empty());
  }
  SECTION("a .py file runs with the environment's Python") {
    write_text(runner.dir + "/probe.py", "import sys, colorama\nprint(sys.prefix, sys.argv[1:])\n");
    Run script = runner.run("probe.py --x");
    INFO(script.err);
    REQUIRE(script.status == 0);
    CHECK(script.out == fs::canonical(runner.dir + "/.venv").string() + " ['--x']\n");
  }
  SECTION("a missing command, and one that cannot be started: exit 2") {
    Run none = runner.run("");
    CHECK(none.status == 2);
    CHECK(none.err.find("needs a command to run") != std::string::npos);
    Run absent = runner.run("no-such-command-here arg");
    CHECK(absent.status == 2);
    CHECK(absent.err.find("failed to spawn `no-such-command-here`") != std::string::npos);
  }
  SECTION("--no-sync: no lock, no sync") {
    runner.set_dependencies("\"colorama>=0.4\", \"pysocks>=1.7\"");
    const std::string lock = runner.lockfile();
    Run plain = runner.run("--no-sync python -c 'import socks'");
    CHECK(plain.status == 1);  // not installed: the sync did not run
    CHECK(runner.lockfile() == lock);
    Run synced = runner.run("python -c 'import socks'");
    INFO(synced.err);
    CHECK(synced.status == 0);
  }
}

TEST_CASE("cli sync: a stale or missing lock is locked; --locked refuses, --frozen installs it",
          "[cli][run][sync]") {
  Runner runner;
  REQUIRE(runner.wvlock(kNoGpu, "sync").status == 0);
  const std::string before = runner.lockfile();
  runner.set_dependencies("\"colorama>=0.4\", \"pysocks>=1.7\"");

  SECTION("--locked: exit 1, nothing written or installed") {
    Run locked = runner.wvlock(kNoGpu, "sync --locked");
    CHECK(locked.status == 1);
    CHECK(locked.err.find("is stale") != std::string::npos);
    CHECK(runner.lockfile() == before);
    CHECK(runner.python(runner.dir + "/.venv", "import importlib.util as u; print(u.find_spec('socks'))") ==
          "None\n");
  }
  SECTION("--frozen: the lock as it is") {
    Run frozen = runner.wvlock(kNoGpu, "sync --frozen");
    CHECK(frozen.status == 0);
    CHECK(runner.lockfile() == before);
  }
  SECTION("plain sync: re-locks, listing the changes as lock does, then installs") {
    Run sync = runner.wvlock(kNoGpu, "sync");
    INFO(sync.err);
    REQUIRE(sync.status == 0);
    CHECK(sync.err.find("Added pysocks") != std::string::npos);
    CHECK(sync.out.find("+ pysocks") != std::string::npos);
    CHECK(runner.lockfile() != before);
    CHECK(runner.wvlock("", "lock --check").status == 0);
  }
  SECTION("no lock: sync locks, --locked and --frozen refuse") {
    fs::remove(runner.dir + "/pylock.toml");
    Run locked = runner.wvlock(kNoGpu, "sync --locked");
    CHECK(locked.status == 1);
    CHECK(locked.err.find("does not exist") != std::string::npos);
    Run frozen = runner.wvlock(kNoGpu, "sync --frozen");
    CHECK(frozen.status != 0);
    CHECK(frozen.err.find("does not exist") != std::string::npos);
    CHECK_FALSE(fs::exists(runner.dir + "/pylock.toml"));
    Run both = runner.wvlock(kNoGpu, "sync --locked --frozen");
    CHECK(both.status == 2);
    REQUIRE(runner.wvlock(kNoGpu, "sync").status == 0);
    CHECK(fs::exists(runner.dir + "/pylock.toml"));
  }
  SECTION("run --locked refuses too") {
    Run run = runner.run("--locked true");
    CHECK(run.status == 1);
    CHECK(run.err.find("is stale") != std::string::npos);
  }
}

TEST_CASE("cli sync: offline, a stale lock the cache cannot re-lock is a clear error",
          "[cli][run][sync][index]") {
  // No index declared: the public index is the default; it is not in the (empty) cache.
  Runner runner(project("\"colorama>=0.4\"", ""));
  Run sync = runner.wvlock(kNoGpu, "--offline sync");
  CHECK(sync.status == 3);
  CHECK(sync.err.find("https://pypi.org/simple/colorama/") != std::string::npos);
  CHECK(sync.err.find("offline") != std::string::npos);
  CHECK(sync.err.find("--frozen") != std::string::npos);
  CHECK(sync.err.find("searched nothing") == std::string::npos);
}

TEST_CASE("cli lock: the public index by default, and the index flags", "[cli][run][index]") {
  const std::string fixture_index = "../generated/simple";
  Runner runner(project("\"colorama>=0.4\"", ""));
  SECTION("offline, the default is named in the error") {
    Run lock = runner.wvlock("", "--offline lock");
    CHECK(lock.status == 3);
    CHECK(lock.err.find("`https://pypi.org/simple/colorama/`") != std::string::npos);
  }
  SECTION("--default-index replaces it; the lock records the index used") {
    Run lock = runner.wvlock("", "--offline lock --default-index " + fixture_index);
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    CHECK(runner.lockfile().find("index = \"../generated/simple\"") != std::string::npos);
    CHECK(runner.lockfile().find("pypi.org") == std::string::npos);
  }
  SECTION("WVLOCK_DEFAULT_INDEX, and the flag wins over it") {
    Run lock = runner.wvlock("WVLOCK_DEFAULT_INDEX=" + fixture_index, "--offline lock");
    INFO(lock.err);
    CHECK(lock.status == 0);
    Run flag = runner.wvlock("WVLOCK_DEFAULT_INDEX=" + fixture_index,
                             "--offline lock --default-index http://127.0.0.1:9/simple");
    CHECK(flag.status == 3);
    CHECK(flag.err.find("127.0.0.1:9") != std::string::npos);
  }
  SECTION("--index NAME=URL is asked before the default; WVLOCK_INDEX too") {
    Run lock = runner.wvlock("", "--offline lock --index fixture=" + fixture_index);
    INFO(lock.err);
    CHECK(lock.status == 0);
    fs::remove(runner.dir + "/pylock.toml");
    Run env = runner.wvlock("WVLOCK_INDEX='other=http://127.0.0.1:9/x fixture=" + fixture_index + "'",
                            "--offline lock");
    // The first index in the list is asked first: the unreachable one fails the lock.
    CHECK(env.status == 3);
    CHECK(env.err.find("127.0.0.1:9") != std::string::npos);
    Run bad = runner.wvlock("", "lock --index '=x'");
    CHECK(bad.status == 2);
  }
  SECTION("--no-index: only find-links") {
    Runner flat(project("\"colorama>=0.4\"",
                        "find-links = [\"../generated/find-links\"]\nindex-url = \"http://127.0.0.1:9/simple\"\n"));
    Run lock = flat.wvlock("", "lock --no-index");
    INFO(lock.err);
    CHECK(lock.status == 0);
    CHECK(flat.lockfile().find("127.0.0.1") == std::string::npos);
  }
  SECTION("a declared default index keeps the public one out") {
    Runner declared;
    REQUIRE(declared.wvlock("", "--offline lock").status == 0);
    CHECK(declared.lockfile().find("pypi.org") == std::string::npos);
  }
  SECTION("offline, local sources still lock with the public default uncached") {
    Runner flat(project("\"colorama>=0.4\"", "find-links = [\"../generated/find-links\"]\n"));
    Run lock = flat.wvlock("", "--offline lock");
    INFO(lock.err);
    CHECK(lock.status == 0);
  }
}

// A script that needs pysocks and says whether the project's colorama is there too.
const std::string kScript =
    "# /// script\n"
    "# requires-python = \">=3.10\"\n"
    "# dependencies = [\"pysocks>=1.7\"]\n"
    "# ///\n"
    "import sys, socks\n"
    "print(sys.prefix)\n"
    "try:\n    import colorama\n    print('colorama')\nexcept ImportError:\n    print('alone')\n";

TEST_CASE("cli run: a PEP 723 script gets its own environment, reused while unchanged",
          "[cli][run][script]") {
  Runner runner;
  write_text(runner.dir + "/tool.py", kScript);
  Run first = runner.run("tool.py");
  INFO(first.err);
  REQUIRE(first.status == 0);
  // Its own environment under the cache, without the project's dependencies.
  const std::string prefix = first.out.substr(0, first.out.find('\n'));
  CHECK(prefix.find("/cache/environments-v1/") != std::string::npos);
  CHECK(first.out.substr(first.out.find('\n') + 1) == "alone\n");
  CHECK(first.err.find("preparing the environment of tool.py") != std::string::npos);
  CHECK_FALSE(fs::exists(runner.dir + "/.venv"));  // the project was not synced

  // Unchanged: no resolution, no install — it runs with the indexes gone.
  fs::rename(runner.tmp.path() + "/generated", runner.tmp.path() + "/generated-away");
  const auto started = std::chrono::steady_clock::now();
  Run again = runner.run("tool.py");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  INFO(again.err);
  REQUIRE(again.status == 0);
  CHECK(again.out == first.out);
  CHECK(again.err.empty());
  CHECK(elapsed < std::chrono::seconds(5));

  // Changed metadata: another environment, resolved again.
  fs::rename(runner.tmp.path() + "/generated-away", runner.tmp.path() + "/generated");
  write_text(runner.dir + "/tool.py",
             std::regex_replace(kScript, std::regex("\"pysocks>=1.7\""), "\"pysocks>=1.7\", \"colorama\""));
  Run changed = runner.run("tool.py");
  INFO(changed.err);
  REQUIRE(changed.status == 0);
  CHECK(changed.out.substr(0, changed.out.find('\n')) != prefix);
  CHECK(changed.out.substr(changed.out.find('\n') + 1) == "colorama\n");
}

TEST_CASE("cli run: a PEP 723 script outside a project takes the index flags",
          "[cli][run][script]") {
  Runner runner;  // for the fixture index beside it
  wv::test::TempDir alone;
  write_text(alone.path() + "/tool.py", kScript);
  Run run = wv::test::shell(alone.path(), "WVLOCK_CACHE_DIR='" + alone.path() + "/cache' " + kNoGpu +
                                              "'" WVLOCK_BINARY "' run --default-index '" +
                                              runner.tmp.path() + "/generated/simple' tool.py");
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(run.out.find("alone") != std::string::npos);
  // Without the flag the default is the public index: offline and uncached, named.
  Run offline = wv::test::shell(alone.path(), "WVLOCK_CACHE_DIR='" + alone.path() + "/cache' " +
                                                  kNoGpu + "'" WVLOCK_BINARY "' --offline run tool.py");
  CHECK(offline.status == 3);
  CHECK(offline.err.find("https://pypi.org/simple/pysocks/") != std::string::npos);
}

TEST_CASE("cli run: bad inline metadata is an error naming the script", "[cli][run][script]") {
  Runner runner;
  write_text(runner.dir + "/bad.py", "# /// script\n# dependencies = [\n");
  Run bad = runner.run("bad.py");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("`bad.py`") != std::string::npos);
  CHECK(bad.err.find("never closed") != std::string::npos);
}
