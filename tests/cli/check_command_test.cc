// `wvlock check` end to end: every file each target would install is verified where sync would
// find it (a path relative to the lock, or the download cache for a url, never the network);
// a missing or changed file and a stale lock exit 1 naming each problem, a file that cannot be
// read exits 3, and `--json` gives the same as data.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

std::string python_minor() { return wv::test::test_python_minor(); }

// A project of `dependencies` (a TOML list's items) locked from `where`.
std::string pyproject(const std::string& dependencies, const std::string& where) {
  return "[project]\nname = \"checked\"\nversion = \"1.0\"\n"
         "dependencies = [" + dependencies + "]\n\n[tool.wvlock]\n" + where +
         "\n\n[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\n"
         "glibc = \"2.28\"\npython = \"" + python_minor() + "\"\n";
}

// requests (and what it needs) as wheels, docopt as an sdist (it has no wheel), from a
// find-links folder `wheels/` that is the project's own copy of the fixture's.
struct LocalProject : wv::test::ProjectCopy {
  LocalProject()
      : ProjectCopy("checked", pyproject("\"requests\", \"docopt\"", "find-links = [\"wheels\"]")) {
    fs::copy(tmp.path() + "/generated/find-links", dir + "/wheels", fs::copy_options::recursive);
    Run lock = run("lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
  }
  Run run(const std::string& arguments) const {
    return wvlock("", "--cache-dir '" + tmp.path() + "/cache' " + arguments);
  }
  nlohmann::json json() const {
    Run check = run("check --json");
    INFO(check.out << check.err);
    return nlohmann::json::parse(check.out);
  }
};

const std::regex kSummary("linux: ([0-9]+) packages, ([0-9]+) of ([0-9]+) files present with "
                          "matching sha256([^\n]*)\n");

}  // namespace

TEST_CASE("cli check: every locked file present with its sha256, or each problem named",
          "[cli][check]") {
  LocalProject project;
  Run ok = project.run("check");
  INFO(ok.out << ok.err);
  CHECK(ok.status == 0);
  std::smatch summary;
  REQUIRE(std::regex_match(ok.out, summary, kSummary));
  CHECK(summary[1] == "6");  // requests, certifi, charset-normalizer, idna, urllib3, docopt
  CHECK(summary[2] == summary[3]);
  CHECK(std::stoi(summary[3]) > 6);  // the kept wheels and docopt's sdist
  CHECK(summary[4] == "");

  nlohmann::json json = project.json();
  CHECK(nlohmann::ordered_json::parse(project.run("check --json").out).begin().key() == "version");
  CHECK(json["version"] == 1);
  CHECK(json["lockfile"] == "pylock.toml");
  CHECK(json["fresh"] == true);
  REQUIRE(json["targets"].size() == 1);
  const nlohmann::json& target = json["targets"][0];
  CHECK(target["name"] == "linux");
  CHECK(target["packages"] == 6);
  CHECK(target["files"]["checked"] == std::stoi(summary[3]));
  CHECK(target["files"]["ok"] == target["files"]["checked"]);
  CHECK(target["files"]["not_downloaded"] == 0);
  CHECK(target["problems"] == nlohmann::json::array());

  const std::string idna = project.dir + "/wheels/idna-3.11-py3-none-any.whl";
  const std::string sdist = project.dir + "/wheels/docopt-0.6.2.tar.gz";
  SECTION("a wheel gone: check exits 1, sync 3 without changing anything") {
    fs::remove(idna);
    Run missing = project.run("check");
    CHECK(missing.status == 1);
    CHECK(missing.err.find("error: target `linux`: `idna-3.11-py3-none-any.whl` is missing: there "
                           "is no file at `" + idna + "`") != std::string::npos);
    Run sync = project.run("sync --python '" WV_TEST_PYTHON "'");
    INFO(sync.out << sync.err);
    CHECK(sync.status == 3);
    CHECK(sync.err.find("`idna-3.11-py3-none-any.whl` is missing") != std::string::npos);
    CHECK_FALSE(fs::exists(project.dir + "/.venv/lib/python" + python_minor() +
                           "/site-packages/requests"));
  }
  SECTION("a wheel gone and an sdist changed: both listed, in text and JSON") {
    fs::remove(idna);
    std::string bytes = slurp(sdist);
    bytes[bytes.size() / 2] ^= 1;
    std::ofstream(sdist, std::ios::binary) << bytes;
    Run bad = project.run("check");
    CHECK(bad.status == 1);
    REQUIRE(std::regex_match(bad.out, summary, kSummary));
    CHECK(std::stoi(summary[2]) == std::stoi(summary[3]) - 2);
    CHECK(summary[4] == ", 2 problems");
    CHECK(bad.err.find("`idna-3.11-py3-none-any.whl` is missing") != std::string::npos);
    CHECK(bad.err.find("hash mismatch for `docopt-0.6.2.tar.gz`") != std::string::npos);
    json = project.json();
    const nlohmann::json& problems = json["targets"][0]["problems"];
    REQUIRE(problems.size() == 2);
    CHECK(problems[0]["package"] == "docopt");
    CHECK(problems[0]["version"] == "0.6.2");
    CHECK(problems[0]["file"] == "docopt-0.6.2.tar.gz");
    CHECK(problems[0]["kind"] == "mismatch");
    CHECK(problems[1]["package"] == "idna");
    CHECK(problems[1]["kind"] == "missing");
    CHECK(problems[1]["problem"].get<std::string>().find("there is no file at") != std::string::npos);
    CHECK(json["targets"][0]["files"]["ok"] == json["targets"][0]["files"]["checked"].get<int>() - 2);
  }
  SECTION("a file that cannot be read: exit 3") {
    fs::remove(idna);
    fs::create_directory(idna);
    Run unreadable = project.run("check");
    CHECK(unreadable.status == 3);
    CHECK(unreadable.err.find("cannot read `idna-3.11-py3-none-any.whl`") != std::string::npos);
  }
  SECTION("a stale lock: exit 1, and the files are still checked") {
    std::string text = slurp(project.dir + "/pyproject.toml");
    text.replace(text.find("\"docopt\""), 8, "\"docopt>=0.6\"");
    std::ofstream(project.dir + "/pyproject.toml") << text;
    Run stale = project.run("check");
    CHECK(stale.status == 1);
    CHECK(stale.err.find("is stale") != std::string::npos);
    CHECK(std::regex_match(stale.out, kSummary));
    json = project.json();
    CHECK(json["fresh"] == false);
    CHECK(json["targets"][0]["files"]["ok"] > 0);
  }
}

