// Beyond index wheels, end to end through the wvlock binary with real setuptools builds (Debian's
// setuptools and wheel wheels in a find-links folder), no network, a fresh venv each: the
// project installed editable with its script, a sibling folder dependency, re-sync keeping what
// was built, `--no-install-project`, `--no-build`, a git dependency at a tag, and links in a
// checkout or a folder that lead outside it (refused at lock and at sync).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

// An sdist made with Python's tarfile: `<name>-<version>/` with PKG-INFO (`metadata_version`,
// `requirements` as Requires-Dist) and a setuptools pyproject.toml whose dependencies are `deps`
// (a list literal), or a setup.py `body` when given.
std::string make_sdist(const std::string& folder, const std::string& name, const std::string& version,
                       const std::string& metadata_version, const std::string& requirements,
                       const std::string& deps, const std::string& setup_py = "") {
  fs::create_directories(folder);
  const std::string script = folder + "/make_sdist.py";
  std::ofstream(script)
      << "import io, sys, tarfile\n"
         "folder, name, version, mv, requires, deps, setup_py = sys.argv[1:8]\n"
         "base = f'{name}-{version}'\n"
         "pkg_info = f'Metadata-Version: {mv}\\nName: {name}\\nVersion: {version}\\n'\n"
         "for r in filter(None, requires.split(';;')): pkg_info += f'Requires-Dist: {r}\\n'\n"
         "pyproject = ('[build-system]\\nrequires = [\"setuptools>=61\"]\\n'\n"
         "             'build-backend = \"setuptools.build_meta\"\\n[project]\\n'\n"
         "             f'name = \"{name}\"\\nversion = \"{version}\"\\ndependencies = {deps}\\n')\n"
         "members = {f'{base}/PKG-INFO': pkg_info, f'{base}/pyproject.toml': pyproject,\n"
         "           f'{base}/src/{name}/__init__.py': f'NAME = \"{name}\"\\n'}\n"
         "if setup_py: members[f'{base}/setup.py'] = setup_py\n"
         "path = f'{folder}/{name}-{version}.tar.gz'\n"
         "with tarfile.open(path, 'w:gz') as tf:\n"
         "    for member, text in members.items():\n"
         "        data = text.encode(); info = tarfile.TarInfo(member); info.size = len(data)\n"
         "        tf.addfile(info, io.BytesIO(data))\n"
         "print(path)\n";
  Run run = shell(folder, "'" WV_TEST_PYTHON "' make_sdist.py '" + folder + "' " + name + " " + version +
                              " " + metadata_version + " '" + requirements + "' '" + deps + "' '" + setup_py + "'");
  REQUIRE(run.status == 0);
  fs::remove(script);
  return folder + "/" + name + "-" + version + ".tar.gz";
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
    // The sibling has a dependency of its own, from the find-links folder.
    wv::test::write_text(tmp.path() + "/mylib/pyproject.toml",
          "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
          "[project]\nname = \"mylib\"\nversion = \"2.0\"\ndependencies = [\"wheel\"]\n");
    wv::test::write_text(tmp.path() + "/mylib/src/mylib/__init__.py", "VALUE = 42\n");
    wv::test::write_text(app + "/pyproject.toml",
          "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n"
          "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"mylib\"" + extra_deps +
          "]\n\n[project.scripts]\napp = \"app:main\"\n\n[tool.wvlock]\nfind-links = [\"../wheels\"]\n\n"
          "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
          "python = \"" + python_minor() + "\"\n\n[tool.wvlock.sources]\nmylib = { path = \"../mylib\" }\n" +
          extra_sources);
    wv::test::write_text(app + "/src/app/__init__.py", "def main():\n    import mylib\n    print('app says', mylib.VALUE)\n");
  }
  static std::string python_minor() { return wv::test::test_python_minor(); }
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

  // The lock holds no path of this machine: a copy of the checkout elsewhere finds it fresh.
  wv::test::TempDir elsewhere;
  fs::copy(workspace.tmp.path(), elsewhere.path() + "/w", fs::copy_options::recursive);
  Run moved = shell(elsewhere.path() + "/w/app", "'" WVLOCK_BINARY "' --cache-dir '" +
                                                     elsewhere.path() + "/cache' lock --check");
  INFO(moved.err);
  CHECK(moved.status == 0);

  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.out.find("+ app 0.1.0") != std::string::npos);
  CHECK(sync.out.find("+ mylib 2.0") != std::string::npos);
  CHECK(sync.out.find("+ wheel 0.38.4") != std::string::npos);
  Run script = shell(workspace.app, ".venv/bin/app");
  CHECK(script.out == "app says 42\n");

  // Editable: an edit shows without a sync; a re-sync keeps both builds.
  wv::test::write_text(workspace.app + "/src/app/__init__.py", "def main():\n    print('edited')\n");
  CHECK(shell(workspace.app, ".venv/bin/app").out == "edited\n");
  Run again = workspace.wvlock("sync");
  CHECK(again.status == 0);
  CHECK(again.out.find("3 kept as they are") != std::string::npos);
  CHECK(slurp(workspace.app + "/.venv/lib/python" + Workspace::python_minor() +
              "/site-packages/mylib-2.0.dist-info/direct_url.json")
            .find("\"dir_info\"") != std::string::npos);

  // A change to the project's metadata (a new script) rebuilds it; the lock stays fresh.
  std::string pyproject = slurp(workspace.app + "/pyproject.toml");
  pyproject.replace(pyproject.find("app = \"app:main\""), 16, "app = \"app:main\"\napp2 = \"app:main\"");
  wv::test::write_text(workspace.app + "/pyproject.toml", pyproject);
  Run rebuilt = workspace.wvlock("sync");
  INFO(rebuilt.err);
  CHECK(rebuilt.status == 0);
  CHECK(rebuilt.out.find("~ app 0.1.0") != std::string::npos);
  CHECK(fs::exists(workspace.app + "/.venv/bin/app2"));

  // --no-editable installs a regular wheel: an edit no longer shows.
  Run regular = workspace.wvlock("sync --no-editable");
  CHECK(regular.status == 0);
  wv::test::write_text(workspace.app + "/src/app/__init__.py", "def main():\n    print('edited again')\n");
  CHECK(shell(workspace.app, ".venv/bin/app").out == "edited\n");

  // --no-install-project leaves the project out; --no-build refuses to build it back.
  Run without = workspace.wvlock("sync --no-install-project");
  CHECK(without.status == 0);
  CHECK(without.out.find("- app 0.1.0") != std::string::npos);
  Run refused = workspace.wvlock("sync --no-build");
  CHECK(refused.status == 1);
  CHECK(refused.err.find("`--no-build` refuses to build app 0.1.0") != std::string::npos);

  // The sibling's pyproject.toml is part of what the lock read.
  wv::test::write_text(workspace.tmp.path() + "/mylib/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"mylib\"\nversion = \"2.1\"\n");
  // The message names the file that changed, not the project's own pyproject.toml.
  Run stale = workspace.wvlock("lock --check");
  CHECK(stale.status == 1);
  CHECK(stale.err.find("is stale: `../mylib/pyproject.toml` changed since it was written") !=
        std::string::npos);
  Run checked = workspace.wvlock("check");
  CHECK(checked.status != 0);
  CHECK(checked.err.find("`../mylib/pyproject.toml` changed since it was written") != std::string::npos);
  CHECK(slurp(workspace.app + "/pylock.toml").find("input-files = { \"../mylib/pyproject.toml\" = \"sha256:") !=
        std::string::npos);
}

