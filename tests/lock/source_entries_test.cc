// PEP 751 source trees in the lockfile: `[packages.directory]`, `[packages.vcs]`,
// `[packages.archive]` and the project's own entry. What the writer produces, that it reads
// back, what validate() refuses, and that packaging's PEP 751 reader (the reference) accepts it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/package_name.h"
#include "src/base/file_system.h"
#include "lock/lockfile.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::lock::LockedArchive;
using wv::lock::LockedDirectory;
using wv::lock::LockedPackage;
using wv::lock::LockedVcs;
using wv::lock::Lockfile;

const std::string kHashA(64, 'a');
const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

LockedPackage project_entry() {
  LockedPackage project{.name = "demo-app"_pkg, .version = "0.3.0"};
  project.directory = LockedDirectory{.path = ".", .editable = true};
  project.is_project = true;
  return project;
}

LockedPackage directory_entry() {
  LockedPackage local{.name = "localpkg"_pkg, .version = "1.2"};
  local.directory = LockedDirectory{.path = "../localpkg", .subdirectory = "py"};
  local.targets["cpu"] = {{}, {}};
  return local;
}

LockedPackage vcs_entry() {
  LockedPackage git{.name = "gitpkg"_pkg, .version = "2.0"};
  git.vcs = LockedVcs{.url = "https://github.com/example/gitpkg.git",
                      .requested_revision = "v2.0", .commit_id = kCommit};
  git.targets["cpu"] = {{}, {"localpkg==1.2"}};
  return git;
}

LockedPackage archive_entry() {
  LockedPackage tar{.name = "tarpkg"_pkg, .version = "3.1", .index = "https://files.example/simple"};
  tar.archive = LockedArchive{
      .file = {.name = "tarpkg-3.1.tar.gz", .url = "https://files.example/tarpkg-3.1.tar.gz",
               .size = 1234, .sha256 = kHashA},
      .subdirectory = "src"};
  tar.targets["cpu"] = {{}, {}};
  return tar;
}

LockedPackage wheel_entry() {
  LockedPackage wheel{.name = "wheelpkg"_pkg, .version = "1.0"};
  wheel.wheels.push_back({.name = "wheelpkg-1.0-py3-none-any.whl",
                          .url = "https://files.example/wheelpkg-1.0-py3-none-any.whl",
                          .sha256 = kHashA});
  wheel.targets["cpu"] = {{"wheelpkg-1.0-py3-none-any.whl"}, {}};
  return wheel;
}

// One target `cpu` using a directory, a git and an archive source and a wheel, plus the
// project entry.
Lockfile sources_lockfile() {
  Lockfile lockfile;
  lockfile.environments = {"python_version >= \"3\""};
  lockfile.packages = {wheel_entry(), archive_entry(), vcs_entry(), directory_entry(),
                       project_entry()};
  wv::lock::LockedTarget cpu{.name = "cpu", .marker = "sys_platform == \"linux\""};
  cpu.declared = *wv::targets::target_from_facts("cpu", {{"platform", "linux-x86_64"}});
  cpu.roots = {"gitpkg==2.0", "tarpkg==3.1", "wheelpkg==1.0"};
  lockfile.targets = {cpu};
  return lockfile;
}

LockedPackage& entry(Lockfile& lockfile, std::string_view name) {
  auto it = std::find_if(lockfile.packages.begin(), lockfile.packages.end(),
                         [&](const LockedPackage& package) { return package.name.str() == name; });
  REQUIRE(it != lockfile.packages.end());
  return *it;
}

// The `[[packages]]` block of `name` as written: from its header to the next one.
std::string block_of(const std::string& text, const std::string& name) {
  std::size_t at = text.find("[[packages]]\nname = \"" + name + "\"\n");
  REQUIRE(at != std::string::npos);
  std::size_t end = text.find("\n[[packages]]", at + 1);
  if (end == std::string::npos) end = text.find("\n[tool.wvlock]", at);
  return text.substr(at, end - at);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// validate() refuses `lockfile` with a message naming `package` and holding `words`.
void expect_refused(const Lockfile& lockfile, const std::string& package, const std::string& words) {
  auto valid = wv::lock::validate(lockfile, "pylock.toml");
  REQUIRE_FALSE(valid);
  INFO(valid.error().message);
  CHECK(valid.error().code == wv::ErrorCode::kInvalidLockfile);
  CHECK(valid.error().message.find("`" + package + "`") != std::string::npos);
  CHECK(valid.error().message.find(words) != std::string::npos);
}

}  // namespace

