// What sync writes into each dist-info beyond the wheel's own files: direct_url.json only for
// what the lock names by location (PEP 610), REQUESTED only for direct requirements, and the one
// verification of a locked file that sync and `wvlock check` share.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "src/install/direct_url.h"
#include "src/install/environment.h"
#include "src/install/plan.h"
#include "src/install/requested.h"
#include "src/install/sync.h"
#include "src/pkg/wheel_filename.h"
#include "tests/support/package_name.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelSpec;

WheelSpec module_wheel(const std::string& name, const std::string& version) {
  WheelSpec spec;
  spec.name = name;
  spec.version = version;
  spec.files = {{name + "/__init__.py", "NAME = '" + name + "'\n"}};
  return spec;
}

lock::LockedPackage entry_of(const lock::LockedFile& file, const std::string& index,
                             std::vector<std::string> dependencies = {}) {
  auto parsed = pkg::parse_wheel_filename(file.name);
  REQUIRE(parsed.has_value());
  lock::LockedPackage package;
  package.name = parsed->name;
  package.version = parsed->version.to_string();
  package.index = index;
  package.wheels = {file};
  package.targets["cpu"].wheels = {file.name};
  package.targets["cpu"].dependencies = std::move(dependencies);
  return package;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// The lock of a small project: `app-dep` (an index wheel) is a root and needs `helper` (a
/// find-links wheel) and `vendored` (a wheel named by path); `devtool` is the root of the `dev`
/// group, `plugin` the root of the target's extra `plugins`.
struct Project {
  test::TempDir dir;
  std::string venv = dir.file("venv");
  std::string wheels = dir.file("wheels");
  lock::Lockfile lockfile;
  LocalWheelStore store{""};

  Project() {
    lock::LockedFile root = test::locked_file(test::build_wheel(module_wheel("app_dep", "1.0"), wheels));
    lock::LockedFile helper = test::locked_file(test::build_wheel(module_wheel("helper", "2.0"), wheels));
    lock::LockedFile vendored =
        test::locked_file(test::build_wheel(module_wheel("vendored", "3.0"), wheels));
    lock::LockedFile devtool = test::locked_file(test::build_wheel(module_wheel("devtool", "4.0"), wheels));
    lock::LockedFile plugin = test::locked_file(test::build_wheel(module_wheel("plugin", "5.0"), wheels));
    lockfile.packages = {
        entry_of(root, "https://index.example/simple", {"helper==2.0", "vendored==3.0"}),
        entry_of(helper, "../wheels"),  // a find-links folder
        entry_of(vendored, ""),         // a path source: no index
        entry_of(devtool, "https://index.example/simple"),
        entry_of(plugin, "https://index.example/simple"),
    };
    lock::LockedTarget target;
    target.name = "cpu";
    target.declared =
        *targets::target_from_facts("cpu", {{"platform", "linux-" + test::machine()}});
    target.roots = {"app-dep==1.0"};
    target.group_roots["dev"] = {"devtool==4.0"};
    target.extra_roots["plugins"] = {"plugin==5.0"};
    lockfile.targets = {target};
    lockfile.dependency_groups = {"dev"};
    lock::canonicalize(lockfile);
    REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  }
  Result<SyncReport> sync_with(std::vector<std::string> groups) {
    SyncOptions options;
    options.venv = venv;
    options.select.groups = std::move(groups);
    return sync(options, lockfile, test::live_host(), store);
  }
  std::string dist_info(const std::string& name, const std::string& version) {
    auto facts = read_interpreter(venv);
    REQUIRE(facts.has_value());
    return venv + "/" + facts->scheme.purelib + "/" + name + "-" + version + ".dist-info";
  }
};

}  // namespace

