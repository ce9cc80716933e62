// The air-gapped cluster, end to end (docs/guides/clusters.md): a login node locks
// fixtures/example-pytorch over a loopback HTTP index, fetches every target's files into a
// wheelhouse and into a shared cache, and the index is stopped. Three batch nodes, each with
// its own HOME and `--offline`, sync the h100, a100 and cpu builds: one from the wheelhouse
// copied to another path, two from the shared cache at once as another user, who cannot write
// it (root ignores modes, so they run as uid 65534 through setpriv; a non-root run makes the
// cache read-only instead).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"
#include "tests/support/skip.h"

namespace {

using wv::test::ProjectCopy;
using wv::test::Run;

// Detection overrides (tests/cli/pytorch_today_test.cc): every vendor's facts set or emptied.
const std::string kNoNvidia = "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= ";
const std::string kNoAmd = "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= ";
std::string nvidia(const char* driver, const char* capability) {
  return kNoAmd + "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=" + driver +
         " NV_VARIANT_PROVIDER_FORCE_SM_ARCH=" + capability + " ";
}

const char* kTorchVersion =
    "import importlib.metadata as m\n"
    "print(m.version('torch'))\n";

// Every path under `root` with its size and mtime: what "nothing was written" compares.
std::string listing(const std::string& root) {
  std::string out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    struct stat info {};
    ::lstat(entry.path().c_str(), &info);
    out += entry.path().string() + " " + std::to_string(info.st_size) + " " +
           std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + "\n";
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& word) {
  std::size_t found = 0;
  for (std::size_t at = 0; (at = text.find(word, at)) != std::string::npos; at += word.size()) ++found;
  return found;
}

}  // namespace