TEST_CASE("cli check: a url's file is checked in the download cache, never downloaded",
          "[cli][check][http]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/index/range_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem"});
  REQUIRE(server.ok());
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  // Wheels only: the fixture index's setuptools is not a real build backend.
  wv::test::ProjectCopy project("checked",
                                pyproject("\"requests\"", "index-url = \"" + base + "/simple\""));
  const std::string cache = "--cache-dir '" + project.tmp.path() + "/cache' ";
  Run lock = project.wvlock("", cache + "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  auto requests_served = [&] {
    Run run = shell(project.dir, "'" WV_TEST_PYTHON "' -c \"import json,urllib.request as u;"
                                 "b='" + base + "';print(json.load(u.urlopen(b+'/__stats'))"
                                 "['requests']);u.urlopen(b+'/__reset').read()\"");
    REQUIRE(run.status == 0);
    return std::stol(run.out);
  };
  requests_served();

  Run before = project.wvlock("", cache + "check");
  INFO(before.out << before.err);
  CHECK(before.status == 0);
  std::smatch summary;
  REQUIRE(std::regex_match(before.out, summary, kSummary));
  CHECK(summary[2] == "0");
  CHECK(summary[4] == ", " + summary[3].str() + " not downloaded yet (sync verifies them when it "
                     "downloads them)");
  CHECK(requests_served() == 0);

  Run sync = project.wvlock("", cache + "sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  requests_served();
  Run json_run = project.wvlock("", cache + "check --json");
  CHECK(json_run.status == 0);
  nlohmann::json json = nlohmann::json::parse(json_run.out);
  const nlohmann::json& files = json["targets"][0]["files"];
  // Sync downloaded the files this host installs; the other kept wheels are still remote.
  CHECK(files["ok"] > 0);
  CHECK(files["ok"].get<int>() + files["not_downloaded"].get<int>() == files["checked"].get<int>());
  CHECK(requests_served() == 0);

  // A damaged cached copy is not the file: sync would download it again.
  int damaged = 0;
  for (const auto& entry : fs::recursive_directory_iterator(project.tmp.path() + "/cache/files-v1")) {
    if (!entry.is_regular_file() || damaged > 0) continue;
    std::ofstream(entry.path(), std::ios::app) << "x";
    ++damaged;
  }
  REQUIRE(damaged == 1);
  Run after = project.wvlock("", cache + "check --json");
  CHECK(after.status == 0);
  CHECK(nlohmann::json::parse(after.out)["targets"][0]["files"]["ok"] == files["ok"].get<int>() - 1);
  CHECK(requests_served() == 0);
}

TEST_CASE("cli check: --lockfile checks any PEP 751 lock, without its project",
          "[cli][check][standard]") {
  LocalProject project;
  // An export is a standard lock without wvlock's targets; it moves away from the project.
  fs::create_directories(project.dir + "/exported");
  Run exported = project.run("export --target linux --output exported/pylock.linux.toml");
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  fs::copy(project.dir + "/wheels", project.dir + "/exported/wheels", fs::copy_options::recursive);
  std::string text = slurp(project.dir + "/exported/pylock.linux.toml");
  for (std::size_t at = text.find("../wheels/"); at != std::string::npos; at = text.find("../wheels/")) {
    text.replace(at, 10, "wheels/");
  }
  std::ofstream(project.dir + "/exported/pylock.linux.toml") << text;
  const std::string named = "check --lockfile '" + project.dir + "/exported/pylock.linux.toml'";
  fs::remove(project.dir + "/pyproject.toml");  // no project needed
  Run ok = project.run(named);
  INFO(ok.out << ok.err);
  CHECK(ok.status == 0);
  std::smatch match;
  const std::regex all("all: ([0-9]+) packages, ([0-9]+) of ([0-9]+) files present with matching sha256\n");
  REQUIRE(std::regex_match(ok.out, match, all));
  CHECK(match[2] == match[3]);
  CHECK(std::stoi(match[1]) >= 5);

  Run json = project.run(named + " --json");
  const auto document = nlohmann::json::parse(json.out);
  CHECK(document["fresh"].is_null());
  CHECK(document["targets"][0]["name"] == "all");

  // A changed file is named, exit 1.
  for (const auto& entry : fs::directory_iterator(project.dir + "/exported/wheels")) {
    if (entry.path().filename().string().rfind("idna-", 0) == 0) std::ofstream(entry.path()) << "changed";
  }
  Run changed = project.run(named);
  CHECK(changed.status == 1);
  CHECK(changed.err.find("idna-") != std::string::npos);

  Run wrong = project.run("check --lockfile '" + project.dir + "/exported/other.toml'");
  CHECK(wrong.status == 2);
}
