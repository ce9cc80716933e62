// `add` and `remove` in a workspace (docs/user-guide.md, "Workspaces"): the member a command
// starts in, or `--package NAME`, is the pyproject.toml edited; the one lock is the root's; a
// member added to another gets a `{ workspace = true }` source; a failed lock puts the member's
// file back. Also `**` member globs, and member globs listed through the FileSystem interface.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "src/base/file_system.h"
#include "src/cli/workspace.h"
#include "targets/project_file.h"
#include "tests/cli/cli_support.h"
#include "tests/cli/workspace_tree.h"

namespace fs = std::filesystem;
using wv::test::has;
using wv::test::member_pyproject;
using wv::test::Run;
using wv::test::slurp;
using wv::test::WorkspaceTree;
using wv::test::write_text;

TEST_CASE("cli workspace edit: add and remove in a member's folder edit that member",
          "[cli][workspace][edit]") {
  WorkspaceTree ws;
  const std::string service = ws.root + "/packages/service";
  const std::string root_before = slurp(ws.root + "/pyproject.toml");
  const std::string core_before = slurp(ws.root + "/packages/core/pyproject.toml");
  Run add = ws.wvlock("add colorama --no-sync", service);
  INFO(add.err);
  REQUIRE(add.status == 0);
  const std::string edited = slurp(service + "/pyproject.toml");
  CHECK(has(edited, "\"colorama>="));
  CHECK(slurp(ws.root + "/pyproject.toml") == root_before);
  CHECK(slurp(ws.root + "/packages/core/pyproject.toml") == core_before);
  CHECK_FALSE(fs::exists(service + "/pylock.toml"));
  CHECK(has(slurp(ws.root + "/pylock.toml"), "name = \"colorama\""));

  Run remove = ws.wvlock("remove colorama --no-sync", service);
  INFO(remove.err);
  REQUIRE(remove.status == 0);
  CHECK_FALSE(has(slurp(service + "/pyproject.toml"), "colorama"));
  CHECK_FALSE(has(slurp(ws.root + "/pylock.toml"), "name = \"colorama\""));
  CHECK(slurp(ws.root + "/pyproject.toml") == root_before);
}

TEST_CASE("cli workspace edit: --package edits that member from anywhere in the workspace",
          "[cli][workspace][edit]") {
  WorkspaceTree ws;
  const std::string root_before = slurp(ws.root + "/pyproject.toml");
  const std::string service_before = slurp(ws.root + "/packages/service/pyproject.toml");
  Run add = ws.wvlock("add --package Core docopt --no-sync");
  INFO(add.err);
  REQUIRE(add.status == 0);
  CHECK(has(slurp(ws.root + "/packages/core/pyproject.toml"), "dependencies = [\"docopt>="));
  CHECK(slurp(ws.root + "/pyproject.toml") == root_before);
  CHECK(has(slurp(ws.root + "/pylock.toml"), "name = \"docopt\""));

  // The flags name the member's own lists.
  Run group = ws.wvlock("add --package core --group lint iniconfig --frozen");
  INFO(group.err);
  REQUIRE(group.status == 0);
  CHECK(has(slurp(ws.root + "/packages/core/pyproject.toml"),
            "[dependency-groups]\nlint = [\n    \"iniconfig\",\n]"));
  CHECK(slurp(ws.root + "/pyproject.toml") == root_before);

  // From another member's folder, --package still names the member edited.
  Run remove = ws.wvlock("remove --package core docopt --frozen", ws.root + "/packages/service");
  INFO(remove.err);
  REQUIRE(remove.status == 0);
  CHECK_FALSE(has(slurp(ws.root + "/packages/core/pyproject.toml"), "docopt"));
  CHECK(slurp(ws.root + "/packages/service/pyproject.toml") == service_before);

  Run unknown = ws.wvlock("add --package nope colorama");
  CHECK(unknown.status == 2);
  CHECK(has(unknown.err, "`--package nope` names no workspace member of"));
  CHECK(has(unknown.err, "(members: `core`, `service`, `trainer`)"));
  CHECK(slurp(ws.root + "/pyproject.toml") == root_before);
}

