// Workspaces end to end through the wvlock binary (docs/user-guide.md, "Workspaces"): a virtual
// root with three members (a core library, a trainer with GPU targets, a small service), one
// lock at the root, `sync --package` per member with its closure, `--all-packages`, the member
// the command starts in, editable members, freshness over every member's pyproject.toml, and
// the bad workspaces refused at file:line:column. Real setuptools builds (Debian's wheels in a
// find-links folder) over the generated fixture index, no network.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "tests/cli/cli_support.h"
#include "tests/cli/workspace_tree.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;
using wv::test::write_text;

using wv::test::WorkspaceTree;
using wv::test::has;
using wv::test::member_pyproject;

TEST_CASE("cli workspace: one lock for every member and each member synced with its closure",
          "[cli][workspace][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  WorkspaceTree ws;
  // `lock` started in a member's folder finds the root and writes the one lock there.
  Run lock = ws.wvlock("lock", ws.root + "/packages/service");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  CHECK_FALSE(fs::exists(ws.root + "/packages/service/pylock.toml"));
  const std::string lockfile = slurp(ws.root + "/pylock.toml");
  for (const std::string name : {"core", "service", "trainer"}) {
    INFO(name);
    CHECK(has(lockfile, "name = \"" + name + "\"\ndirectory = { path = \"packages/" + name +
                            "\", editable = true }"));
  }
  CHECK(has(lockfile, "workspace-member = true"));
  CHECK(has(lockfile, "\"packages/core/pyproject.toml\" = \"sha256:"));
  // The trainer's GPU extra is locked where a target declares it: h100, not cpu.
  CHECK(has(lockfile, "name = \"flash-attn\""));
  Run fresh = ws.wvlock("lock --check");
  INFO(fresh.err);
  CHECK(fresh.status == 0);

  const std::string python = "--python '" WV_TEST_PYTHON "'";
  Run service = ws.wvlock("sync --package service " + python);
  INFO(service.err);
  REQUIRE(service.status == 0);
  CHECK(has(service.out, "+ service 0.1.0"));
  CHECK(has(service.out, "+ core 0.1.0"));
  CHECK(has(service.out, "+ requests "));
  CHECK(has(service.out, "+ numpy "));
  CHECK_FALSE(has(service.out, "trainer"));
  CHECK_FALSE(has(service.out, "torch"));
  CHECK(ws.python("import service, core; print(service.VALUE, core.VALUE)").out == "service 1 core 1\n");

  // `--package` takes any spelling of a member's name.
  Run trainer = ws.wvlock("sync --package Trainer");
  INFO(trainer.err);
  REQUIRE(trainer.status == 0);
  CHECK(has(trainer.out, "+ trainer 0.1.0"));
  CHECK(has(trainer.out, "+ torch "));
  CHECK(has(trainer.out, "- service 0.1.0"));
  CHECK(has(trainer.out, "- requests "));
  CHECK_FALSE(has(trainer.out, "core"));  // kept: the trainer needs it too
  CHECK_FALSE(has(trainer.out, "flash-attn"));  // a cpu host: the h100 extra is not its

  Run all = ws.wvlock("sync --all-packages");
  INFO(all.err);
  REQUIRE(all.status == 0);
  CHECK(has(all.out, "+ service 0.1.0"));
  CHECK(has(all.out, "+ requests "));
  CHECK_FALSE(has(all.out, "- "));

  // Editable: an edit to a member shows without a sync.
  write_text(ws.root + "/packages/core/src/core/__init__.py", "VALUE = 'core edited'\n");
  CHECK(ws.python("import core; print(core.VALUE)").out == "core edited\n");

  // Started in a member's folder, sync works on that member, in the root's .venv.
  Run here = ws.wvlock("sync", ws.root + "/packages/service");
  INFO(here.err);
  REQUIRE(here.status == 0);
  CHECK(has(here.out, "- trainer 0.1.0"));
  CHECK(has(here.out, "- torch "));
  CHECK_FALSE(fs::exists(ws.root + "/packages/service/.venv"));

  // At the virtual root, plain sync installs the root's own dependencies: none of the members.
  Run root = ws.wvlock("sync");
  INFO(root.err);
  REQUIRE(root.status == 0);
  CHECK(has(root.out, "- service 0.1.0"));
  CHECK(has(root.out, "- core 0.1.0"));

  // tree --package shows the member's closure; export --package writes it.
  Run tree = ws.wvlock("tree --target cpu --package SERVICE");
  INFO(tree.err);
  CHECK(tree.status == 0);
  CHECK(has(tree.out, "service==0.1.0"));
  CHECK(has(tree.out, "core==0.1.0"));
  CHECK_FALSE(has(tree.out, "torch"));
  Run exported = ws.wvlock("export --target cpu --package Trainer --format requirements");
  INFO(exported.err);
  CHECK(exported.status == 0);
  CHECK(has(exported.out, "torch=="));
  CHECK_FALSE(has(exported.out, "requests=="));

  Run unknown = ws.wvlock("sync --package nope");
  CHECK(unknown.status == 2);
  CHECK(has(unknown.err, "`--package nope` names no package of the workspace: its packages are "
                         "`core`, `service`, `trainer`"));
  // Not a name at all: refused as such, with the position.
  for (const char* command : {"sync --package 'ser vice'", "tree --target cpu --package 'ser vice'",
                              "export --target cpu --package 'ser vice'"}) {
    Run invalid = ws.wvlock(command);
    INFO(command << "\n" << invalid.err);
    CHECK(invalid.status == 2);
    CHECK(has(invalid.err, "error: `--package`: invalid package name `ser vice`: expected ASCII "
                           "letters, digits"));
    CHECK(has(invalid.err, "\n       ^"));
  }

  // A member's pyproject.toml is part of what the lock read.
  write_text(ws.root + "/packages/core/pyproject.toml", member_pyproject("core", "\"numpy>=2\", \"idna\""));
  Run stale = ws.wvlock("lock --check");
  CHECK(stale.status == 1);
  CHECK(has(stale.err, "`packages/core/pyproject.toml` changed since it was written"));
  Run locked = ws.wvlock("sync --locked --package core");
  CHECK(locked.status != 0);
}

