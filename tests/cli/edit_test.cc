// `wvlock add`, `wvlock remove` and `wvlock init` end to end over the fixture index: the
// pyproject.toml edit keeps every other byte, the lock and sync follow in a real venv, a
// failing lock puts the files back, and a project made by `init` locks and syncs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;
using wv::test::kNoGpu;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;
using wv::test::write_text;

// A project written by hand, with comments and odd formatting everywhere.
std::string ugly_pyproject() {
  return "# The project.\n"
         "[project]\n"
         "name    = 'ugly'   # single quotes\n"
         "version = \"0.1.0\"\n"
         "requires-python = \">=3.8\"\n"
         "dependencies = [\n"
         "    # what the app needs\n"
         "    \"idna>=3\",        # names\n"
         "    'packaging', # literal string\n"
         "]\n"
         "\n"
         "[project.optional-dependencies]\n"
         "test = [ \"pluggy\" ]   # inline\n"
         "\n"
         "[dependency-groups]\n"
         "lint = []\n"
         "\n"
         "[tool.wvlock]\n"
         "python = \"" + wv::test::test_python_minor() + "\"\n"
         "index-url = \"../generated/simple\"   # the fixture index\n"
         "\n"
         "[[tool.wvlock.index]]\n"
         "name = \"mirror\"\n"
         "url = \"../generated/simple\"\n"
         "explicit = true\n"
         "\n"
         "[[tool.wvlock.target]]\n"
         "name = \"cpu\"\n"
         "platform = \"linux-x86_64\"\n"
         "glibc = \"2.28\"\n";
}

// `text` with `line` inserted before `before` (which must be there).
std::string inserted(std::string text, const std::string& before, const std::string& line) {
  std::size_t at = text.find(before);
  REQUIRE(at != std::string::npos);
  return text.insert(at, line);
}

}  // namespace

TEST_CASE("cli add/remove: a round trip keeps every other byte", "[cli][edit]") {
  wv::test::ProjectCopy project("ugly", ugly_pyproject());
  const std::string before = slurp(project.dir + "/pyproject.toml");
  Run add = project.wvlock(kNoGpu, "add iniconfig --no-sync");
  INFO(add.err);
  REQUIRE(add.status == 0);
  // The bare name got the locked version as its lower bound, in sorted place.
  const std::string added = slurp(project.dir + "/pyproject.toml");
  CHECK(added == inserted(before, "    'packaging', # literal string\n", "    \"iniconfig>=2.1.0\",\n"));
  CHECK(project.lockfile().find("name = \"iniconfig\"") != std::string::npos);
  CHECK_FALSE(fs::exists(project.dir + "/.venv"));

  Run remove = project.wvlock(kNoGpu, "remove INIconfig --no-sync");
  INFO(remove.err);
  REQUIRE(remove.status == 0);
  CHECK(slurp(project.dir + "/pyproject.toml") == before);
  CHECK(project.lockfile().find("name = \"iniconfig\"") == std::string::npos);

  // A bare name already listed keeps its written requirement (no bound replaces it).
  Run again = project.wvlock(kNoGpu, "add IDNA --no-sync");
  INFO(again.err);
  REQUIRE(again.status == 0);
  CHECK(slurp(project.dir + "/pyproject.toml") == before);
}