TEST_CASE("cluster: lock and fetch on the login node, then offline nodes sync from a wheelhouse "
          "and from a read-only shared cache, two at once",
          "[cli][cluster]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  auto server = std::make_unique<wv::test::ServerProcess>(std::vector<std::string>{
      WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
      std::string(build) + "/fixtures/ecosystem/today"});
  REQUIRE(server->ok());
  const std::string base = "http://127.0.0.1:" + std::to_string(server->port());
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  pyproject = std::regex_replace(pyproject, std::regex("\"\\.\\./generated/today"), "\"" + base);
  ProjectCopy project("example-pytorch", pyproject);
  const std::string tmp = project.tmp.path();
  const std::string login_cache = "--cache-dir '" + tmp + "/login-cache' ";
  const std::string shared = tmp + "/shared-cache";
  const std::string wheelhouse = tmp + "/wheelhouse";

  // The login node: lock, a wheelhouse, and the shared cache filled.
  Run lock = project.wvlock("", login_cache + "lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  Run into = project.wvlock("", login_cache + "fetch --into '" + wheelhouse + "'");
  INFO(into.out << into.err);
  REQUIRE(into.status == 0);
  CHECK(into.out.find("for 5 targets (mac, cpu, a100, h100, mi300)") != std::string::npos);
  CHECK(into.out.find("0 already in the cache") != std::string::npos);
  Run sums = wv::test::shell(wheelhouse, "sha256sum --quiet -c SHA256SUMS");
  INFO(sums.out << sums.err);
  CHECK(sums.status == 0);
  Run fill = project.wvlock("", "--cache-dir '" + shared + "' fetch --json");
  INFO(fill.out << fill.err);
  REQUIRE(fill.status == 0);
  nlohmann::json filled = nlohmann::json::parse(fill.out);
  CHECK(filled["targets"].size() == 5);
  CHECK(filled["summary"]["downloaded"] == filled["summary"]["files"]);
  CHECK(filled["error"].is_null());
  // Every torch build of the five targets is among the files, once each.
  std::set<std::string> torches;
  for (const auto& file : filled["files"]) {
    CHECK(file["status"] == "downloaded");
    if (file["package"] == "torch") torches.insert(file["version"].get<std::string>());
  }
  CHECK(torches == std::set<std::string>{"2.9.0", "2.9.0+cpu", "2.9.0+cu128", "2.9.0+rocm6.4"});
  // A second fetch finds everything in the cache and downloads nothing.
  Run again = project.wvlock("", "--cache-dir '" + shared + "' fetch --target h100 --target cpu");
  INFO(again.out << again.err);
  CHECK(again.status == 0);
  CHECK(std::regex_search(again.out, std::regex(": 0 downloaded, [1-9][0-9]* already in the cache")));
  // The site's administrator also syncs the a100 build once, which leaves its wheels unpacked
  // in the shared cache: the a100 node below links (or, refused a hard link to another user's
  // file, copies) from those entries; the cpu node unpacks its wheels from the downloads.
  Run warm = project.wvlock("", "--cache-dir '" + shared + "' sync --target a100 --no-verify-target "
                                "--venv '" + tmp + "/admin-venv'");
  INFO(warm.out << warm.err);
  REQUIRE(warm.status == 0);
  server.reset();  // no network from here on

  // The wheelhouse is carried to another path; the original goes away.
  const std::string carried = tmp + "/elsewhere/wh";
  std::filesystem::create_directories(tmp + "/elsewhere");
  std::filesystem::copy(wheelhouse, carried, std::filesystem::copy_options::recursive);
  std::filesystem::remove_all(wheelhouse);

  // Offline, fetch downloads nothing: it says whether a cache holds every file.
  Run complete = project.wvlock("", "--offline --cache-dir '" + shared + "' fetch --target cpu");
  INFO(complete.out << complete.err);
  CHECK(complete.status == 0);
  Run lacking = project.wvlock("", "--offline --cache-dir '" + tmp + "/empty' fetch --target cpu");
  CHECK(lacking.status == 3);
  CHECK(lacking.err.find("is not in the cache") != std::string::npos);

  // A wheelhouse file of the right name but other bytes is not used: offline with an empty
  // cache, that file is missing.
  const std::string tampered = tmp + "/tampered";
  std::filesystem::copy(carried, tampered, std::filesystem::copy_options::recursive);
  for (const auto& entry : std::filesystem::directory_iterator(tampered)) {
    if (entry.path().filename().string().rfind("tqdm-", 0) == 0) std::ofstream(entry.path()) << "x";
  }
  Run refused = project.wvlock("WVLOCK_CACHE_DIR='" + tmp + "/empty' " + nvidia("12.8", "9.0"),
                               "--offline sync --wheelhouse '" + tampered + "' --venv '" + tmp +
                                   "/venv-tampered'");
  CHECK(refused.status == 3);
  CHECK(std::regex_search(refused.err, std::regex("offline: `[^`]*/tqdm-[^`]*` is not in the cache")));

  // Node 1 (h100): an empty cache of its own, the wheelhouse named by WVLOCK_WHEELHOUSE.
  const std::string h100 = tmp + "/node-h100";
  std::filesystem::create_directories(h100);
  Run node1 = project.wvlock("HOME='" + h100 + "' WVLOCK_CACHE_DIR='" + h100 + "/cache' " +
                                 "WVLOCK_WHEELHOUSE='" + carried + "' " + nvidia("12.8", "9.0"),
                             "--offline sync --venv '" + h100 + "/venv'");
  INFO(node1.out << node1.err);
  REQUIRE(node1.status == 0);
  CHECK(node1.out.find("to target h100") != std::string::npos);
  CHECK(project.python(h100 + "/venv", kTorchVersion) == "2.9.0+cu128\n");
  CHECK_FALSE(std::filesystem::exists(h100 + "/cache/files-v1"));  // nothing was downloaded
  // Without the wheelhouse the same node has nothing to install from.
  Run bare = project.wvlock("HOME='" + h100 + "' WVLOCK_CACHE_DIR='" + tmp + "/empty' " +
                                nvidia("12.8", "9.0"),
                            "--offline sync --reinstall --venv '" + h100 + "/venv2'");
  CHECK(bare.status == 3);
  CHECK(bare.err.find("is not in the cache") != std::string::npos);

  // Nodes 2 and 3 (a100, cpu): the shared cache, as a user who cannot write it, at once.
  const bool root = ::geteuid() == 0;
  if (root && wv::test::shell(tmp, "command -v setpriv").status != 0) {
    WV_SKIP("the other-user nodes need setpriv (util-linux) to drop root");
  }
  const std::string user = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (!root) REQUIRE(wv::test::shell(tmp, "chmod -R a-w '" + shared + "'").status == 0);
  REQUIRE(wv::test::shell(tmp, "chmod a+rx '" + tmp + "' '" + project.dir + "'").status == 0);
  const std::string before = listing(shared);
  struct Node {
    const char* name;
    std::string host;
    const char* torch;
  };
  const Node nodes[] = {{"a100", nvidia("12.8", "8.0"), "2.9.0+cu128"},
                        {"cpu", kNoNvidia + kNoAmd, "2.9.0+cpu"}};
  // The other user may not reach the build folder (under a home folder of mode 0700, as on a
  // fresh machine whose checkout is /root/project): it runs a copy of the binary it can reach.
  std::string binary = WVLOCK_BINARY;
  if (root) {
    binary = tmp + "/wvlock";
    std::filesystem::copy_file(WVLOCK_BINARY, binary);
    std::filesystem::permissions(binary, std::filesystem::perms::owner_all |
                                             std::filesystem::perms::group_read |
                                             std::filesystem::perms::group_exec |
                                             std::filesystem::perms::others_read |
                                             std::filesystem::perms::others_exec);
  }
  std::string both;
  for (const Node& node : nodes) {
    const std::string home = tmp + "/node-" + node.name;
    std::filesystem::create_directories(home);
    if (root) REQUIRE(::chown(home.c_str(), 65534, 65534) == 0);
    both += "( " + user + "env HOME='" + home + "' WVLOCK_CACHE_DIR= " + node.host + "'" +
            binary + "' --offline --cache-dir '" + shared + "' sync --venv '" + home +
            "/venv' --json > '" + home + "/out' 2> '" + home + "/err'; echo $? > '" + home + "/rc' ) & ";
  }
  // Braced: shell() puts `cd DIR &&` in front, which `&` would otherwise take for the first only.
  Run together = wv::test::shell(project.dir, "{ " + both + "wait; }");
  REQUIRE(together.status == 0);
  for (const Node& node : nodes) {
    const std::string home = tmp + "/node-" + node.name;
    const std::string err = wv::test::slurp(home + "/err");
    INFO(node.name << ": " << wv::test::slurp(home + "/out") << err);
    REQUIRE(wv::test::slurp(home + "/rc") == "0\n");
    nlohmann::json synced = nlohmann::json::parse(wv::test::slurp(home + "/out"));
    CHECK(synced["target"]["name"] == node.name);
    // Read from the cache, never written to it: the a100 wheels from the entries the
    // administrator's sync left, the cpu ones unpacked in the environment (numpy, pillow and
    // the like are the same wheels, so it finds some entries too).
    const nlohmann::json& install = synced["install"];
    CHECK(install["extracted"] == 0);
    CHECK(install["cache_hits"].get<int>() > 0);
    // No error, no warning, one note.
    CHECK(count(err, "error") == 0);
    CHECK(count(err, "warning") == 0);
    CHECK(count(err, "is read-only for this user") == 1);
    CHECK(project.python(home + "/venv", kTorchVersion) == std::string(node.torch) + "\n");
    if (std::string(node.name) != "a100") continue;
    CHECK(install["cache_hits"] == synced["packages"].size());
    // The kernel refuses a hard link to another user's file (fs.protected_hardlinks): the
    // entries' files are copied (the cpu node hard-links from its own private extraction).
    if (root && wv::test::slurp("/proc/sys/fs/protected_hardlinks") == "1\n") {
      CHECK(install["files"]["hardlinked"] == 0);
      CHECK(install["files"]["copied"].get<int>() + install["files"]["cloned"].get<int>() > 0);
    }
  }
  // The shared cache is exactly as the login node left it.
  CHECK(listing(shared) == before);
  if (!root) wv::test::shell(tmp, "chmod -R u+w '" + shared + "'");
}