TEST_CASE("cli workspace edit: adding a member writes a workspace source where the project keeps "
          "its sources", "[cli][workspace][edit]") {
  WorkspaceTree ws;
  SECTION("[tool.uv.sources] when the member has it") {
    Run add = ws.wvlock("add trainer --no-sync", ws.root + "/packages/service");
    INFO(add.err);
    REQUIRE(add.status == 0);
    const std::string text = slurp(ws.root + "/packages/service/pyproject.toml");
    CHECK(has(text, "\"trainer\""));
    CHECK_FALSE(has(text, "trainer>="));  // a member's name goes in bare, as uv writes it
    CHECK(has(text, "[tool.uv.sources]\ncore = { workspace = true }\ntrainer = { workspace = true }\n"));
    CHECK_FALSE(has(text, "tool.wvlock.sources"));
    // Locked: the service's dependency on the trainer is the member's folder.
    CHECK(has(slurp(ws.root + "/pylock.toml"), "name = \"trainer\""));

    Run remove = ws.wvlock("remove trainer --frozen", ws.root + "/packages/service");
    INFO(remove.err);
    REQUIRE(remove.status == 0);
    CHECK_FALSE(has(slurp(ws.root + "/packages/service/pyproject.toml"), "trainer"));
  }
  SECTION("[tool.wvlock.sources] otherwise") {
    Run add = ws.wvlock("add --package core service --frozen");
    INFO(add.err);
    REQUIRE(add.status == 0);
    const std::string text = slurp(ws.root + "/packages/core/pyproject.toml");
    CHECK(has(text, "\"service\""));
    CHECK(has(text, "[tool.wvlock.sources]\nservice = { workspace = true }\n"));
    CHECK_FALSE(has(text, "tool.uv"));
  }
}

TEST_CASE("cli workspace edit: a failed lock puts the member's file and the root lock back",
          "[cli][workspace][edit]") {
  WorkspaceTree ws;
  Run lock = ws.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string member = ws.root + "/packages/core/pyproject.toml";
  const std::string before = slurp(member);
  const std::string lock_before = slurp(ws.root + "/pylock.toml");
  Run add = ws.wvlock("add 'numpy>=99' --no-sync", ws.root + "/packages/core");
  CHECK(add.status == 1);
  CHECK(has(add.err, "is back as it was"));
  CHECK(slurp(member) == before);
  CHECK(slurp(ws.root + "/pylock.toml") == lock_before);
}

TEST_CASE("cli workspace: `**` member globs find nested members with a pyproject.toml",
          "[cli][workspace]") {
  WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/**\"]\n");
  // Folders on the way, and the members' own src/ folders, have no pyproject.toml: not members.
  write_text(ws.root + "/packages/nested/deep/extra/pyproject.toml", member_pyproject("extra", ""));
  fs::create_directories(ws.root + "/packages/empty");
  Run lock = ws.wvlock("lock", ws.root + "/packages/nested/deep/extra");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string lockfile = slurp(ws.root + "/pylock.toml");
  CHECK(has(lockfile, "name = \"extra\"\ndirectory = { path = \"packages/nested/deep/extra\""));
  for (const std::string name : {"core", "service", "trainer"}) {
    CHECK(has(lockfile, "directory = { path = \"packages/" + name + "\""));
  }
  CHECK_FALSE(has(lockfile, "packages/empty"));
  CHECK_FALSE(has(lockfile, "packages/nested\""));

  WorkspaceTree none("[tool.wvlock.workspace]\nmembers = [\"packages/*\", \"libs/**\"]\n");
  fs::create_directories(none.root + "/libs/a/b");
  Run empty = none.wvlock("lock");
  CHECK(empty.status == 2);
  CHECK(has(empty.err, "workspace member glob `libs/**` matches no folder with a pyproject.toml"));
}

namespace {

// Lists every folder but one, as a yanked disk or a folder without read permission would.
class FailingListing : public wv::ForwardingFileSystem {
 public:
  FailingListing(wv::FileSystem& inner, std::string failing)
      : ForwardingFileSystem(inner), failing_(std::move(failing)) {}
  wv::Result<std::vector<wv::DirectoryEntry>> list_directory(const std::string& path) const override {
    if (wv::absolute_path(path) == failing_) {
      return wv::make_error(wv::ErrorCode::kIo, "Input/output error");
    }
    return ForwardingFileSystem::list_directory(path);
  }

 private:
  std::string failing_;
};

}  // namespace

TEST_CASE("cli workspace: a member folder that cannot be listed is an error",
          "[cli][workspace]") {
  WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/*\", \"libs/**\"]\n");
  write_text(ws.root + "/libs/util/pyproject.toml", member_pyproject("util", ""));
  wv::RealFileSystem real;
  const std::string path = ws.root + "/pyproject.toml";
  auto root = wv::targets::parse_project_file(slurp(path), path);
  REQUIRE(root);
  {
    auto loaded = wv::cli::load_workspace(real, *root);
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded);
    CHECK(loaded->members.size() == 4);
  }
  for (const std::string& failing : {ws.root + "/packages", ws.root + "/libs/util"}) {
    INFO(failing);
    FailingListing faulty(real, wv::absolute_path(failing));
    auto loaded = wv::cli::load_workspace(faulty, *root);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().code == wv::ErrorCode::kIo);
    CHECK(has(loaded.error().message, "cannot list `" + wv::absolute_path(failing) +
                                          "` to find workspace members: Input/output error"));
    // Finding the root from a member's folder lists the same folders: the same error.
    auto found = wv::cli::find_workspace(faulty, ws.root + "/libs/util");
    REQUIRE_FALSE(found);
    CHECK(found.error().code == wv::ErrorCode::kIo);
  }
}
