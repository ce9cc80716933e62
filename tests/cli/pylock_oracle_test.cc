// The lockfile and its exports as a standard PEP 751 installer reads them: packaging 26.4's
// Pylock.select() (../shared/oracles/packaging-26.4, run by tests/cli/pylock_select.py) for each
// target's marker environment and tags, with and without extras and dependency groups, compared
// with wvlock's own closure of that target for the same extras and groups.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "src/base/str.h"
#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"
#include "tests/support/skip.h"
#include "targets/target.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using wv::lock::Lockfile;
using wv::lock::LockedTarget;
using wv::lock::Selection;
using wv::test::ProjectCopy;
using wv::test::Run;

// The reference reader, beside the checkout; nullopt when this machine has none.
std::optional<std::string> packaging_oracle() {
  const fs::path dir = WV_SOURCE_DIR "/../shared/oracles/packaging-26.4";
  std::error_code error;
  if (!fs::exists(dir / "packaging" / "pylock.py", error)) return std::nullopt;
  return fs::canonical(dir, error).string();
}

#define NEED_ORACLE()                                                                         \
  auto oracle = packaging_oracle();                                                           \
  if (!oracle) WV_SKIP("packaging 26.4 not found at " WV_SOURCE_DIR "/../shared/oracles");    \
  if (wv::test::shell("/tmp", "'" WV_TEST_PYTHON "' -c 'import tomllib'").status != 0) {      \
    WV_SKIP(WV_TEST_PYTHON " has no tomllib (Python 3.11 or newer is needed)");               \
  }

// A target as a standard installer is told about it: its marker environment and its tags.
json environment_of(const LockedTarget& target) {
  auto markers = wv::targets::marker_environment(target.declared.profile);
  REQUIRE(markers);
  json environment;
  for (const char* variable :
       {"implementation_name", "implementation_version", "os_name", "platform_machine",
        "platform_python_implementation", "platform_release", "platform_system",
        "platform_version", "python_full_version", "python_version", "sys_platform"}) {
    environment[variable] = std::string(*markers->get(variable));
  }
  return environment;
}

json tags_of(const LockedTarget& target) {
  auto tags = wv::targets::compatible_tags(target.declared.profile);
  REQUIRE(tags);
  json list = json::array();
  for (const wv::pkg::Tag& tag : *tags) list.push_back({tag.interpreter, tag.abi, tag.platform});
  return list;
}

// What packaging's Pylock.select() answers for `lock` (a path in `project`), per selection.
json oracle_select(const ProjectCopy& project, const std::string& oracle, const std::string& lock,
                   const LockedTarget& target, const std::vector<Selection>& selections,
                   bool strip_variant_labels) {
  json request = {{"lock", lock},
                  {"strip_variant_labels", strip_variant_labels},
                  {"environment", environment_of(target)},
                  {"tags", tags_of(target)},
                  {"selections", json::array()}};
  for (const Selection& selection : selections) {
    request["selections"].push_back({{"extras", selection.extras}, {"groups", selection.groups}});
  }
  std::ofstream(project.dir + "/select-request.json") << request.dump();
  Run run = wv::test::shell(project.dir, "PYTHONPATH='" + oracle + "' '" WV_TEST_PYTHON "' '" WV_SOURCE_DIR
                                         "/tests/cli/pylock_select.py' select-request.json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  return json::parse(run.out);
}

std::vector<std::string> closure_of(const Lockfile& lockfile, const std::string& target,
                                    const Selection& selection) {
  std::set<std::string> sorted;
  for (const auto* package : lockfile.selected_closure(target, selection)) {
    sorted.insert(package->name.str() + "==" + package->version);
  }
  return {sorted.begin(), sorted.end()};
}

// No extra or group, each one alone, and all of them together.
std::vector<Selection> selections_of(const LockedTarget& target) {
  std::vector<Selection> selections{{}};
  Selection all;
  for (const auto& [extra, roots] : target.extra_roots) {
    selections.push_back({{extra}, {}});
    all.extras.push_back(extra);
  }
  for (const auto& [group, roots] : target.group_roots) {
    selections.push_back({{}, {group}});
    all.groups.push_back(group);
  }
  selections.push_back(all);
  return selections;
}

std::string describe(const Selection& selection) {
  return "extras [" + wv::join(selection.extras, ",") + "] groups [" + wv::join(selection.groups, ",") + "]";
}

Lockfile locked(const ProjectCopy& project) {
  Run lock = project.wvlock("", "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  auto lockfile = wv::lock::read_lockfile(project.lockfile(), "pylock.toml");
  REQUIRE(lockfile);
  return std::move(*lockfile);
}

// Each target's whole export, selected by the standard reader for every selection, is the
// target's own closure for it; the export names the selectable extras and groups.
void check_exports(const ProjectCopy& project, const std::string& oracle, const Lockfile& lockfile,
                   bool strip_variant_labels) {
  for (const LockedTarget& target : lockfile.targets) {
    const std::string file = "pylock." + target.name + ".toml";
    Run exported = project.wvlock("", "export --target " + target.name + " --output " + file);
    INFO(exported.err);
    REQUIRE(exported.status == 0);
    std::vector<Selection> selections = selections_of(target);
    json answer = oracle_select(project, oracle, file, target, selections, strip_variant_labels);
    INFO(answer.dump());
    REQUIRE(answer.contains("selections"));
    for (std::size_t i = 0; i < selections.size(); ++i) {
      INFO("target " << target.name << ", " << describe(selections[i]));
      REQUIRE(answer["selections"][i].contains("packages"));
      CHECK(answer["selections"][i]["packages"].get<std::vector<std::string>>() ==
            closure_of(lockfile, target.name, selections[i]));
    }
  }
}

const char* kPlainProject = R"([project]
name = "plain"
version = "1.0"
requires-python = ">=3.11"
dependencies = ["requests>=2.32", "tqdm ; sys_platform == 'darwin'"]

[project.optional-dependencies]
socks = ["requests[socks]"]
lint = ["ruff"]

[dependency-groups]
dev = ["pytest>=8"]

[tool.wvlock]
python = "3.11"
index-url = "../generated/simple"

[[tool.wvlock.target]]
name = "mac"
platform = "macos-arm64"
macos = "14.0"
extras = ["socks", "lint"]

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
extras = ["socks"]
)";

}  // namespace