TEST_CASE("dist-info: direct_url.json only for a wheel the lock names by path, REQUESTED only "
          "for direct requirements", "[install][dist-info]") {
  Project project;
  auto report = project.sync_with({"dev"});
  REQUIRE(report.has_value());
  CHECK(report->plan.count(PlanAction::kInstall) == 5);

  // Index and find-links wheels are installed by name and version: no direct_url.json.
  for (const auto& [name, version] : {std::pair{"app_dep", "1.0"}, {"helper", "2.0"},
                                      {"devtool", "4.0"}, {"plugin", "5.0"}}) {
    INFO(name);
    CHECK(fs::exists(project.dist_info(name, version) + "/INSTALLER"));
    CHECK_FALSE(fs::exists(project.dist_info(name, version) + "/direct_url.json"));
  }
  // The path wheel records its file:// URL and sha256 (archive_info, PEP 610).
  const lock::LockedFile& vendored = project.lockfile.packages[4].wheels.front();
  REQUIRE(vendored.name == "vendored-3.0-py3-none-any.whl");
  auto direct = nlohmann::json::parse(read(project.dist_info("vendored", "3.0") + "/direct_url.json"));
  CHECK(direct["url"] == "file://" + project.wheels + "/vendored-3.0-py3-none-any.whl");
  CHECK(direct["archive_info"]["hashes"]["sha256"] == vendored.sha256);
  CHECK(direct["archive_info"]["hash"] == "sha256=" + vendored.sha256);
  CHECK_FALSE(direct.contains("dir_info"));

  // REQUESTED: the target's root, its extra's root, the installed group's root; not the
  // dependencies they pull in. It is an empty file listed in RECORD.
  for (const auto& [name, version, requested] :
       {std::tuple{"app_dep", "1.0", true}, {"plugin", "5.0", true}, {"devtool", "4.0", true},
        {"helper", "2.0", false}, {"vendored", "3.0", false}}) {
    INFO(name);
    const std::string folder = project.dist_info(name, version);
    CHECK(fs::exists(folder + "/REQUESTED") == requested);
    const bool listed = read(folder + "/RECORD").find(std::string(name) + "-" + version +
                                                      ".dist-info/REQUESTED,") != std::string::npos;
    CHECK(listed == requested);
    if (requested) CHECK(fs::file_size(folder + "/REQUESTED") == 0);
  }
}

TEST_CASE("dist-info: the packages a sync requests", "[install][dist-info]") {
  Project project;
  using Names = std::set<pkg::PackageName>;
  CHECK(requested_packages(project.lockfile, "cpu", {}, true, true) ==
        Names{"app-dep"_pkg, "plugin"_pkg});
  CHECK(requested_packages(project.lockfile, "cpu", {"dev"}, true, true) ==
        Names{"app-dep"_pkg, "devtool"_pkg, "plugin"_pkg});
  CHECK(requested_packages(project.lockfile, "other", {"dev"}, true, true).empty());
  // `--only-group dev`: the group's roots alone.
  CHECK(requested_packages(project.lockfile, "cpu", {"dev"}, false, false) ==
        Names{"devtool"_pkg});
  lock::LockedPackage app;
  app.name = "my-app"_pkg;
  app.is_project = true;
  app.directory = lock::LockedDirectory{".", true, ""};
  project.lockfile.packages.push_back(app);
  CHECK(requested_packages(project.lockfile, "cpu", {}, true, true).count("My_App"_pkg) == 1);
  CHECK(requested_packages(project.lockfile, "cpu", {}, true, false).count("my-app"_pkg) == 0);
}

TEST_CASE("dist-info: an installed `App.Dep` is the lock's `app-dep`", "[install][dist-info]") {
  Project project;
  REQUIRE(project.sync_with({}).has_value());
  // Another installer's spelling of the same distribution: folder and METADATA say `App.Dep`.
  const std::string was = project.dist_info("app_dep", "1.0");
  const std::string now = project.dist_info("App.Dep", "1.0");
  fs::rename(was, now);
  std::string metadata = read(now + "/METADATA");
  const std::size_t at = metadata.find("Name: app_dep\n");
  REQUIRE(at != std::string::npos);
  metadata.replace(at, 14, "Name: App.Dep\n");
  std::ofstream(now + "/METADATA") << metadata;
  auto again = project.sync_with({});
  REQUIRE(again.has_value());
  CHECK(again->plan.count(PlanAction::kInstall) == 0);
  CHECK(again->plan.count(PlanAction::kRemove) == 0);
  CHECK(again->plan.count(PlanAction::kReinstall) == 0);
  CHECK(fs::exists(now));
  CHECK_FALSE(fs::exists(was));
}

TEST_CASE("dist-info: an installed distribution with no valid name goes by its folder",
          "[install][dist-info]") {
  Project project;
  REQUIRE(project.sync_with({}).has_value());
  // Another tool's leftover: METADATA names no valid project, RECORD lists one module.
  const std::string folder = project.dist_info("odd name!", "0.1");
  const std::string site = fs::path(folder).parent_path().string();
  fs::create_directories(folder);
  std::ofstream(folder + "/METADATA") << "Metadata-Version: 2.1\nName: odd name!\nVersion: 0.1\n\n";
  std::ofstream(folder + "/RECORD") << "odd_module.py,,\nodd name!-0.1.dist-info/METADATA,,\n"
                                       "odd name!-0.1.dist-info/RECORD,,\n";
  std::ofstream(site + "/odd_module.py") << "ODD = 1\n";
  auto listed = list_installed(read_interpreter(project.venv)->scheme);
  REQUIRE(listed.has_value());
  auto odd = std::find_if(listed->begin(), listed->end(),
                          [](const InstalledDistribution& d) { return d.folder_name == "odd name!"; });
  REQUIRE(odd != listed->end());
  CHECK_FALSE(odd->name.has_value());
  CHECK(odd->shown_name() == "odd name!");

  auto again = project.sync_with({});
  REQUIRE(again.has_value());
  REQUIRE(again->plan.count(PlanAction::kRemove) == 1);
  auto removed = std::find_if(again->plan.items.begin(), again->plan.items.end(),
                              [](const PlanItem& item) { return item.action == PlanAction::kRemove; });
  CHECK(removed->name.empty());
  CHECK(removed->shown_name() == "odd name!");
  CHECK(render_plan(again->plan, false).find("  - odd name! 0.1\n") != std::string::npos);
  CHECK_FALSE(fs::exists(folder));
  CHECK_FALSE(fs::exists(site + "/odd_module.py"));
  CHECK(again->plan.count(PlanAction::kInstall) == 0);  // the lock's own stay
}

