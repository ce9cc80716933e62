// Hostile input through the commands: credentials never stored or printed (class 8), a name
// from a lockfile never becomes a path (class 5).
#include <catch2/catch.hpp>

#include <regex>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"

namespace {

using wv::test::ProjectCopy;
using wv::test::Run;

std::string with_indexes(const std::string& base) {
  std::string text = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  return std::regex_replace(text, std::regex("\"\\.\\./generated/today"), "\"" + base);
}

// Every file under `dir`, for a before/after comparison.
std::string listing(const std::string& dir) {
  std::string out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    out += entry.path().string() + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("hostile cli: credentials in an index URL never reach the lock or a message",
          "[cli][hostile]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/net/fault_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem/today", "--chaos",
                                  "0", "--chaos-rate", "0"});
  REQUIRE(server.ok());
  const std::string port = std::to_string(server.port());
  ProjectCopy project("example-pytorch",
                      with_indexes("http://alice:s3cret-pw@127.0.0.1:" + port));
  Run lock = project.wvlock("", "--cache-dir '" + project.tmp.path() + "/cache' lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  const std::string text = project.lockfile();
  CHECK(text.find("s3cret") == std::string::npos);
  CHECK(text.find("alice") == std::string::npos);
  CHECK(text.find("index = \"http://127.0.0.1:" + port + "/whl/cu128\"") != std::string::npos);
  CHECK(lock.err.find("s3cret") == std::string::npos);

  // An index that does not answer: the error names it, masked.
  ProjectCopy down("example-pytorch", with_indexes("http://alice:s3cret-pw@127.0.0.1:1"));
  Run failed = down.wvlock("WVLOCK_HTTP_TIMEOUT=2", "--cache-dir '" + down.tmp.path() + "/cache' lock");
  INFO(failed.err);
  CHECK(failed.status == 3);
  CHECK(failed.err.find("s3cret") == std::string::npos);
  CHECK(failed.err.find("alice") == std::string::npos);
  CHECK(failed.err.find("****@127.0.0.1:1") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(down.dir + "/pylock.toml"));
}

TEST_CASE("hostile cli: a target name read from a lock never becomes a path", "[cli][hostile]") {
  ProjectCopy project("example-pytorch");
  REQUIRE(project.wvlock("", "lock").status == 0);
  const std::string text = project.lockfile();
  const std::string before = listing(project.tmp.path());
  for (const char* name : {"x/../../elsewhere", "../escape", "a/b"}) {
    INFO(name);
    std::ofstream(project.dir + "/pylock.toml")
        << std::regex_replace(text, std::regex("\"cpu\""), std::string("\"") + name + "\"");
    Run exported = project.wvlock("", std::string("export --target '") + name + "'");
    INFO(exported.err);
    CHECK(exported.status == 1);  // an invalid lockfile
    CHECK(exported.err.find("pylock.toml") != std::string::npos);
    std::ofstream(project.dir + "/pylock.toml") << text;
    CHECK(listing(project.tmp.path()) == before);
  }
}