TEST_CASE("pylock oracle: without variant wheels, packaging's select() on the universal lock "
          "and on every export is each target's closure, with and without extras and groups",
          "[cli][pylock][oracle]") {
  NEED_ORACLE();
  ProjectCopy project("plain", kPlainProject);
  Lockfile lockfile = locked(project);
  // One target per platform: the universal lock itself selects per target.
  for (const LockedTarget& target : lockfile.targets) {
    std::vector<Selection> selections = selections_of(target);
    REQUIRE(selections.size() >= 3);
    json answer = oracle_select(project, *oracle, "pylock.toml", target, selections, false);
    INFO(answer.dump());
    REQUIRE(answer.contains("selections"));
    for (std::size_t i = 0; i < selections.size(); ++i) {
      INFO("target " << target.name << ", " << describe(selections[i]));
      REQUIRE(answer["selections"][i].contains("packages"));
      CHECK(answer["selections"][i]["packages"].get<std::vector<std::string>>() ==
            closure_of(lockfile, target.name, selections[i]));
    }
  }
  // The extras and groups do change what is selected (the test would not notice otherwise).
  const LockedTarget& mac = *lockfile.find_target("mac");
  CHECK(closure_of(lockfile, "mac", {}) != closure_of(lockfile, "mac", {{"lint"}, {}}));
  CHECK(closure_of(lockfile, "mac", {}) != closure_of(lockfile, "mac", {{}, {"dev"}}));
  CHECK(mac.extra_roots.count("lint") == 1);
  check_exports(project, *oracle, lockfile, false);
}

TEST_CASE("pylock oracle: the example's variant wheels make packaging refuse the file, and "
          "without their labels its select() on each export is the target's closure, and on the "
          "universal lock the union of the targets of that platform",
          "[cli][pylock][oracle]") {
  NEED_ORACLE();
  ProjectCopy project("example");
  Lockfile lockfile = locked(project);
  // packaging 26.4 parses no PEP 825 label: the whole file is invalid to it.
  json refused = oracle_select(project, *oracle, "pylock.toml", lockfile.targets.front(), {{}}, false);
  REQUIRE(refused.contains("invalid"));
  CHECK(refused["invalid"].get<std::string>().find("Invalid wheel filename") != std::string::npos);
  Run a100 = project.wvlock("", "export --target a100 --output pylock.a100.toml");
  REQUIRE(a100.status == 0);
  CHECK(oracle_select(project, *oracle, "pylock.a100.toml", *lockfile.find_target("a100"), {{}},
                      false)
            .contains("invalid"));

  // Markers alone, the labels dropped: targets that share a platform (cpu, a100, h100, mi300)
  // are one environment to a standard reader, which takes what any of them needs.
  for (const LockedTarget& target : lockfile.targets) {
    std::vector<Selection> selections = selections_of(target);
    json answer = oracle_select(project, *oracle, "pylock.toml", target, selections, true);
    INFO(answer.dump());
    REQUIRE(answer.contains("selections"));
    for (std::size_t i = 0; i < selections.size(); ++i) {
      INFO("target " << target.name << ", " << describe(selections[i]));
      std::set<std::string> expected;
      for (const LockedTarget& other : lockfile.targets) {
        if (other.marker != target.marker) continue;
        for (const std::string& package : closure_of(lockfile, other.name, selections[i])) {
          expected.insert(package);
        }
      }
      REQUIRE(answer["selections"][i].contains("packages"));
      CHECK(answer["selections"][i]["packages"].get<std::vector<std::string>>() ==
            std::vector<std::string>(expected.begin(), expected.end()));
    }
  }
  check_exports(project, *oracle, lockfile, true);
}