TEST_CASE("cli workspace: bad workspaces are refused at file:line:column", "[cli][workspace]") {
  SECTION("a glob that matches nothing") {
    WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/*\", \"libs/*\"]\n");
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "pyproject.toml`:2:26: workspace member glob `libs/*` matches no folder"));
  }
  SECTION("a member folder that is missing") {
    WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/*\", \"tools/cli\"]\n");
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "pyproject.toml`:2:26: workspace member `tools/cli` does not exist"));
  }
  SECTION("a member folder without pyproject.toml") {
    WorkspaceTree ws;
    fs::create_directories(ws.root + "/packages/empty");
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "pyproject.toml`:2:12: workspace member `packages/empty` (matched by "
                       "`packages/*`) has no pyproject.toml"));
  }
  SECTION("a member with the root's name") {
    WorkspaceTree ws("[project]\nname = \"core\"\nversion = \"1.0\"\n"
                     "[tool.wvlock.workspace]\nmembers = [\"packages/*\"]\n");
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "packages/core/pyproject.toml`:5:8: workspace member `packages/core` has "
                       "the workspace root's name `core`"));
  }
  SECTION("two members of one name") {
    WorkspaceTree ws;
    write_text(ws.root + "/packages/zcore/pyproject.toml", member_pyproject("Core", ""));
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "packages/zcore/pyproject.toml`:5:8: two workspace members are named "
                       "`core`: `packages/core` and `packages/zcore`"));
  }
  SECTION("a member whose name is no package name") {
    WorkspaceTree ws;
    write_text(ws.root + "/packages/zcore/pyproject.toml", member_pyproject("z core", ""));
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "packages/zcore/pyproject.toml`:5:8: `[project] name`: invalid package "
                       "name `z core`: expected ASCII letters, digits"));
  }
  SECTION("a workspace dependency on a non-member") {
    WorkspaceTree ws;
    ws.member("service", "\"core\", \"requests\"",
              "[tool.uv.sources]\ncore = { workspace = true }\nrequests = { workspace = true }\n");
    Run run = ws.wvlock("lock");
    CHECK(run.status == 2);
    CHECK(has(run.err, "packages/service/pyproject.toml`:10:12: source of `requests` says "
                       "`workspace = true`, but `requests` is not a workspace member (members: "
                       "`core`, `service`, `trainer`)"));
  }
  SECTION("exclude drops a member") {
    WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/service\"]\n");
    // The service's folder is left out: its sources are not read, its package not locked.
    ws.member("service", "\"core\"", "[tool.uv.sources]\ncore = { workspace = true }\n"
                                     "nothing = { workspace = true }\n");
    Run run = ws.wvlock("lock");
    INFO(run.err);
    CHECK(run.status == 0);
    CHECK_FALSE(has(slurp(ws.root + "/pylock.toml"), "name = \"service\""));
  }
  SECTION("exclude takes `**` for any number of folders") {
    WorkspaceTree ws("[tool.wvlock.workspace]\nmembers = [\"packages/**\"]\n"
                     "exclude = [\"packages/**/legacy\", \"./packages/service/\"]\n");
    write_text(ws.root + "/packages/old/deep/legacy/pyproject.toml", member_pyproject("legacy", ""));
    write_text(ws.root + "/packages/legacy/pyproject.toml", member_pyproject("legacy-top", ""));
    write_text(ws.root + "/packages/old/deep/kept/pyproject.toml", member_pyproject("kept", ""));
    Run run = ws.wvlock("lock");
    INFO(run.err);
    REQUIRE(run.status == 0);
    const std::string lockfile = slurp(ws.root + "/pylock.toml");
    CHECK(has(lockfile, "name = \"kept\""));
    CHECK(has(lockfile, "name = \"trainer\""));
    CHECK_FALSE(has(lockfile, "name = \"legacy\""));      // two folders down
    CHECK_FALSE(has(lockfile, "name = \"legacy-top\""));  // `**` as no folder at all
    CHECK_FALSE(has(lockfile, "name = \"service\""));
  }
}