TEST_CASE("source entries: each kind reads back the same model and the same bytes",
          "[lock][sources]") {
  Lockfile lockfile = sources_lockfile();
  REQUIRE(wv::lock::validate(lockfile, "pylock.toml"));
  std::string text = wv::lock::write_lockfile(lockfile);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  INFO(text);
  REQUIRE(read);
  CHECK(wv::lock::write_lockfile(*read) == text);

  const LockedPackage* project = read->project();
  REQUIRE(project);
  CHECK(project->name == "demo-app"_pkg);
  CHECK(project->version == "0.3.0");
  CHECK(project->directory == project_entry().directory);
  CHECK(project->targets.empty());

  const LockedPackage* local = read->find_package_for_target(*wv::pkg::parse_package_name("localpkg"), "cpu");
  REQUIRE(local);
  CHECK(local->version == "1.2");
  CHECK(local->directory == directory_entry().directory);
  CHECK_FALSE(local->is_project);

  const LockedPackage* git = read->find_package_for_target(*wv::pkg::parse_package_name("gitpkg"), "cpu");
  REQUIRE(git);
  CHECK(git->version == "2.0");
  CHECK(git->vcs == vcs_entry().vcs);
  CHECK(git->targets.at("cpu").dependencies == std::vector<std::string>{"localpkg==1.2"});

  const LockedPackage* tar = read->find_package_for_target(*wv::pkg::parse_package_name("tarpkg"), "cpu");
  REQUIRE(tar);
  REQUIRE(tar->archive);
  LockedArchive archive = *tar->archive;
  CHECK(archive.file.line > 0);
  archive.file.line = 0;
  CHECK(archive == *archive_entry().archive);
  CHECK(tar->version == "3.1");
  CHECK(tar->index == "https://files.example/simple");

  // An archive by path derives its name from the path's last component.
  entry(lockfile, "tarpkg").archive->file = {.name = "tarpkg-3.1.zip",
                                             .path = "dist/tarpkg-3.1.zip", .sha256 = kHashA};
  std::string by_path = wv::lock::write_lockfile(lockfile);
  auto read_by_path = wv::lock::read_lockfile(by_path, "pylock.toml");
  REQUIRE(read_by_path);
  CHECK(read_by_path->find_package_for_target(*wv::pkg::parse_package_name("tarpkg"), "cpu")->archive->file.name ==
        "tarpkg-3.1.zip");
  CHECK(wv::lock::write_lockfile(*read_by_path) == by_path);
}

TEST_CASE("source entries: the text written for each kind", "[lock][sources]") {
  std::string text = wv::lock::write_lockfile(sources_lockfile());
  INFO(text);
  // Source trees: no top-level version (PEP 751), the version in the tool table.
  CHECK(block_of(text, "localpkg") ==
        "[[packages]]\n"
        "name = \"localpkg\"\n"
        "directory = { path = \"../localpkg\", subdirectory = \"py\" }\n"
        "\n"
        "[packages.tool.wvlock]\n"
        "version = \"1.2\"\n"
        "\n"
        "[packages.tool.wvlock.targets.cpu]\n"
        "dependencies = []\n"
        "wheels = []\n");
  CHECK(block_of(text, "gitpkg") ==
        "[[packages]]\n"
        "name = \"gitpkg\"\n"
        "vcs = { type = \"git\", url = \"https://github.com/example/gitpkg.git\", "
        "requested-revision = \"v2.0\", commit-id = \"" + kCommit + "\" }\n"
        "\n"
        "[packages.tool.wvlock]\n"
        "version = \"2.0\"\n"
        "\n"
        "[packages.tool.wvlock.targets.cpu]\n"
        "dependencies = [\"localpkg==1.2\"]\n"
        "wheels = []\n");
  // An archive keeps its top-level version and has no `name`.
  CHECK(block_of(text, "tarpkg") ==
        "[[packages]]\n"
        "name = \"tarpkg\"\n"
        "version = \"3.1\"\n"
        "index = \"https://files.example/simple\"\n"
        "archive = { url = \"https://files.example/tarpkg-3.1.tar.gz\", size = 1234, "
        "hashes = { sha256 = \"" + kHashA + "\" }, subdirectory = \"src\" }\n"
        "\n"
        "[packages.tool.wvlock.targets.cpu]\n"
        "dependencies = []\n"
        "wheels = []\n");
  // The project: marked, editable, no per-target tables.
  CHECK(block_of(text, "demo-app") ==
        "[[packages]]\n"
        "name = \"demo-app\"\n"
        "directory = { path = \".\", editable = true }\n"
        "\n"
        "[packages.tool.wvlock]\n"
        "project = true\n"
        "version = \"0.3.0\"\n");

  // A project whose version is dynamic has none at all.
  Lockfile dynamic = sources_lockfile();
  entry(dynamic, "demo-app").version.clear();
  std::string dynamic_text = wv::lock::write_lockfile(dynamic);
  CHECK(block_of(dynamic_text, "demo-app") ==
        "[[packages]]\n"
        "name = \"demo-app\"\n"
        "directory = { path = \".\", editable = true }\n"
        "\n"
        "[packages.tool.wvlock]\n"
        "project = true\n");
  auto read = wv::lock::read_lockfile(dynamic_text, "pylock.toml");
  REQUIRE(read);
  CHECK(read->project()->version.empty());
}