TEST_CASE("dist-info: direct_url.json of every kind of source", "[install][dist-info]") {
  test::TempDir dir;
  SyncOptions options;
  options.lock_dir = dir.path();
  const std::string sha = std::string(64, 'a');
  auto parse = [](const std::string& text) {
    INFO(text);
    REQUIRE_FALSE(text.empty());
    return nlohmann::json::parse(text);
  };

  SECTION("an index wheel or sdist: none") {
    lock::LockedPackage package;
    package.name = "numpy"_pkg;
    package.version = "2.1.0";
    package.index = "https://index.example/simple";
    package.wheels = {lock::LockedFile{"numpy-2.1.0-py3-none-any.whl", "https://x/n.whl", "", 1, sha}};
    CHECK(direct_url_json(package, &package.wheels.front(), "/cache/n.whl", options).empty());
    package.wheels.clear();
    package.sdist = lock::LockedFile{"numpy-2.1.0.tar.gz", "https://x/n.tar.gz", "", 1, sha};
    CHECK(direct_url_json(package, nullptr, "/cache/n.tar.gz", options).empty());
    CHECK_FALSE(is_direct_reference(package));
  }
  SECTION("a wheel by URL records that URL, not the cache's copy") {
    lock::LockedPackage package;
    package.name = "asset"_pkg;
    package.version = "2.0";
    package.wheels = {lock::LockedFile{"asset-2.0-py3-none-any.whl",
                                       "https://example.org/asset-2.0-py3-none-any.whl", "", 1, sha}};
    auto json = parse(direct_url_json(package, &package.wheels.front(), "/cache/files/aa/x", options));
    CHECK(json["url"] == "https://example.org/asset-2.0-py3-none-any.whl");
    CHECK(json["archive_info"]["hashes"]["sha256"] == sha);
  }
  SECTION("git: vcs_info with the full commit and the revision asked for") {
    lock::LockedPackage package;
    package.name = "tool"_pkg;
    package.vcs = lock::LockedVcs{"git", "https://github.com/org/tool.git", "", "v1.2",
                                  std::string(40, 'c'), "py"};
    auto json = parse(direct_url_json(package, nullptr, "", options));
    CHECK(json["url"] == "https://github.com/org/tool.git");
    CHECK(json["vcs_info"] == nlohmann::json{{"vcs", "git"}, {"commit_id", std::string(40, 'c')},
                                             {"requested_revision", "v1.2"}});
    CHECK(json["subdirectory"] == "py");
  }
  SECTION("a local git repository: its absolute file:// URL") {
    lock::LockedPackage package;
    package.name = "tool"_pkg;
    package.vcs = lock::LockedVcs{"git", "", "../repos/my tool", "", std::string(40, 'c'), ""};
    auto json = parse(direct_url_json(package, nullptr, "", options));
    CHECK(json["url"] ==
          "file://" + fs::path(dir.path()).parent_path().generic_string() + "/repos/my%20tool");
    CHECK_FALSE(json["vcs_info"].contains("requested_revision"));
  }
  SECTION("a folder: dir_info, editable unless --no-editable") {
    lock::LockedPackage package;
    package.name = "mylib"_pkg;
    package.directory = lock::LockedDirectory{"mylib/.", true, ""};
    auto json = parse(direct_url_json(package, nullptr, "", options));
    CHECK(json["url"] == "file://" + dir.path() + "/mylib");
    CHECK(json["dir_info"] == nlohmann::json{{"editable", true}});
    options.editable = false;
    CHECK(parse(direct_url_json(package, nullptr, "", options))["dir_info"] == nlohmann::json::object());
  }
  SECTION("a source archive: archive_info with its sha256") {
    lock::LockedPackage package;
    package.name = "tarpkg"_pkg;
    package.version = "3.1";
    package.archive = lock::LockedArchive{
        lock::LockedFile{"tarpkg-3.1.tar.gz", "", "vendor/tarpkg-3.1.tar.gz", 1, sha}, "src"};
    auto json = parse(direct_url_json(package, nullptr, dir.path() + "/vendor/tarpkg-3.1.tar.gz", options));
    CHECK(json["url"] == "file://" + dir.path() + "/vendor/tarpkg-3.1.tar.gz");
    CHECK(json["archive_info"]["hashes"]["sha256"] == sha);
    CHECK(json["subdirectory"] == "src");
  }
}

