// The lock over a loopback simple index that answers with `Cache-Control: max-age` (the
// public index's header): the same lock as over the local index, read with parallel requests;
// a second lock within max-age asks nothing; --refresh and --refresh-package revalidate.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::test::ProjectCopy;
using wv::test::Run;

// One counter of range_server.py's `/__stats` (JSON), read with the test Python; -1 if unread.
long server_counter(const ProjectCopy& project, int port, const std::string& field,
                    bool reset = false) {
  std::string code = "import json,urllib.request as u;b='http://127.0.0.1:" +
                     std::to_string(port) + "';print(json.load(u.urlopen(b+'/__stats'))['" +
                     field + "'])" + (reset ? ";u.urlopen(b+'/__reset').read()" : "");
  Run run = wv::test::shell(project.dir, "'" WV_TEST_PYTHON "' -c \"" + code + "\"");
  return run.status == 0 ? std::atol(run.out.c_str()) : -1;
}

// The lockfile without its input-hash (which covers the index location) and with `from`
// written as `to`.
std::string comparable(std::string text, const std::string& from, const std::string& to) {
  text = std::regex_replace(text, std::regex("\ninput-hash = [^\n]*"), "");
  for (std::size_t at = 0; !from.empty() && (at = text.find(from, at)) != std::string::npos;
       at += to.size()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string with_index(const std::string& url) {
  std::string text = wv::test::slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  return std::regex_replace(text, std::regex("\nindex-url = \"[^\"]*\""),
                            "\nindex-url = \"" + url + "\"");
}

}  // namespace

TEST_CASE("http lock: max-age pages are not asked again, --refresh revalidates, and the lock "
          "is the local index's",
          "[cli][http][freshness]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem", "--max-age",
                                  "600"});
  REQUIRE(server.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/simple";
  ProjectCopy local("example", with_index("../generated/simple"));
  Run reference = local.wvlock("", "-q lock");
  INFO(reference.err);
  REQUIRE(reference.status == 0);

  ProjectCopy remote("example", with_index(url));
  const std::string cache = "--cache-dir '" + remote.tmp.path() + "/cache' ";
  Run cold = remote.wvlock("", cache + "lock");
  INFO(cold.err);
  REQUIRE(cold.status == 0);
  const std::string lock = remote.lockfile();
  // Files of a remote index are `url`s, of a local one `path`s; all else is the same.
  CHECK(comparable(comparable(lock, "url = \"" + url, "path = \"../generated/simple"), url,
                   "../generated/simple") == comparable(local.lockfile(), "", ""));
  // Pages and metadata went out in parallel batches, not one at a time.
  CHECK(server_counter(remote, server.port(), "peak") > 1);
  long pages_and_files = server_counter(remote, server.port(), "requests", true);
  CHECK(pages_and_files > 50);

  Run warm = remote.wvlock("", cache + "lock");
  REQUIRE(warm.status == 0);
  CHECK(remote.lockfile() == lock);
  CHECK(server_counter(remote, server.port(), "requests", true) == 0);

  // --refresh-package asks again for that project's page alone (its files are pinned by
  // hash), --refresh for every page; the server answers 304 and the lock stays the same.
  Run one = remote.wvlock("", cache + "--refresh-package NumPy lock");
  REQUIRE(one.status == 0);
  CHECK(server_counter(remote, server.port(), "not_modified") == 1);
  CHECK(server_counter(remote, server.port(), "requests", true) == 1);
  Run all = remote.wvlock("", cache + "--refresh lock");
  REQUIRE(all.status == 0);
  long revalidated = server_counter(remote, server.port(), "not_modified");
  CHECK(revalidated > 10);
  CHECK(server_counter(remote, server.port(), "requests", true) == revalidated);
  CHECK(remote.lockfile() == lock);

  Run bad = remote.wvlock("", "--refresh-package 'no good' lock");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("`--refresh-package` takes a package name") != std::string::npos);
}

TEST_CASE("http lock: WVLOCK_CONCURRENT_DOWNLOADS bounds the transfers in flight",
          "[cli][http]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem", "--delay-ms", "5"});
  REQUIRE(server.ok());
  ProjectCopy remote("example",
                     with_index("http://127.0.0.1:" + std::to_string(server.port()) + "/simple"));
  Run one = remote.wvlock("WVLOCK_CONCURRENT_DOWNLOADS=1",
                          "--cache-dir '" + remote.tmp.path() + "/one' lock");
  INFO(one.err);
  REQUIRE(one.status == 0);
  CHECK(server_counter(remote, server.port(), "peak", true) == 1);
  Run bad = remote.wvlock("WVLOCK_CONCURRENT_DOWNLOADS=0",
                          "--cache-dir '" + remote.tmp.path() + "/bad' lock");
  REQUIRE(bad.status == 0);
  CHECK(bad.err.find("ignoring `WVLOCK_CONCURRENT_DOWNLOADS=0`: expected a number of transfers "
                     "between 1 and 256") != std::string::npos);
  CHECK(server_counter(remote, server.port(), "peak", true) > 1);
}

TEST_CASE("http lock: a cold lock walks every target's graph in step", "[cli][http][prefetch]") {
  // The example's five targets over an index 20 ms away: the requests arrive in bursts, one
  // per batch (a level of the union of the targets' graphs), not one burst per target and
  // level. range_server.py's --log gives each request's arrival time.
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::TempDir logs;
  const std::string log = logs.path() + "/requests.log";
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem", "--delay-ms", "20",
                                  "--log", log});
  REQUIRE(server.ok());
  ProjectCopy remote("example",
                     with_index("http://127.0.0.1:" + std::to_string(server.port()) + "/simple"));
  Run cold = remote.wvlock("", "--cache-dir '" + remote.tmp.path() + "/cache' lock");
  INFO(cold.err);
  REQUIRE(cold.status == 0);
  std::istringstream lines(wv::test::slurp(log));
  std::vector<double> arrivals;
  for (std::string line; std::getline(lines, line);) arrivals.push_back(std::atof(line.c_str()));
  // A burst ends where no request arrives for more than half a round trip.
  int bursts = 0;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (i == 0 || arrivals[i] - arrivals[i - 1] > 10.0) ++bursts;
  }
  INFO(arrivals.size() << " requests in " << bursts << " bursts");
  // Target after target, the lock made 147 requests in 28 bursts; in step, the same files
  // (no more requests) in about half the bursts.
  CHECK(arrivals.size() <= 147);
  CHECK(bursts <= 20);
}