TEST_CASE("cli add: each list flag, --index and --target, --frozen edits only", "[cli][edit]") {
  wv::test::ProjectCopy project("ugly", ugly_pyproject());
  const std::string before = slurp(project.dir + "/pyproject.toml");
  Run group = project.wvlock(kNoGpu, "add --frozen --group lint 'pluggy>=1'");
  INFO(group.err);
  REQUIRE(group.status == 0);
  CHECK_FALSE(fs::exists(project.dir + "/pylock.toml"));
  std::string expected = before;
  expected.replace(expected.find("lint = []"), 9, "lint = [\n    \"pluggy>=1\",\n]");
  CHECK(slurp(project.dir + "/pyproject.toml") == expected);

  Run dev = project.wvlock(kNoGpu, "add --frozen --dev iniconfig");
  REQUIRE(dev.status == 0);
  expected = inserted(expected, "\n[tool.wvlock]\n", "dev = [\n    \"iniconfig\",\n]\n");
  CHECK(slurp(project.dir + "/pyproject.toml") == expected);

  Run optional = project.wvlock(kNoGpu, "add --frozen --optional test 'iniconfig>=2'");
  REQUIRE(optional.status == 0);
  expected.replace(expected.find("[ \"pluggy\" ]"), 12, "[ \"iniconfig>=2\", \"pluggy\" ]");
  CHECK(slurp(project.dir + "/pyproject.toml") == expected);

  Run pinned = project.wvlock(kNoGpu, "add --frozen --index mirror --target cpu 'idna>=3.10'");
  INFO(pinned.err);
  REQUIRE(pinned.status == 0);
  expected.replace(expected.find("\"idna>=3\""), 9, "\"idna>=3.10\"");
  expected = inserted(expected, "\n[[tool.wvlock.index]]\n",
                      "\n[tool.wvlock.sources]\nidna = { index = \"mirror\", targets = [\"cpu\"] }\n");
  CHECK(slurp(project.dir + "/pyproject.toml") == expected);
  // The edited file locks: idna comes from the pinned index, for the target.
  Run lock = project.wvlock(kNoGpu, "lock");
  INFO(lock.err);
  CHECK(lock.status == 0);
  CHECK(project.lockfile().find("index-name = \"mirror\"") != std::string::npos);

  // Unknown index or target: nothing written, exit 2.
  const std::string now = slurp(project.dir + "/pyproject.toml");
  Run unknown = project.wvlock(kNoGpu, "add --frozen --index nowhere six");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no index named `nowhere`") != std::string::npos);
  CHECK(unknown.err.find("`mirror`") != std::string::npos);
  Run bad_target = project.wvlock(kNoGpu, "add --frozen --index mirror --target gpu six");
  CHECK(bad_target.status == 2);
  CHECK(bad_target.err.find("no target named `gpu`") != std::string::npos);
  Run no_index = project.wvlock(kNoGpu, "add --frozen --target cpu six");
  CHECK(no_index.status == 2);
  CHECK(slurp(project.dir + "/pyproject.toml") == now);
}

TEST_CASE("cli add: a failing lock puts pyproject.toml and pylock.toml back", "[cli][edit]") {
  wv::test::ProjectCopy project("ugly", ugly_pyproject());
  Run lock = project.wvlock(kNoGpu, "lock");
  REQUIRE(lock.status == 0);
  const std::string pyproject = slurp(project.dir + "/pyproject.toml");
  const std::string lockfile = project.lockfile();
  Run add = project.wvlock(kNoGpu, "add 'idna>=99' iniconfig");
  CHECK(add.status == 1);
  CHECK(add.err.find("back as it was") != std::string::npos);
  CHECK(slurp(project.dir + "/pyproject.toml") == pyproject);
  CHECK(project.lockfile() == lockfile);
  // No lockfile before: none after.
  wv::test::ProjectCopy fresh("ugly", ugly_pyproject());
  CHECK(fresh.wvlock(kNoGpu, "add no-such-project").status == 1);
  CHECK_FALSE(fs::exists(fresh.dir + "/pylock.toml"));
  CHECK(slurp(fresh.dir + "/pyproject.toml") == pyproject);
}

TEST_CASE("cli remove: a package not in the list changes nothing", "[cli][edit]") {
  wv::test::ProjectCopy project("ugly", ugly_pyproject());
  const std::string before = slurp(project.dir + "/pyproject.toml");
  Run missing = project.wvlock(kNoGpu, "remove pluggy");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("The dependency `pluggy` could not be found in `project.dependencies`") !=
        std::string::npos);
  CHECK(missing.err.find("`pluggy` is an optional dependency (try: `wvlock remove pluggy "
                         "--optional test`)") != std::string::npos);
  // Two names, the second missing: the first is not removed either.
  CHECK(project.wvlock(kNoGpu, "remove idna six").status == 2);
  CHECK(slurp(project.dir + "/pyproject.toml") == before);
  Run group = project.wvlock(kNoGpu, "remove --dev pytest");
  CHECK(group.err.find("could not be found in `dependency-groups.dev`") != std::string::npos);
}