TEST_CASE("source entries: a version is in one place only", "[lock][sources]") {
  std::string text = wv::lock::write_lockfile(sources_lockfile());
  auto top_level = wv::lock::read_lockfile(
      replace_once(text, "name = \"localpkg\"\n", "name = \"localpkg\"\nversion = \"1.2\"\n"),
      "pylock.toml");
  REQUIRE_FALSE(top_level);
  CHECK(top_level.error().message.find("`localpkg`") != std::string::npos);
  CHECK(top_level.error().message.find("no top-level `version`") != std::string::npos);

  std::string tool_version = replace_once(text, "name = \"wheelpkg\"\nversion = \"1.0\"\n",
                                          "name = \"wheelpkg\"\nversion = \"1.0\"\n"
                                          "tool.wvlock.version = \"1.0\"\n");
  auto misplaced = wv::lock::read_lockfile(tool_version, "pylock.toml");
  REQUIRE_FALSE(misplaced);
  CHECK(misplaced.error().message.find("`wheelpkg`") != std::string::npos);
  CHECK(misplaced.error().message.find("for directory and vcs entries") != std::string::npos);

  // Unknown keys in a source table are ignored, as elsewhere in the file.
  auto unknown = wv::lock::read_lockfile(
      replace_once(text, "{ path = \"../localpkg\",", "{ path = \"../localpkg\", x-note = 1,"),
      "pylock.toml");
  REQUIRE(unknown);
  CHECK(wv::lock::write_lockfile(*unknown) == text);
}

TEST_CASE("source entries: one source kind per entry", "[lock][sources]") {
  Lockfile mixed = sources_lockfile();
  entry(mixed, "localpkg").wheels = wheel_entry().wheels;
  expect_refused(mixed, "localpkg", "mixes wheels or an sdist with");

  Lockfile two = sources_lockfile();
  entry(two, "gitpkg").directory = LockedDirectory{.path = "../gitpkg"};
  expect_refused(two, "gitpkg", "more than one of `directory`, `vcs` and `archive`");

  Lockfile none = sources_lockfile();
  entry(none, "localpkg").directory.reset();
  expect_refused(none, "localpkg", "lists no wheel, sdist, directory, vcs or archive");
}

TEST_CASE("source entries: versions", "[lock][sources]") {
  Lockfile directory = sources_lockfile();
  entry(directory, "localpkg").version.clear();
  expect_refused(directory, "localpkg", "`[packages.tool.wvlock] version`");

  Lockfile archive = sources_lockfile();
  entry(archive, "tarpkg").version.clear();
  expect_refused(archive, "tarpkg", "has no `version`");

  Lockfile project = sources_lockfile();
  entry(project, "demo-app").version.clear();
  CHECK(wv::lock::validate(project, "pylock.toml"));
}

