// A local git repository is one repository in the git cache however a path reaches it: a lock
// run inside the project and a sync run from its parent with a relative `--project` (the lock's
// `../tool` then reads as `app/../tool`) share the cache, so an offline sync finds the commit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;

TEST_CASE("relative --project: an offline sync of a local git source finds the git cache",
          "[cli][sources][build][git]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir tmp;
  fs::create_directories(tmp.path() + "/wheels");
  for (const auto& entry : fs::directory_iterator("/usr/share/python-wheels")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.rfind("setuptools-", 0) == 0 || leaf.rfind("wheel-", 0) == 0) {
      fs::copy_file(entry.path(), tmp.path() + "/wheels/" + leaf);
    }
  }
  const std::string repo = tmp.path() + "/tool";
  wv::test::write_text(repo + "/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"tool\"\nversion = \"1.0\"\n");
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'git'\n");
  const std::string git = "git -c user.name=t -c user.email=t@t ";
  REQUIRE(shell(repo, "git init -q && " + git + "add -A && " + git + "commit -qm one && git tag v1").status == 0);
  wv::test::write_text(tmp.path() + "/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"tool\"]\n\n"
        "[tool.wvlock]\nfind-links = [\"../wheels\"]\n\n"
        "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
        "python = \"" + wv::test::test_python_minor() + "\"\n\n"
        "[tool.wvlock.sources]\ntool = { git = \"../tool\", tag = \"v1\" }\n");
  const std::string wvlock = "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY "' ";

  Run lock = shell(tmp.path() + "/app", wvlock + "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  Run sync = shell(tmp.path(), wvlock + "--project app sync --offline --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run who = shell(tmp.path() + "/app", ".venv/bin/python -c 'import tool; print(tool.WHO)'");
  CHECK(who.out == "git\n");
}
