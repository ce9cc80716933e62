// `VIRTUAL_ENV` as uv treats it: sync and targets use the project's `.venv`; an activated
// environment is used only with `--active`; otherwise a warning in uv's words says it is
// ignored. An unrelated activated venv is left byte for byte as it was (files, contents,
// modification times), though sync is exact and would have emptied it.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::shell;

using wv::test::kNoGpu;

std::string project() {
  return "[project]\nname = \"active\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [\"idna>=3.10\"]\n\n[tool.wvlock]\npython = \"" +
         wv::test::test_python_minor() + "\"\nindex-url = \"../generated/simple\"\n"
         "\n[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
}

// Every entry under `root`: its path, kind, modification time (ns), and a file's bytes or a
// link's target, one entry a line, sorted.
std::string listing(const std::string& root) {
  std::vector<std::string> lines;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    struct stat info {};
    REQUIRE(::lstat(entry.path().c_str(), &info) == 0);
    std::string line = fs::relative(entry.path(), root).string() + " mode=" +
                       std::to_string(info.st_mode) + " mtime=" +
                       std::to_string(info.st_mtim.tv_sec) + "." +
                       std::to_string(info.st_mtim.tv_nsec) + " size=" + std::to_string(info.st_size);
    if (entry.is_symlink()) {
      line += " -> " + fs::read_symlink(entry.path()).string();
    } else if (entry.is_regular_file()) {
      line += " bytes=" + wv::test::slurp(entry.path().string());
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// An unrelated venv with one distribution the project does not lock: an exact sync into it
// would remove that.
std::string unrelated_venv(const std::string& folder) {
  const std::string venv = folder + "/other-venv";
  Run made = shell(folder, "'" WV_TEST_PYTHON "' -m venv --without-pip other-venv");
  REQUIRE(made.status == 0);
  const std::string site =
      venv + "/lib/python" + wv::test::test_python_minor() + "/site-packages/stray-1.0.dist-info";
  fs::create_directories(site);
  std::ofstream(site + "/METADATA") << "Metadata-Version: 2.1\nName: stray\nVersion: 1.0\n";
  std::ofstream(site + "/RECORD") << "stray-1.0.dist-info/METADATA,,\nstray-1.0.dist-info/INSTALLER,,\n"
                                     "stray-1.0.dist-info/RECORD,,\n";
  std::ofstream(site + "/INSTALLER") << "pip\n";
  return venv;
}

}  // namespace

TEST_CASE("cli active venv: an activated unrelated venv is ignored with uv's warning",
          "[cli][sync][active]") {
  wv::test::ProjectCopy copy("active", project());
  REQUIRE(copy.wvlock("", "lock").status == 0);
  const std::string other = unrelated_venv(copy.tmp.path());
  const std::string before = listing(other);
  const std::string warning = "warning: `VIRTUAL_ENV=" + other +
                              "` does not match the project environment path `.venv` and will be "
                              "ignored; use `--active` to target the active environment instead";

  Run sync = copy.wvlock(kNoGpu + "VIRTUAL_ENV='" + other + "'", "sync");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.err.find(warning) != std::string::npos);
  CHECK(listing(other) == before);  // byte for byte, times included
  CHECK(copy.python(copy.dir + "/.venv", "import idna; print('ok')") == "ok\n");

  // targets judges the project's environment too, with the same warning.
  Run targets = copy.wvlock(kNoGpu + "VIRTUAL_ENV='" + other + "'", "targets");
  CHECK(targets.status == 0);
  CHECK(targets.err.find(warning) != std::string::npos);
  // `--no-active`: ignored without a word.
  Run quiet = copy.wvlock(kNoGpu + "VIRTUAL_ENV='" + other + "'", "sync --no-active");
  CHECK(quiet.status == 0);
  CHECK(quiet.err.find("VIRTUAL_ENV") == std::string::npos);
  CHECK(listing(other) == before);

  // The project's own environment activated: no warning.
  Run own = copy.wvlock(kNoGpu + "VIRTUAL_ENV='" + copy.dir + "/.venv'", "sync");
  CHECK(own.status == 0);
  CHECK(own.err.find("warning") == std::string::npos);
}

TEST_CASE("cli active venv: --active syncs the activated environment", "[cli][sync][active]") {
  wv::test::ProjectCopy copy("active", project());
  REQUIRE(copy.wvlock("", "lock").status == 0);
  const std::string other = unrelated_venv(copy.tmp.path());
  Run sync = copy.wvlock(kNoGpu + "VIRTUAL_ENV='" + other + "'", "sync --active --json");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.err.find("warning") == std::string::npos);
  CHECK(copy.python(other, "import idna; print('ok')") == "ok\n");
  CHECK_FALSE(fs::exists(other + "/lib/python" + wv::test::test_python_minor() +
                         "/site-packages/stray-1.0.dist-info"));  // exact: the stray is gone
  CHECK_FALSE(fs::exists(copy.dir + "/.venv"));

  // Without an active environment `--active` changes nothing (uv's rule): the project's.
  Run plain = copy.wvlock(kNoGpu + "VIRTUAL_ENV=", "sync --active");
  CHECK(plain.status == 0);
  CHECK(fs::exists(copy.dir + "/.venv"));
  // `--active` with `--venv` or `--no-active` is a usage error.
  CHECK(copy.wvlock(kNoGpu, "sync --active --venv x").status == 2);
  CHECK(copy.wvlock(kNoGpu, "sync --active --no-active").status == 2);
}
