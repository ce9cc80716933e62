// Several Pythons per target, end to end: `python = ["3.11", "3.12"]` locks one target per
// (target, Python) pair (`cpu-py3.11`, `cpu-py3.12`, docs/lockfile.md "Several Pythons"); the
// environment's interpreter picks the pair (a real venv of the test interpreter; the other pair
// through WVLOCK_OVERRIDE_PYTHON), also for `--target cpu`; `.python-version` and
// `.python-versions` are read as uv reads them; without either the lowest interpreter found that
// requires-python admits is locked for; bad values name file, line and column; packaging's
// pylock reader reads the two-Python lock and selects from it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"
#include "tests/support/skip.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::shell;

using wv::test::kNoGpu;

// One CPU target; `python_line` is `[tool.wvlock]`'s python line ("" for none).
std::string project(const std::string& python_line,
                    const std::string& requires_python = ">=3.10") {
  return "[project]\nname = \"pairs\"\nversion = \"0.1.0\"\nrequires-python = \"" +
         requires_python + "\"\ndependencies = [\"idna>=3.10\"]\n\n"
         "[tool.wvlock]\n" + python_line + "index-url = \"../generated/simple\"\n"
         "\n[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
}

// The lock's `[[tool.wvlock.target]]` names, in order.
std::vector<std::string> locked_targets(const std::string& lockfile) {
  std::vector<std::string> names;
  const std::string header = "[[tool.wvlock.target]]\nname = \"";
  for (std::size_t at = lockfile.find(header); at != std::string::npos;
       at = lockfile.find(header, at + 1)) {
    const std::size_t start = at + header.size();
    names.push_back(lockfile.substr(start, lockfile.find('"', start) - start));
  }
  return names;
}

// A folder holding `python<minor>`: the test interpreter reporting another version to whoever
// asks it (wvlock's one question prints `key=value` lines), as in sync_flags_test.cc.
void fake_python(const std::string& folder, const std::string& minor) {
  fs::create_directories(folder);
  const std::string path = folder + "/python" + minor;
  std::ofstream(path) << "#!/bin/sh\n'" WV_TEST_PYTHON "' \"$@\" | sed -e 's/^version=.*/version="
                      << minor << ".0/' -e 's/^python_version=.*/python_version=" << minor
                      << "/' -e 's/^python_full_version=.*/python_full_version=" << minor
                      << ".0/' -e 's|^base_executable=.*|base_executable=" << path << "|'\n";
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

std::string python_fact(const std::string& lockfile) {
  const std::string key = "\npython = \"";
  const std::size_t at = lockfile.find(key);
  if (at == std::string::npos) return "";
  const std::size_t start = at + key.size();
  return lockfile.substr(start, lockfile.find('"', start) - start);
}

}  // namespace