TEST_CASE("source entries: vcs", "[lock][sources]") {
  Lockfile hg = sources_lockfile();
  entry(hg, "gitpkg").vcs->type = "hg";
  expect_refused(hg, "gitpkg", "only `git`");

  Lockfile no_url = sources_lockfile();
  entry(no_url, "gitpkg").vcs->url.clear();
  expect_refused(no_url, "gitpkg", "`vcs.url`");

  Lockfile password = sources_lockfile();
  entry(password, "gitpkg").vcs->url = "https://user:hunter2@github.com/example/gitpkg.git";
  expect_refused(password, "gitpkg", "credentials");
  CHECK(wv::lock::validate(password, "pylock.toml").error().message.find("hunter2") ==
        std::string::npos);

  Lockfile token = sources_lockfile();
  entry(token, "gitpkg").vcs->url = "https://ghp_secret@github.com/example/gitpkg.git";
  expect_refused(token, "gitpkg", "credentials");

  // An ssh user name is no secret.
  Lockfile ssh = sources_lockfile();
  entry(ssh, "gitpkg").vcs->url = "ssh://git@github.com/example/gitpkg.git";
  CHECK(wv::lock::validate(ssh, "pylock.toml"));

  for (std::string commit : {kCommit.substr(0, 12), std::string(40, 'A'), kCommit + "0"}) {
    INFO(commit);
    Lockfile short_commit = sources_lockfile();
    entry(short_commit, "gitpkg").vcs->commit_id = commit;
    expect_refused(short_commit, "gitpkg", "40 lower-case hex digits");
  }

  Lockfile escape = sources_lockfile();
  entry(escape, "gitpkg").vcs->subdirectory = "pkg/../../outside";
  expect_refused(escape, "gitpkg", "`vcs.subdirectory`");
}

TEST_CASE("source entries: directory", "[lock][sources]") {
  Lockfile empty = sources_lockfile();
  entry(empty, "localpkg").directory->path.clear();
  expect_refused(empty, "localpkg", "`directory.path`");

  Lockfile nul = sources_lockfile();
  entry(nul, "localpkg").directory->path = std::string("../local\0pkg", 12);
  expect_refused(nul, "localpkg", "`directory.path`");

  Lockfile absolute = sources_lockfile();
  entry(absolute, "localpkg").directory->path = "/srv/src/localpkg";
  CHECK(wv::lock::validate(absolute, "pylock.toml"));

  for (const char* subdirectory : {"..", "py/../..", "/etc", "C:\\py"}) {
    INFO(subdirectory);
    Lockfile outside = sources_lockfile();
    entry(outside, "localpkg").directory->subdirectory = subdirectory;
    expect_refused(outside, "localpkg", "`directory.subdirectory`");
  }
}

TEST_CASE("source entries: archive", "[lock][sources]") {
  Lockfile both = sources_lockfile();
  entry(both, "tarpkg").archive->file.path = "dist/tarpkg-3.1.tar.gz";
  expect_refused(both, "tarpkg", "expected exactly one of `url` and `path`");

  Lockfile unhashed = sources_lockfile();
  entry(unhashed, "tarpkg").archive->file.sha256.clear();
  expect_refused(unhashed, "tarpkg", "sha256");

  // PEP 751 lets an archive be any source archive: a forge's `main.zip` is valid.
  Lockfile forge = sources_lockfile();
  entry(forge, "tarpkg").archive->file.url = "https://forge.example/org/tarpkg/archive/main.zip";
  entry(forge, "tarpkg").archive->file.name = "main.zip";
  CHECK(wv::lock::validate(forge, "pylock.toml"));

  Lockfile renamed = sources_lockfile();
  entry(renamed, "tarpkg").archive->file.name = "tarpkg-3.1.zip";
  expect_refused(renamed, "tarpkg", "is not the last component of its url or path");

  Lockfile wheel = sources_lockfile();
  entry(wheel, "tarpkg").archive->file = {.name = "tarpkg-3.1-py3-none-any.whl",
                                          .path = "dist/tarpkg-3.1-py3-none-any.whl",
                                          .sha256 = kHashA};
  CHECK(wv::lock::validate(wheel, "pylock.toml"));
}

TEST_CASE("source entries: targets build what has a source", "[lock][sources]") {
  Lockfile nothing = sources_lockfile();
  entry(nothing, "wheelpkg").targets["cpu"].wheels.clear();
  expect_refused(nothing, "wheelpkg", "has no source to build");

  Lockfile unlisted = sources_lockfile();
  entry(unlisted, "localpkg").targets["cpu"].wheels = {"localpkg-1.2-py3-none-any.whl"};
  expect_refused(unlisted, "localpkg 1.2", "not listed in the wheels");
}

