// Beyond index wheels, end to end through the wvlock binary with real setuptools builds (Debian's
// setuptools and wheel wheels in a find-links folder), no network, a fresh venv each: the
// project installed editable with its script, a sibling folder dependency, re-sync keeping what
// was built, `--no-install-project`, `--no-build`, and a git dependency at a tag.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// <tmp>/wheels (the build backend), <tmp>/mylib (a sibling project), <tmp>/app (the project).
struct Workspace {
  wv::test::TempDir tmp;
  std::string app = tmp.path() + "/app";

  explicit Workspace(const std::string& extra_sources = "", const std::string& extra_deps = "") {
    fs::create_directories(tmp.path() + "/wheels");
    for (const auto& entry : fs::directory_iterator("/usr/share/python-wheels")) {
      const std::string leaf = entry.path().filename().string();
      if (leaf.rfind("setuptools-", 0) == 0 || leaf.rfind("wheel-", 0) == 0) {
        fs::copy_file(entry.path(), tmp.path() + "/wheels/" + leaf);
      }
    }
    write(tmp.path() + "/mylib/pyproject.toml",
          "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
          "[project]\nname = \"mylib\"\nversion = \"2.0\"\n");
    write(tmp.path() + "/mylib/src/mylib/__init__.py", "VALUE = 42\n");
    write(app + "/pyproject.toml",
          "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n"
          "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"mylib\"" + extra_deps +
          "]\n\n[project.scripts]\napp = \"app:main\"\n\n[tool.wvlock]\nfind-links = [\"../wheels\"]\n\n"
          "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
          "python = \"" + python_minor() + "\"\n\n[tool.wvlock.sources]\nmylib = { path = \"../mylib\" }\n" +
          extra_sources);
    write(app + "/src/app/__init__.py", "def main():\n    import mylib\n    print('app says', mylib.VALUE)\n");
  }
  static std::string python_minor() {
    Run run = shell("/", "'" WV_TEST_PYTHON "' -c \"import sys; print('%d.%d' % sys.version_info[:2])\"");
    return run.out.substr(0, run.out.find('\n'));
  }
  Run wvlock(const std::string& arguments) const {
    return shell(app, "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY "' --cache-dir '" +
                          tmp.path() + "/cache' " + arguments);
  }
};

}  // namespace

TEST_CASE("cli sources: the project installs editable with its script, beside a sibling folder",
          "[cli][sources][build]") {
  // scripts/setup.sh installs Debian's setuptools and wheel wheels; without them this fails.
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  Workspace workspace;
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string lockfile = slurp(workspace.app + "/pylock.toml");
  CHECK(lockfile.find("name = \"app\"\ndirectory = { path = \".\", editable = true }") != std::string::npos);
  CHECK(lockfile.find("name = \"mylib\"\ndirectory = { path = \"../mylib\" }") != std::string::npos);

  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.out.find("+ app 0.1.0") != std::string::npos);
  CHECK(sync.out.find("+ mylib 2.0") != std::string::npos);
  Run script = shell(workspace.app, ".venv/bin/app");
  CHECK(script.out == "app says 42\n");

  // Editable: an edit shows without a sync; a re-sync keeps both builds.
  write(workspace.app + "/src/app/__init__.py", "def main():\n    print('edited')\n");
  CHECK(shell(workspace.app, ".venv/bin/app").out == "edited\n");
  Run again = workspace.wvlock("sync");
  CHECK(again.status == 0);
  CHECK(again.out.find("keep 2") != std::string::npos);
  CHECK(slurp(workspace.app + "/.venv/lib/python" + Workspace::python_minor() +
              "/site-packages/mylib-2.0.dist-info/direct_url.json")
            .find("\"dir_info\"") != std::string::npos);

  // --no-install-project leaves the project out; --no-build refuses to build it back.
  Run without = workspace.wvlock("sync --no-install-project");
  CHECK(without.status == 0);
  CHECK(without.out.find("- app 0.1.0") != std::string::npos);
  Run refused = workspace.wvlock("sync --no-build");
  CHECK(refused.status == 1);
  CHECK(refused.err.find("`--no-build` refuses to build app 0.1.0") != std::string::npos);

  // The sibling's pyproject.toml is part of what the lock read.
  write(workspace.tmp.path() + "/mylib/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"mylib\"\nversion = \"2.1\"\n");
  Run stale = workspace.wvlock("lock --check");
  CHECK(stale.status != 0);
}

TEST_CASE("cli sources: a git dependency at a tag is locked to its commit and installed from it "
          "after the repository moved on",
          "[cli][sources][build][git]") {
  // scripts/setup.sh installs Debian's setuptools and wheel wheels; without them this fails.
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir repo_dir;
  const std::string repo = repo_dir.path() + "/tool";
  write(repo + "/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"tool\"\nversion = \"1.0\"\n");
  write(repo + "/src/tool/__init__.py", "WHO = 'tagged'\n");
  const std::string git = "git -c user.name=t -c user.email=t@t ";
  REQUIRE(shell(repo, "git init -q && " + git + "add -A && " + git + "commit -qm one && git tag v1.0")
              .status == 0);
  const std::string tagged = shell(repo, "git rev-parse HEAD").out.substr(0, 40);
  Workspace workspace("tool = { git = \"" + repo + "\", tag = \"v1.0\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  CHECK(slurp(workspace.app + "/pylock.toml").find("commit-id = \"" + tagged + "\"") != std::string::npos);

  // The repository moves on and even moves its tag: the lock's commit is what installs.
  write(repo + "/src/tool/__init__.py", "WHO = 'later'\n");
  REQUIRE(shell(repo, git + "commit -qam two && git tag -f v1.0").status == 0);
  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run who = shell(workspace.app, ".venv/bin/python -c 'import tool; print(tool.WHO)'");
  CHECK(who.out == "tagged\n");
}