TEST_CASE("cli python pairs: two Pythons lock two pairs, the interpreter picks one",
          "[cli][python_pairs]") {
  const std::string minor = wv::test::test_python_minor();
  REQUIRE(minor == "3.11");  // Debian 12's /usr/bin/python3.11, here and on CI
  wv::test::ProjectCopy copy("pairs", project("python = [\"3.11\", \"3.12\"]\n"));
  Run lock = copy.wvlock("", "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string lockfile = copy.lockfile();
  CHECK(locked_targets(lockfile) == std::vector<std::string>{"cpu-py3.11", "cpu-py3.12"});
  CHECK(lockfile.find("name = \"cpu-py3.12\"\ndeclared-name = \"cpu\"\n") != std::string::npos);
  // Each pair's platform marker names its Python, so a standard reader tells them apart.
  CHECK(lockfile.find("python_version == \\\"3.11\\\"") != std::string::npos);
  CHECK(lockfile.find("python_version == \\\"3.12\\\"") != std::string::npos);
  CHECK(lockfile.find("[packages.tool.wvlock.targets.\"cpu-py3.11\"]") != std::string::npos);
  CHECK(lockfile.find("[packages.tool.wvlock.targets.\"cpu-py3.12\"]") != std::string::npos);
  CHECK((lock.out + lock.err).find("cpu-py3.12:") != std::string::npos);  // the lock's report

  SECTION("targets: the interpreter's Python, or an overriding one, picks the pair") {
    Run here = copy.wvlock(kNoGpu, "targets --json --python '" WV_TEST_PYTHON "'");
    INFO(here.err);
    REQUIRE(here.status == 0);
    nlohmann::json document = nlohmann::json::parse(here.out);
    CHECK(document["selected"] == "cpu-py3.11");
    REQUIRE(document["targets"].size() == 2);
    CHECK(document["targets"][0]["python"] == "3.11");
    CHECK(document["targets"][0]["declared_name"] == "cpu");
    CHECK(document["targets"][1]["status"] == "does-not-fit");
    CHECK(document["targets"][1]["reasons"][0] ==
          "the environment has Python 3.11, the target is for Python 3.12");

    Run other = copy.wvlock(kNoGpu + "WVLOCK_OVERRIDE_PYTHON=3.12",
                            "targets --json --python '" WV_TEST_PYTHON "'");
    INFO(other.err);
    REQUIRE(other.status == 0);
    document = nlohmann::json::parse(other.out);
    CHECK(document["selected"] == "cpu-py3.12");
    CHECK(document["targets"][1]["python"] == "3.12");

    // `--target cpu`: the declared name; the Python picks the pair.
    Run forced = copy.wvlock(kNoGpu + "WVLOCK_OVERRIDE_PYTHON=3.12",
                             "targets --json --target cpu --python '" WV_TEST_PYTHON "'");
    REQUIRE(forced.status == 0);
    CHECK(nlohmann::json::parse(forced.out)["selected"] == "cpu-py3.12");
    Run exact = copy.wvlock(kNoGpu, "targets --json --target cpu-py3.11");
    REQUIRE(exact.status == 0);
    CHECK(nlohmann::json::parse(exact.out)["selected"] == "cpu-py3.11");
  }

  SECTION("sync: a real venv of the test interpreter gets the 3.11 pair") {
    Run made = shell(copy.dir, "'" WV_TEST_PYTHON "' -m venv --without-pip .venv");
    REQUIRE(made.status == 0);
    Run sync = copy.wvlock(kNoGpu, "sync --json --target cpu");
    INFO(sync.err);
    REQUIRE(sync.status == 0);
    CHECK(nlohmann::json::parse(sync.out)["target"]["name"] == "cpu-py3.11");
    CHECK(copy.python(copy.dir + "/.venv", "import idna; print(idna.__name__)") == "idna\n");
    Run plain = copy.wvlock(kNoGpu, "sync --json");
    REQUIRE(plain.status == 0);
    CHECK(nlohmann::json::parse(plain.out)["target"]["name"] == "cpu-py3.11");
  }

  SECTION("without --python, .python-version names the interpreter a new venv gets") {
    const std::string fake = copy.tmp.path() + "/fake";
    fake_python(fake, "3.12");
    std::ofstream(copy.dir + "/.python-version") << "3.12\n";
    Run judged = copy.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"", "targets --json");
    INFO(judged.err);
    REQUIRE(judged.status == 0);
    CHECK(nlohmann::json::parse(judged.out)["selected"] == "cpu-py3.12");
    // `--python` wins over the file.
    Run flag = copy.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"",
                           "targets --json --python '" WV_TEST_PYTHON "'");
    REQUIRE(flag.status == 0);
    CHECK(nlohmann::json::parse(flag.out)["selected"] == "cpu-py3.11");
  }

  SECTION("--target cpu with an interpreter no pair is for") {
    const std::string fake = copy.tmp.path() + "/fake";
    fake_python(fake, "3.13");
    Run refused = copy.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"",
                              "sync --dry-run --target cpu --python 3.13");
    CHECK(refused.status == 2);
    CHECK(refused.err.find("`--target cpu`: the lock has it for other Pythons (`cpu-py3.11`, "
                           "`cpu-py3.12`), and the environment has Python 3.13") !=
          std::string::npos);
  }
}

TEST_CASE("cli python pairs: .python-version and .python-versions are read as uv reads them",
          "[cli][python_pairs]") {
  wv::test::ProjectCopy copy("pairs", project(""));
  SECTION(".python-version: its first version; a patch is dropped") {
    std::ofstream(copy.dir + "/.python-version") << "# the team's Python\n\n3.11.4\n3.12\n";
    Run lock = copy.wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    CHECK(locked_targets(copy.lockfile()) == std::vector<std::string>{"cpu"});
    CHECK(python_fact(copy.lockfile()) == "3.11");
  }
  SECTION("cpython@3.12") {
    std::ofstream(copy.dir + "/.python-version") << "cpython@3.12\n";
    Run lock = copy.wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    CHECK(python_fact(copy.lockfile()) == "3.12");
  }
  SECTION(".python-versions: every version, one pair each") {
    std::ofstream(copy.dir + "/.python-versions") << "3.11\n3.12\n";
    Run lock = copy.wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    CHECK(locked_targets(copy.lockfile()) == std::vector<std::string>{"cpu-py3.11", "cpu-py3.12"});
  }
  SECTION("a declared python wins over .python-version") {
    wv::test::ProjectCopy declared("pairs", project("python = \"3.12\"\n"));
    std::ofstream(declared.dir + "/.python-version") << "3.11\n";
    REQUIRE(declared.wvlock("", "lock").status == 0);
    CHECK(python_fact(declared.lockfile()) == "3.12");
  }
  SECTION("changing .python-version makes the lock stale") {
    std::ofstream(copy.dir + "/.python-version") << "3.11\n";
    REQUIRE(copy.wvlock("", "lock").status == 0);
    CHECK(copy.wvlock("", "lock --check").status == 0);
    std::ofstream(copy.dir + "/.python-version") << "3.12\n";
    CHECK(copy.wvlock("", "lock --check").status == 1);
  }
  SECTION("bad values: file, line and column") {
    std::ofstream(copy.dir + "/.python-version") << "# comment\n  pypy@3.10\n";
    Run lock = copy.wvlock("", "lock");
    CHECK(lock.status == 2);
    CHECK(lock.err.find("`.python-version`:2:3: `pypy@3.10` is not a CPython 3 version wvlock "
                        "can lock for") != std::string::npos);
    std::ofstream(copy.dir + "/.python-version") << "3\n";
    lock = copy.wvlock("", "lock");
    CHECK(lock.status == 2);
    CHECK(lock.err.find("`.python-version`:1:1: `3` is not") != std::string::npos);
    std::ofstream(copy.dir + "/.python-version") << "# nothing\n";
    lock = copy.wvlock("", "lock");
    CHECK(lock.status == 2);
    CHECK(lock.err.find("`.python-version`: names no Python version") != std::string::npos);
  }
}