TEST_CASE("source entries: the project entry", "[lock][sources]") {
  Lockfile two = sources_lockfile();
  entry(two, "localpkg").is_project = true;
  entry(two, "localpkg").targets.clear();
  expect_refused(two, "localpkg", "at most one project entry");

  Lockfile not_directory = sources_lockfile();
  entry(not_directory, "gitpkg").is_project = true;
  entry(not_directory, "gitpkg").targets.clear();
  entry(not_directory, "localpkg").targets.clear();
  expect_refused(not_directory, "gitpkg", "expected a `directory` entry");

  Lockfile with_targets = sources_lockfile();
  entry(with_targets, "demo-app").targets["cpu"] = {{}, {}};
  expect_refused(with_targets, "demo-app", "no per-target tables");

  Lockfile anywhere = sources_lockfile();
  entry(anywhere, "demo-app").directory->path = "../app";
  CHECK(wv::lock::validate(anywhere, "pylock.toml"));

  Lockfile virtual_project = sources_lockfile();
  virtual_project.packages.pop_back();
  wv::lock::canonicalize(virtual_project);
  CHECK(virtual_project.project() == nullptr);
}

TEST_CASE("source entries: closures reach source trees, never the project", "[lock][sources]") {
  auto read = wv::lock::read_lockfile(wv::lock::write_lockfile(sources_lockfile()), "pylock.toml");
  REQUIRE(read);
  std::vector<std::string> names;
  for (const LockedPackage* package : read->closure("cpu", {}, {})) names.push_back(package->name.str());
  CHECK(names == std::vector<std::string>{"gitpkg", "localpkg", "tarpkg", "wheelpkg"});
  names.clear();
  for (const LockedPackage* package : read->closure("cpu")) names.push_back(package->name.str());
  CHECK(names == std::vector<std::string>{"gitpkg", "localpkg", "tarpkg", "wheelpkg"});
  CHECK(read->find_package_for_target(*wv::pkg::parse_package_name("demo-app"), "cpu") == nullptr);
}

TEST_CASE("source entries: packaging's PEP 751 reader accepts what wvlock writes",
          "[lock][sources]") {
  const std::string oracle = std::string(WV_SOURCE_DIR) + "/../shared/oracles/packaging-26.4";
  if (!std::filesystem::exists(oracle + "/packaging/pylock.py")) {
    std::printf("skipped: packaging 26.4 not found at %s\n", oracle.c_str());
    return;
  }
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("pylock.toml"),
                               wv::lock::write_lockfile(sources_lockfile())));
  std::string script = dir.file("check.py");
  std::ofstream(script) << R"(import sys, tomllib
sys.path.insert(0, sys.argv[1])
from packaging.markers import default_environment
from packaging.pylock import Pylock
from packaging.tags import Tag
with open(sys.argv[2], "rb") as f:
    lock = Pylock.from_dict(tomllib.load(f))
lock.validate()
kinds = {p.name: [k for k in ("directory", "vcs", "archive", "wheels") if getattr(p, k)]
         for p in lock.packages}
assert kinds == {"demo-app": ["directory"], "localpkg": ["directory"], "gitpkg": ["vcs"],
                 "tarpkg": ["archive"], "wheelpkg": ["wheels"]}, kinds
for p in lock.packages:
    assert (p.version is None) == bool(p.directory or p.vcs), (p.name, p.version)
selected = {p.name: type(source).__name__ for p, source in
            lock.select(environment=default_environment(), tags=[Tag("py3", "none", "any")])}
assert selected == {"demo-app": "PackageDirectory", "localpkg": "PackageDirectory",
                    "gitpkg": "PackageVcs", "tarpkg": "PackageArchive",
                    "wheelpkg": "PackageWheel"}, selected
print("ok")
)";
  std::string command = std::string(WV_TEST_PYTHON) + " " + script + " " + oracle + " " +
                        dir.file("pylock.toml") + " > " + dir.file("out.txt") + " 2>&1";
  int status = std::system(command.c_str());
  std::string out = *fs.read_file(dir.file("out.txt"));
  INFO(out);
  CHECK(status == 0);
  CHECK(out == "ok\n");
}