TEST_CASE("cli sources: a fresh venv reuses the project's editable build until its metadata "
          "changes",
          "[cli][sources][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  Workspace workspace;
  REQUIRE(workspace.wvlock("lock").status == 0);
  Run first = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(first.err);
  REQUIRE(first.status == 0);
  auto editable_builds = [&] {
    std::vector<std::string> found;
    const std::string root = workspace.tmp.path() + "/cache/built-wheels";
    for (const auto& entry : fs::directory_iterator(root)) {
      const std::string leaf = entry.path().filename().string();
      if (leaf.rfind("editable-", 0) == 0) found.push_back(leaf);
    }
    return found;
  };
  REQUIRE(editable_builds().size() == 1);
  // The backend writes its egg-info into the tree when it builds: gone, and not back after
  // a fresh venv's sync, the build was reused.
  const std::string egg_info = workspace.app + "/src/app.egg-info";
  REQUIRE(fs::exists(egg_info));
  fs::remove_all(egg_info);
  fs::remove_all(workspace.app + "/.venv");
  Run fresh = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(fresh.err);
  REQUIRE(fresh.status == 0);
  CHECK_FALSE(fs::exists(egg_info));
  CHECK(editable_builds().size() == 1);
  CHECK(shell(workspace.app, ".venv/bin/app").out == "app says 42\n");
  // Code edits show without a build; a metadata change is a new build.
  wv::test::write_text(workspace.app + "/src/app/__init__.py", "def main():\n    print('edited')\n");
  CHECK(shell(workspace.app, ".venv/bin/app").out == "edited\n");
  std::string pyproject = slurp(workspace.app + "/pyproject.toml");
  pyproject.replace(pyproject.find("app = \"app:main\""), 16, "app = \"app:main\"\napp2 = \"app:main\"");
  wv::test::write_text(workspace.app + "/pyproject.toml", pyproject);
  fs::remove_all(workspace.app + "/.venv");
  Run changed = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(changed.err);
  REQUIRE(changed.status == 0);
  CHECK(fs::exists(workspace.app + "/.venv/bin/app2"));
  CHECK(editable_builds().size() == 2);
}

