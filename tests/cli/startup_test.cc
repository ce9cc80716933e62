// Start-up without the network stack (docs/architecture.md, "Start-up"): libcurl, libcrypto
// and libzip are opened on first use, so a command loads only what it uses. Read from the
// dynamic loader's own report (LD_DEBUG=libs) of the wvlock process.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"

namespace {

using wv::test::kNoGpu;
using wv::test::ProjectCopy;
using wv::test::Run;

// The libraries the first process of an LD_DEBUG=libs report initialised (wvlock's own; its
// subprocesses, such as a Python, report under other process ids), by file name.
std::set<std::string> loaded_by_wvlock(const std::string& report) {
  std::set<std::string> names;
  std::istringstream lines(report);
  std::string line, pid;
  while (std::getline(lines, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string prefix = line.substr(0, colon);
    prefix.erase(0, prefix.find_first_not_of(' '));
    if (prefix.empty() || prefix.find_first_not_of("0123456789") != std::string::npos) continue;
    if (pid.empty()) pid = prefix;
    if (prefix != pid) continue;
    const std::size_t init = line.find("calling init: ");
    if (init == std::string::npos) continue;
    std::string path = line.substr(init + 14);
    names.insert(path.substr(path.rfind('/') + 1));
  }
  return names;
}

bool has(const std::set<std::string>& names, const std::string& stem) {
  for (const std::string& name : names) {
    if (name.rfind(stem, 0) == 0) return true;
  }
  return false;
}

std::string project(const std::string& index) {
  return "[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [\"idna>=3.10\"]\n\n[tool.wvlock]\npython = \"" +
         wv::test::test_python_minor() + "\"\nindex-url = \"" + index +
         "\"\n\n[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
}

}  // namespace

TEST_CASE("cli start-up: offline commands load neither libcurl nor libcrypto, libzip or libisal",
          "[cli][startup]") {
  ProjectCopy copy("app", project("../generated/simple"));
  Run version = copy.wvlock("LD_DEBUG=libs", "version");
  REQUIRE(version.status == 0);
  std::set<std::string> loaded = loaded_by_wvlock(version.err);
  INFO(version.err);
  REQUIRE(has(loaded, "libc.so"));  // the report was read
  CHECK_FALSE(has(loaded, "libcurl"));
  CHECK_FALSE(has(loaded, "libcrypto"));
  CHECK_FALSE(has(loaded, "libzip"));
  CHECK_FALSE(has(loaded, "libisal"));
  CHECK_FALSE(has(loaded, "libstdc++"));
  CHECK_FALSE(has(loaded, "libtomlplusplus"));

  // A lock from a local index reads files: no network stack.
  Run lock = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  CHECK_FALSE(has(loaded_by_wvlock(lock.err), "libcurl"));

  // The first sync hashes and unpacks a wheel from the local index: still no libcurl.
  Run sync = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  loaded = loaded_by_wvlock(sync.err);
  CHECK(has(loaded, "libzip"));
  CHECK_FALSE(has(loaded, "libcurl"));
  // A sync with nothing to do loads none of the three.
  Run again = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "sync");
  INFO(again.err);
  REQUIRE(again.status == 0);
  loaded = loaded_by_wvlock(again.err);
  CHECK_FALSE(has(loaded, "libcurl"));
  CHECK_FALSE(has(loaded, "libcrypto"));
  CHECK_FALSE(has(loaded, "libzip"));
  CHECK_FALSE(has(loaded, "libisal"));
  Run targets = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "targets --frozen");
  INFO(targets.err);
  CHECK(targets.status == 0);
  CHECK_FALSE(has(loaded_by_wvlock(targets.err), "libcurl"));
}

TEST_CASE("cli start-up: a lock over HTTP opens libcurl, an unzipping sync libzip, libisal and libcrypto",
          "[cli][startup]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem"});
  REQUIRE(server.ok());
  ProjectCopy copy("app", project("http://127.0.0.1:" + std::to_string(server.port()) + "/simple"));
  Run lock = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  std::set<std::string> loaded = loaded_by_wvlock(lock.err);
  CHECK(has(loaded, "libcurl"));

  // The wheel comes over HTTP, then is hashed and unpacked (the venv is made first, so its
  // Python's own report is another process's).
  REQUIRE(wv::test::shell(copy.dir, "'" WV_TEST_PYTHON "' -m venv --without-pip .venv").status == 0);
  Run sync = copy.wvlock(kNoGpu + "LD_DEBUG=libs", "sync");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  loaded = loaded_by_wvlock(sync.err);
  CHECK(has(loaded, "libcurl"));
  CHECK(has(loaded, "libcrypto"));
  CHECK(has(loaded, "libzip"));
  CHECK(has(loaded, "libisal"));
}