TEST_CASE("cluster: fetch verifies local files in place, copies them into a wheelhouse, and "
          "refuses an unknown target",
          "[cli][cluster]") {
  ProjectCopy project("example");
  Run lock = project.wvlock("", "lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  const std::string house = project.tmp.path() + "/house";
  Run fetch = project.wvlock("", "fetch --target cpu --target CPU --into '" + house + "' --json");
  INFO(fetch.out << fetch.err);
  REQUIRE(fetch.status == 0);
  nlohmann::json document = nlohmann::json::parse(fetch.out);
  CHECK(document["targets"] == nlohmann::json::array({"cpu"}));
  CHECK(document["into"] == house);
  REQUIRE(document["files"].size() > 0);
  CHECK(document["summary"]["local"] == document["summary"]["files"]);
  for (const auto& file : document["files"]) {
    CHECK(file["status"] == "local");
    CHECK(file["path"] == house + "/" + file["name"].get<std::string>());
  }
  Run sums = wv::test::shell(house, "sha256sum --quiet -c SHA256SUMS");
  CHECK(sums.status == 0);
  Run unknown = project.wvlock("", "fetch --target nosuch");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no target named `nosuch`") != std::string::npos);
  Run no_house = project.wvlock("", "sync --wheelhouse '" + house + "/nope' --dry-run");
  CHECK(no_house.status == 2);
  CHECK(no_house.err.find("is not a folder") != std::string::npos);
}