TEST_CASE("cli add/remove: lock and sync into the project's venv", "[cli][edit]") {
  wv::test::ProjectCopy project("ugly", ugly_pyproject());
  Run add = project.wvlock(kNoGpu, "add iniconfig --group lint");
  INFO(add.err);
  REQUIRE(add.status == 0);
  const std::string venv = project.dir + "/.venv";
  CHECK(project.python(venv, "import iniconfig, idna; print('ok')") == "ok\n");
  Run remove = project.wvlock(kNoGpu, "remove iniconfig --group lint");
  INFO(remove.err);
  REQUIRE(remove.status == 0);
  Run gone = shell(project.dir, "'" + venv + "/bin/python' -c 'import iniconfig'");
  CHECK(gone.status != 0);
}

TEST_CASE("cli init: a new project locks and syncs on this machine", "[cli][edit]") {
  wv::test::TempDir tmp;
  const std::string build = std::getenv("WV_BUILD_DIR");
  fs::create_directory_symlink(build + "/fixtures/ecosystem", tmp.path() + "/generated");
  const std::string env = kNoGpu + "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' ";
  const std::string wvlock = env + "'" WVLOCK_BINARY "' ";
  Run init = shell(tmp.path(), wvlock + "init My_App --python '" WV_TEST_PYTHON "'");
  INFO(init.err);
  REQUIRE(init.status == 0);
  const std::string dir = tmp.path() + "/My_App";
  const std::string pyproject = slurp(dir + "/pyproject.toml");
  const std::string minor = wv::test::test_python_minor();
  CHECK(pyproject.find("name = \"my-app\"\nversion = \"0.1.0\"\nrequires-python = \">=" + minor +
                       "\"\ndependencies = []\n") != std::string::npos);
  CHECK(pyproject.find("[[tool.wvlock.target]]\nname = \"host\"\nplatform = \"linux-") !=
        std::string::npos);
  CHECK(pyproject.find("# nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }") !=
        std::string::npos);
  CHECK(slurp(dir + "/.python-version") == minor + "\n");
  CHECK(fs::exists(dir + "/main.py"));
  // Again: refused, nothing replaced.
  Run again = shell(tmp.path(), wvlock + "init My_App");
  CHECK(again.status == 2);
  CHECK(again.err.find("already initialized") != std::string::npos);
  CHECK(slurp(dir + "/pyproject.toml") == pyproject);

  // The fixture index in place of the public one, then lock, add and sync.
  write_text(dir + "/pyproject.toml",
             inserted(pyproject, "\n\n[[tool.wvlock.target]]", "\nindex-url = \"../generated/simple\""));
  Run lock = shell(dir, wvlock + "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  Run add = shell(dir, wvlock + "add 'pluggy'");
  INFO(add.err);
  REQUIRE(add.status == 0);
  CHECK(slurp(dir + "/pyproject.toml").find("dependencies = [\n    \"pluggy>=1.6.0\",\n]\n") !=
        std::string::npos);
  Run imported = shell(dir, "'" + dir + "/.venv/bin/python' -c 'import pluggy; print(1)'");
  CHECK(imported.out == "1\n");

  // --bare: the project table alone; --package: a src package with a build system.
  Run bare = shell(tmp.path(), wvlock + "init bare --bare --python '" WV_TEST_PYTHON "'");
  REQUIRE(bare.status == 0);
  CHECK(slurp(tmp.path() + "/bare/pyproject.toml").find("[tool.wvlock]") == std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path() + "/bare/.python-version"));
  Run package = shell(tmp.path(), wvlock + "init pkg --package --name tool-x --python '" WV_TEST_PYTHON "'");
  REQUIRE(package.status == 0);
  CHECK(slurp(tmp.path() + "/pkg/pyproject.toml").find("[build-system]") != std::string::npos);
  CHECK(fs::exists(tmp.path() + "/pkg/src/tool_x/__init__.py"));
}