TEST_CASE("cli python pairs: without python, the lowest interpreter requires-python admits",
          "[cli][python_pairs]") {
  // Interpreters 3.10 and 3.12 (fakes) beside the real 3.11; HOME empty of pyenv and uv ones.
  auto lock_with = [](const std::string& requires_python) {
    wv::test::ProjectCopy copy("pairs", project("", requires_python));
    const std::string fake = copy.tmp.path() + "/fake";
    fake_python(fake, "3.10");
    fake_python(fake, "3.12");
    Run lock = copy.wvlock("HOME='" + copy.tmp.path() + "' PATH='" + fake + "':/usr/bin:/bin",
                           "lock");
    INFO(lock.err);
    std::pair<int, std::string> out{lock.status, lock.status == 0 ? python_fact(copy.lockfile())
                                                                  : lock.err};
    return out;
  };
  CHECK(lock_with(">=3.10") == std::pair<int, std::string>{0, "3.10"});
  CHECK(lock_with(">=3.11") == std::pair<int, std::string>{0, "3.11"});
  CHECK(lock_with(">=3.11.2") == std::pair<int, std::string>{0, "3.12"});  // as the lock checks: 3.11.0
  CHECK(lock_with(">=3.12,<3.13") == std::pair<int, std::string>{0, "3.12"});
  auto [status, err] = lock_with(">=3.14");
  CHECK(status == 2);
  CHECK(err.find("no target sets `python`, there is no `.python-version`, and no interpreter "
                 "found on PATH or in the usual places satisfies requires-python `>=3.14`") !=
        std::string::npos);
}

TEST_CASE("cli python pairs: packaging's pylock reader reads a two-Python lock",
          "[cli][python_pairs][pylock]") {
  const fs::path oracle = WV_SOURCE_DIR "/../shared/oracles/packaging-26.4";
  std::error_code error;
  if (!fs::exists(oracle / "packaging" / "pylock.py", error)) {
    WV_SKIP("packaging 26.4 not found at " WV_SOURCE_DIR "/../shared/oracles");
  }
  wv::test::ProjectCopy copy("pairs", project("python = [\"3.11\", \"3.12\"]\n"));
  REQUIRE(copy.wvlock("", "lock").status == 0);
  // Pylock.from_dict() validates the file; select() for each Python's marker environment.
  std::ofstream(copy.dir + "/check.py") << R"(import sys, tomllib
from packaging.pylock import Pylock
from packaging.tags import Tag
lock = Pylock.from_dict(tomllib.load(open("pylock.toml", "rb")))
for py in ("3.11", "3.12"):
    env = {"implementation_name": "cpython", "implementation_version": py + ".0",
           "os_name": "posix", "platform_machine": "x86_64",
           "platform_python_implementation": "CPython", "platform_release": "",
           "platform_system": "Linux", "platform_version": "",
           "python_full_version": py + ".0", "python_version": py, "sys_platform": "linux"}
    picked = lock.select(environment=env, tags=[Tag("py3", "none", "any")])
    print(py, " ".join(sorted(p.name + "==" + str(p.version) for p, _ in picked)))
)";
  Run run = shell(copy.dir, "PYTHONPATH='" + fs::canonical(oracle, error).string() + "' '" WV_TEST_PYTHON
                            "' check.py");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out == "3.11 idna==3.11\n3.12 idna==3.11\n");
}