TEST_CASE("cli sources: a git dependency at a tag is locked to its commit and installed from it "
          "after the repository moved on",
          "[cli][sources][build][git]") {
  // scripts/setup.sh installs Debian's setuptools and wheel wheels; without them this fails.
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir repo_dir;
  const std::string repo = repo_dir.path() + "/tool";
  wv::test::write_text(repo + "/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"tool\"\nversion = \"1.0\"\n");
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'tagged'\n");
  const std::string git = "git -c user.name=t -c user.email=t@t ";
  REQUIRE(shell(repo, "git init -q && " + git + "add -A && " + git + "commit -qm one && git tag v1.0")
              .status == 0);
  const std::string tagged = shell(repo, "git rev-parse HEAD").out.substr(0, 40);
  Workspace workspace("tool = { git = \"" + repo + "\", tag = \"v1.0\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string locked = slurp(workspace.app + "/pylock.toml");
  CHECK(locked.find("commit-id = \"" + tagged + "\"") != std::string::npos);
  // A local repository is a path relative to the lock (PEP 751 `vcs.path`).
  CHECK(locked.find("vcs = { type = \"git\", path = \"../../") != std::string::npos);
  CHECK(locked.find(repo_dir.path()) == std::string::npos);

  // The repository moves on and even moves its tag: the lock's commit is what installs, and a
  // re-lock keeps it until the package is upgraded.
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'later'\n");
  REQUIRE(shell(repo, git + "commit -qam two && git tag -f v1.0").status == 0);
  const std::string moved = shell(repo, "git rev-parse HEAD").out.substr(0, 40);
  REQUIRE(workspace.wvlock("lock").status == 0);
  CHECK(slurp(workspace.app + "/pylock.toml").find("commit-id = \"" + tagged + "\"") != std::string::npos);
  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run who = shell(workspace.app, ".venv/bin/python -c 'import tool; print(tool.WHO)'");
  CHECK(who.out == "tagged\n");

  REQUIRE(workspace.wvlock("lock --upgrade-package tool").status == 0);
  CHECK(slurp(workspace.app + "/pylock.toml").find("commit-id = \"" + moved + "\"") != std::string::npos);
}

TEST_CASE("cli sources: a vendored wheel installs, and its tampering after the lock is refused",
          "[cli][sources]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  Workspace workspace("pip = { path = \"vendor/pip-23.0.1-py3-none-any.whl\" }\n", ", \"pip\"");
  fs::create_directories(workspace.app + "/vendor");
  fs::copy_file("/usr/share/python-wheels/pip-23.0.1-py3-none-any.whl",
                workspace.app + "/vendor/pip-23.0.1-py3-none-any.whl");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  CHECK(slurp(workspace.app + "/pylock.toml")
            .find("{ name = \"pip-23.0.1-py3-none-any.whl\", path = \"vendor/pip-23.0.1-py3-none-any.whl\"") !=
        std::string::npos);
  // The vendored file changes after the lock, its size kept: sync refuses it by its sha256 and
  // installs nothing.
  {
    std::fstream wheel(workspace.app + "/vendor/pip-23.0.1-py3-none-any.whl",
                       std::ios::in | std::ios::out | std::ios::binary);
    wheel.seekp(100);
    wheel.put('\x7f');
  }
  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  CHECK(sync.status != 0);
  CHECK(sync.err.find("pip-23.0.1-py3-none-any.whl") != std::string::npos);
  CHECK(sync.err.find("sha256") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/.venv/bin/app"));
  // Grown as well: the size the lock records catches it first.
  std::ofstream(workspace.app + "/vendor/pip-23.0.1-py3-none-any.whl", std::ios::app) << "tampered";
  Run grown = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  CHECK(grown.status != 0);
  CHECK(grown.err.find("bytes, the lock says") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/.venv/bin/app"));
}

TEST_CASE("cli sources: sdists with static metadata (a file:// direct reference) and with "
          "metadata only the backend knows",
          "[cli][sources][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir dist;
  // PEP 643 static PKG-INFO: read as it is (its Requires-Dist says `wheel`, pyproject says none:
  // the lock follows PKG-INFO, which proves no build ran at lock time).
  const std::string statics = make_sdist(dist.path(), "statics", "1.0", "2.2", "wheel", "[]");
  // Metadata-Version 2.1 promises nothing: prepare_metadata_for_build_wheel says `wheel`.
  const std::string dynamic = make_sdist(dist.path(), "dynamic", "3.0", "2.1", "", "[\"wheel\"]");
  Workspace workspace("dynamic = { path = \"" + dynamic + "\" }\n",
                      ", \"statics @ file://" + statics + "\", \"dynamic\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string lockfile = slurp(workspace.app + "/pylock.toml");
  CHECK(lockfile.find("name = \"statics\"\nversion = \"1.0\"\narchive = {") != std::string::npos);
  CHECK(lockfile.find("name = \"dynamic\"\nversion = \"3.0\"\narchive = {") != std::string::npos);
  const std::size_t dynamic_entry = lockfile.find("name = \"dynamic\"");
  CHECK(lockfile.find("dependencies = [\"wheel==0.38.4\"]", dynamic_entry) != std::string::npos);

  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run names = shell(workspace.app, ".venv/bin/python -c 'import statics, dynamic; print(statics.NAME, dynamic.NAME)'");
  CHECK(names.out == "statics dynamic\n");
  // The built wheels are cached by the sdist's sha256: a fresh environment reuses them.
  CHECK(fs::exists(workspace.tmp.path() + "/cache/built-wheels"));
  fs::remove_all(workspace.app + "/.venv");
  Run again = workspace.wvlock("sync --no-install-project --python '" WV_TEST_PYTHON "'");
  REQUIRE(again.status == 0);
  CHECK(again.out.find("+ statics 1.0") != std::string::npos);
}

TEST_CASE("cli sources: a build requirement no index has, and a failing build, are errors that "
          "name them and change nothing",
          "[cli][sources][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  Workspace workspace;
  // The sibling's metadata is dynamic, so the lock asks its backend, whose requirement is missing.
  wv::test::write_text(workspace.tmp.path() + "/mylib/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\", \"nosuchbackend>=1\"]\n"
        "build-backend = \"setuptools.build_meta\"\n[project]\nname = \"mylib\"\n"
        "dynamic = [\"version\"]\n");
  Run missing = workspace.wvlock("lock");
  CHECK(missing.status != 0);
  CHECK(missing.err.find("nosuchbackend") != std::string::npos);
  CHECK(missing.err.find("mylib") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/pylock.toml"));

  // A backend that fails: the error shows its last lines; the environment is untouched.
  wv::test::write_text(workspace.tmp.path() + "/mylib/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"mylib\"\nversion = \"2.0\"\n");
  wv::test::write_text(workspace.tmp.path() + "/mylib/setup.py",
        "import sys\nfor i in range(100): print('noise', i)\nraise SystemExit('the compiler is missing')\n");
  REQUIRE(workspace.wvlock("lock").status == 0);
  Run failed = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  CHECK(failed.status == 1);
  CHECK(failed.err.find("the compiler is missing") != std::string::npos);
  CHECK(failed.err.find("noise 50") == std::string::npos);  // only the last 40 lines
  CHECK(failed.err.find("nothing was changed") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/.venv/bin/app"));
}

namespace {

// Every file under `folder` (paths relative to it), for checking that nothing wrote there.
std::string listing(const std::string& folder) {
  std::set<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    paths.insert(fs::relative(entry.path(), folder).string());
  }
  std::string out;
  for (const std::string& path : paths) out += path + "\n";
  return out;
}

const std::string kToolProject =
    "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
    "[project]\nname = \"tool\"\nversion = \"1.0\"\n";

// A buildable `name` 6.6.6 outside every source tree: what a link must never lead wvlock to.
std::string make_outside(const std::string& folder, const std::string& name = "tool") {
  wv::test::write_text(folder + "/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"" + name + "\"\nversion = \"6.6.6\"\n");
  wv::test::write_text(folder + "/src/" + name + "/__init__.py", "WHO = 'outside'\n");
  return folder;
}

// Commits everything in `repo` (made by the caller) as its first commit.
void commit_all(const std::string& repo) {
  const std::string git = "git -c user.name=t -c user.email=t@t ";
  REQUIRE(shell(repo, "git init -q && " + git + "add -A && " + git + "commit -qm one").status == 0);
}

}  // namespace

TEST_CASE("cli sources: a git commit whose pyproject.toml links outside the checkout is refused",
          "[cli][sources][git][contained]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir dir;
  const std::string outside = make_outside(dir.path() + "/outside");
  const std::string repo = dir.path() + "/tool";
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'inside'\n");
  fs::create_symlink(outside + "/pyproject.toml", repo + "/pyproject.toml");
  commit_all(repo);
  Workspace workspace("tool = { git = \"" + repo + "\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  CHECK(lock.status != 0);
  CHECK(lock.err.find("`pyproject.toml`") != std::string::npos);
  CHECK(lock.err.find(outside + "/pyproject.toml") != std::string::npos);
  CHECK(lock.err.find("outside") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/pylock.toml"));
}

TEST_CASE("cli sources: a git subdirectory that links outside the checkout is refused",
          "[cli][sources][git][contained]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir dir;
  const std::string outside = make_outside(dir.path() + "/outside");
  const std::string repo = dir.path() + "/tool";
  wv::test::write_text(repo + "/pyproject.toml", kToolProject);
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'inside'\n");
  fs::create_directory_symlink(outside, repo + "/pkg");
  commit_all(repo);
  Workspace workspace("tool = { git = \"" + repo + "\", subdirectory = \"pkg\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  CHECK(lock.status != 0);
  CHECK(lock.err.find("`pkg`") != std::string::npos);
  CHECK(lock.err.find(outside) != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/pylock.toml"));
  CHECK(listing(outside).find("egg-info") == std::string::npos);
}

TEST_CASE("cli sources: a git subdirectory linking inside the checkout builds; one a lockfile "
          "names that links outside is refused at sync, nothing written there",
          "[cli][sources][build][git][contained]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir dir;
  const std::string outside = make_outside(dir.path() + "/outside");
  const std::string before = listing(outside);
  const std::string repo = dir.path() + "/tool";
  wv::test::write_text(repo + "/real/pyproject.toml", kToolProject);
  wv::test::write_text(repo + "/real/src/tool/__init__.py", "WHO = 'inside'\n");
  fs::create_directory_symlink("real", repo + "/inside");
  fs::create_directory_symlink(outside, repo + "/evil");
  commit_all(repo);
  Workspace workspace("tool = { git = \"" + repo + "\", subdirectory = \"inside\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  std::string lockfile = slurp(workspace.app + "/pylock.toml");
  CHECK(lockfile.find("version = \"1.0\"") != std::string::npos);  // [packages.tool.wvlock]
  CHECK(lockfile.find("subdirectory = \"inside\"") != std::string::npos);
  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  CHECK(shell(workspace.app, ".venv/bin/python -c 'import tool; print(tool.WHO)'").out == "inside\n");

  // The lockfile (hand-edited, or from a commit read before) names the link to outside.
  lockfile.replace(lockfile.find("subdirectory = \"inside\""), 23, "subdirectory = \"evil\"");
  wv::test::write_text(workspace.app + "/pylock.toml", lockfile);
  const std::string site = workspace.app + "/.venv/lib/python" + Workspace::python_minor() + "/site-packages";
  const std::string installed = listing(site);
  Run refused = workspace.wvlock("sync");
  INFO(refused.err);
  CHECK(refused.status != 0);
  CHECK(refused.err.find("`evil`") != std::string::npos);
  CHECK(refused.err.find(outside) != std::string::npos);
  CHECK(listing(outside) == before);
  CHECK(listing(site) == installed);
  CHECK(shell(workspace.app, ".venv/bin/python -c 'import tool; print(tool.WHO)'").out == "inside\n");
}

TEST_CASE("cli sources: a path source's pyproject.toml that links outside its folder is refused; "
          "the folder itself may be a link",
          "[cli][sources][contained]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  Workspace workspace;
  const std::string mylib = workspace.tmp.path() + "/mylib";
  // The user names the folder through a link: its root is where the link ends.
  fs::create_directory_symlink(mylib, workspace.tmp.path() + "/mylink");
  std::string pyproject = slurp(workspace.app + "/pyproject.toml");
  pyproject.replace(pyproject.find("path = \"../mylib\""), 17, "path = \"../mylink\"");
  wv::test::write_text(workspace.app + "/pyproject.toml", pyproject);
  Run linked = workspace.wvlock("lock");
  INFO(linked.err);
  REQUIRE(linked.status == 0);
  const std::string locked = slurp(workspace.app + "/pylock.toml");
  CHECK(locked.find("version = \"2.0\"") != std::string::npos);  // [packages.tool.wvlock]

  // A lockfile whose subdirectory of the folder links out of it: sync refuses, builds nothing.
  const std::string outside = make_outside(workspace.tmp.path() + "/outside", "mylib");
  const std::string before = listing(outside);
  fs::create_directory_symlink(outside, mylib + "/evil");
  std::string edited = locked;
  const std::string entry = "directory = { path = \"../mylink\"";
  REQUIRE(edited.find(entry) != std::string::npos);
  edited.replace(edited.find(entry), entry.size(), entry + ", subdirectory = \"evil\"");
  wv::test::write_text(workspace.app + "/pylock.toml", edited);
  Run subdirectory = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(subdirectory.err);
  CHECK(subdirectory.status != 0);
  CHECK(subdirectory.err.find("`evil`") != std::string::npos);
  CHECK(subdirectory.err.find(outside) != std::string::npos);
  CHECK(listing(outside) == before);
  CHECK_FALSE(fs::exists(workspace.app + "/.venv/bin/app"));
  wv::test::write_text(workspace.app + "/pylock.toml", locked);

  // Its pyproject.toml becomes a link out of the folder: lock and sync refuse, the lock stays.
  fs::rename(mylib + "/pyproject.toml", workspace.tmp.path() + "/saved.toml");
  fs::create_symlink("../outside/pyproject.toml", mylib + "/pyproject.toml");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  CHECK(lock.status != 0);
  CHECK(lock.err.find("`pyproject.toml`") != std::string::npos);
  CHECK(lock.err.find(outside + "/pyproject.toml") != std::string::npos);
  CHECK(slurp(workspace.app + "/pylock.toml") == locked);
  Run sync = workspace.wvlock("sync --python '" WV_TEST_PYTHON "'");
  CHECK(sync.status != 0);
  CHECK(sync.err.find(outside + "/pyproject.toml") != std::string::npos);
  CHECK_FALSE(fs::exists(workspace.app + "/.venv/bin/app"));
}

TEST_CASE("cli sources: fetch puts a git source's locked commit into the git cache, and an "
          "offline sync builds it from there",
          "[cli][sources][build][git][fetch]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  wv::test::TempDir repo_dir;
  const std::string repo = repo_dir.path() + "/tool";
  wv::test::write_text(repo + "/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
        "[project]\nname = \"tool\"\nversion = \"1.0\"\n");
  wv::test::write_text(repo + "/src/tool/__init__.py", "WHO = 'fetched'\n");
  const std::string git = "git -c user.name=t -c user.email=t@t ";
  REQUIRE(shell(repo, "git init -q && " + git + "add -A && " + git + "commit -qm one").status == 0);
  const std::string commit = shell(repo, "git rev-parse HEAD").out.substr(0, 40);
  Workspace workspace("tool = { git = \"" + repo + "\" }\n", ", \"tool\"");
  Run lock = workspace.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  // The lock fetched the repository already; fetch into a fresh cache shows it does it itself.
  fs::remove_all(workspace.tmp.path() + "/cache");
  Run fetch = workspace.wvlock("fetch --json");
  INFO(fetch.out << fetch.err);
  REQUIRE(fetch.status == 0);
  nlohmann::json document = nlohmann::json::parse(fetch.out);
  REQUIRE(document["git"].size() == 1);
  CHECK(document["git"][0]["package"] == "tool");
  CHECK(document["git"][0]["commit"] == commit);
  CHECK(fs::is_directory(document["git"][0]["path"].get<std::string>()));
  CHECK(document["git"][0]["error"].is_null());
  // Offline, the git cache is all the builder asks: without fetch's checkout this fails with
  // "is not in the git cache". (A local repository is keyed by its resolved path, so it must
  // still exist; a URL's does not.)
  Run sync = workspace.wvlock("--offline sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(shell(workspace.app, ".venv/bin/python -c 'import tool; print(tool.WHO)'").out == "fetched\n");
}