TEST_CASE("locked files: sync and check find and verify them with one function",
          "[install][dist-info][verify]") {
  test::TempDir dir;
  const std::string wheels = dir.file("wheels");
  lock::LockedFile file = test::locked_file(test::build_wheel(module_wheel("alpha", "1.0"), wheels));
  const std::string relative = "wheels/" + file.name;
  file.path = relative;  // relative to the lockfile's folder, as the lock writes it
  LocalWheelStore store(dir.path());

  SECTION("present and matching") {
    LocatedFile located = store.locate(file);
    CHECK(located.state == FileState::kVerified);
    CHECK(located.path == dir.path() + "/" + relative);
    CHECK(located.problem.empty());
    auto got = store.get(file);
    REQUIRE(got.has_value());
    CHECK(*got == located.path);
  }
  SECTION("missing: check reports it, sync fails with a file system error") {
    fs::remove(dir.path() + "/" + relative);
    LocatedFile located = store.locate(file);
    CHECK(located.state == FileState::kMissing);
    CHECK(located.problem.find("`alpha-1.0-py3-none-any.whl` is missing") != std::string::npos);
    auto got = store.get(file);
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().code == ErrorCode::kIo);
    CHECK(got.error().message == located.problem);
  }
  SECTION("replaced by other bytes of the same size") {
    std::string bytes = read(dir.path() + "/" + relative);
    bytes.back() ^= 1;
    std::ofstream(dir.path() + "/" + relative, std::ios::binary) << bytes;
    LocatedFile located = store.locate(file);
    CHECK(located.state == FileState::kMismatch);
    CHECK(located.problem.find("hash mismatch for `alpha-1.0-py3-none-any.whl`") != std::string::npos);
    auto got = store.get(file);
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().code == ErrorCode::kIntegrity);
  }
  SECTION("truncated") {
    fs::resize_file(dir.path() + "/" + relative, 10);
    CHECK(store.locate(file).state == FileState::kMismatch);
    CHECK(store.locate(file).problem.find("is 10 bytes, the lock says") != std::string::npos);
  }
  SECTION("unreadable (a folder where the file should be)") {
    fs::remove(dir.path() + "/" + relative);
    fs::create_directories(dir.path() + "/" + relative);
    CHECK(store.locate(file).state == FileState::kUnreadable);
    auto got = store.get(file);
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().code == ErrorCode::kIo);
  }
  SECTION("a url: the fallback's answer, never a download") {
    file.path.clear();
    file.url = "https://files.example.org/" + file.name;
    CHECK(store.locate(file).state == FileState::kNotDownloaded);  // no fallback: nothing here
    int downloads = 0;
    CallbackWheelStore network([&](const lock::LockedFile&) -> Result<std::string> {
      ++downloads;
      return make_error(ErrorCode::kNetwork, "no network in this test");
    });
    LocalWheelStore with_network(dir.path(), &network);
    CHECK(with_network.locate(file).state == FileState::kNotDownloaded);
    CHECK(downloads == 0);
  }
}

TEST_CASE("sync: a local wheel the lock names that is gone is a file system error, and nothing "
          "changes", "[install][sync][verify]") {
  Project project;
  REQUIRE(project.sync_with({}).has_value());
  const std::string before = read(project.dist_info("app_dep", "1.0") + "/RECORD");
  // A new wheel the environment lacks, whose file is then removed.
  lock::LockedFile extra = test::locked_file(test::build_wheel(module_wheel("extra", "1.0"), project.wheels));
  project.lockfile.packages.push_back(entry_of(extra, "../wheels"));
  project.lockfile.targets.front().roots.push_back("extra==1.0");
  lock::canonicalize(project.lockfile);
  fs::remove(extra.path);
  auto report = project.sync_with({});
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().code == ErrorCode::kIo);
  CHECK(report.error().message.find("`extra-1.0-py3-none-any.whl` is missing") != std::string::npos);
  CHECK(report.error().to_string().find("nothing was changed") != std::string::npos);
  CHECK(read(project.dist_info("app_dep", "1.0") + "/RECORD") == before);
}

}  // namespace wv::install