TEST_CASE("pylock oracle: size and upload-time from a PEP 691 index, size from a local HTML "
          "one, as packaging reads them", "[cli][pylock][oracle]") {
  NEED_ORACLE();
  ProjectCopy project("files", R"([project]
name = "files"
version = "1.0"
requires-python = ">=3.11"
dependencies = ["tqdm", "idna"]

[tool.wvlock]
python = "3.11"

[[tool.wvlock.index]]
name = "json"
url = "json-index"

[[tool.wvlock.index]]
name = "html"
url = "html-index"

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"
)");
  // tqdm from a JSON page with an upload time and no size, idna from an HTML page (no size).
  const std::string ecosystem = std::string(std::getenv("WV_BUILD_DIR")) + "/fixtures/ecosystem/simple";
  const std::string tqdm = "tqdm-4.67.1-py3-none-any.whl";
  const std::string idna = "idna-3.11-py3-none-any.whl";
  fs::create_directories(project.dir + "/json-index/tqdm");
  fs::create_directories(project.dir + "/html-index/idna");
  fs::copy_file(ecosystem + "/tqdm/" + tqdm, project.dir + "/json-index/tqdm/" + tqdm);
  fs::copy_file(ecosystem + "/idna/" + idna, project.dir + "/html-index/idna/" + idna);
  std::ofstream(project.dir + "/json-index/tqdm/index.json")
      << json{{"meta", {{"api-version", "1.1"}}},
              {"name", "tqdm"},
              {"files", {{{"filename", tqdm}, {"url", tqdm}, {"hashes", json::object()},
                          {"upload-time", "2024-11-24T17:27:28.412+01:00"}}}}}
             .dump();
  std::ofstream(project.dir + "/html-index/idna/index.html")
      << "<a href=\"" << idna << "\">" << idna << "</a>\n";
  Lockfile lockfile = locked(project);
  const std::string text = project.lockfile();
  INFO(text);
  CHECK(text.find("path = \"json-index/tqdm/" + tqdm + "\", size = " +
                  std::to_string(fs::file_size(project.dir + "/json-index/tqdm/" + tqdm)) +
                  ", upload-time = 2024-11-24T16:27:28.412Z, hashes") != std::string::npos);
  CHECK(text.find("path = \"html-index/idna/" + idna + "\", size = " +
                  std::to_string(fs::file_size(project.dir + "/html-index/idna/" + idna)) +
                  ", hashes") != std::string::npos);
  Run export_run = project.wvlock("", "export --target cpu");
  REQUIRE(export_run.status == 0);
  CHECK(wv::test::slurp(project.dir + "/pylock.cpu.toml").find("upload-time = 2024-11-24T16:27:28.412Z") !=
        std::string::npos);

  // packaging takes upload-time only as a datetime: its reader accepts the file and its select()
  // gives the closure.
  std::ofstream(project.dir + "/read.py") << R"(import sys, tomllib
from packaging.pylock import Pylock
lock = Pylock.from_dict(tomllib.load(open(sys.argv[1], "rb")))
for package in lock.packages:
    for wheel in package.wheels or []:
        print(package.name, wheel.size, wheel.upload_time.isoformat() if wheel.upload_time else None)
)";
  for (const char* file : {"pylock.toml", "pylock.cpu.toml"}) {
    Run read = wv::test::shell(project.dir, "PYTHONPATH='" + *oracle + "' '" WV_TEST_PYTHON "' read.py " + file);
    INFO(read.err);
    REQUIRE(read.status == 0);
    CHECK(read.out == "idna " + std::to_string(fs::file_size(project.dir + "/html-index/idna/" + idna)) +
                          " None\ntqdm " +
                          std::to_string(fs::file_size(project.dir + "/json-index/tqdm/" + tqdm)) +
                          " 2024-11-24T16:27:28.412000+00:00\n");
  }
  const LockedTarget& cpu = lockfile.targets.front();
  json answer = oracle_select(project, *oracle, "pylock.toml", cpu, {{}}, false);
  REQUIRE(answer.contains("selections"));
  CHECK(answer["selections"][0]["packages"].get<std::vector<std::string>>() ==
        closure_of(lockfile, "cpu", {}));
}
