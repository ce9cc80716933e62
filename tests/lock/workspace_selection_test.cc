// Tests for lock/workspace_selection.h and the workspace-member entries of lock/lockfile.h:
// what a selection of members roots each target at, the root project left out when only
// members are named, unknown names and extras refused, and the member flag read back from the
// written file.
#include <catch2/catch.hpp>

#include "lock/lockfile.h"
#include "lock/workspace_selection.h"
#include "tests/support/package_name.h"

namespace wv::lock {
namespace {

LockedPackage member(std::string name, std::vector<std::string> dependencies,
                     std::map<std::string, std::vector<std::string>> extras = {}) {
  LockedPackage package;
  package.name = test::package_name(name);
  package.version = "0.1.0";
  package.directory = LockedDirectory{"packages/" + name, true, ""};
  package.workspace_member = true;
  package.targets["cpu"] = TargetUse{{}, std::move(dependencies), std::move(extras)};
  return package;
}

LockedPackage wheel_package(std::string name) {
  LockedPackage package;
  package.name = test::package_name(name);
  package.version = "1.0";
  package.wheels.push_back({.name = name + "-1.0-py3-none-any.whl",
                            .path = "wheels/" + name + "-1.0-py3-none-any.whl",
                            .sha256 = std::string(64, 'a')});
  package.targets["cpu"] = TargetUse{{name + "-1.0-py3-none-any.whl"}, {}, {}};
  return package;
}

// A package root `app` depending on `requests`; members core (numpy), service (core, idna)
// and trainer (core; extra gpu adds torch).
Lockfile workspace_lock() {
  Lockfile lockfile;
  LockedTarget target;
  target.name = "cpu";
  target.marker = "sys_platform == \"linux\"";
  target.declared = *targets::target_from_facts(
      "cpu", {{"platform", "linux-x86_64"}, {"glibc", "2.28"}, {"python", "3.12"}});
  target.roots = {"requests==1.0"};
  target.group_roots["dev"] = {"pytest==1.0"};
  lockfile.targets.push_back(target);
  LockedPackage app;
  app.name = "app"_pkg;
  app.directory = LockedDirectory{".", true, ""};
  app.is_project = true;
  lockfile.packages = {app,
                       member("core", {"numpy==1.0"}),
                       member("service", {"core==0.1.0", "idna==1.0"}),
                       member("trainer", {"core==0.1.0"}, {{"gpu", {"torch==1.0"}}}),
                       wheel_package("idna"),
                       wheel_package("numpy"),
                       wheel_package("pytest"),
                       wheel_package("requests"),
                       wheel_package("torch")};
  canonicalize(lockfile);
  return lockfile;
}

std::vector<std::string> names(const std::vector<const LockedPackage*>& packages) {
  std::vector<std::string> out;
  for (const LockedPackage* package : packages) out.push_back(package->name.str());
  return out;
}

}  // namespace

TEST_CASE("workspace selection: a member, all members, or the root", "[lock][workspace]") {
  using V = std::vector<std::string>;
  {
    Lockfile lockfile = workspace_lock();
    REQUIRE(select_members(lockfile, MemberSelection{{"service"_pkg}, false, {}}));
    CHECK(names(lockfile.closure("cpu", {}, {"dev"})) == V{"core", "idna", "numpy", "service"});
    CHECK(lockfile.project() == nullptr);  // only members named: the root is not installed
  }
  {
    Lockfile lockfile = workspace_lock();
    REQUIRE(select_members(lockfile, MemberSelection{{"trainer"_pkg}, false, {}}));
    // A member's locked extras are part of its install.
    CHECK(names(lockfile.closure("cpu", {}, {})) == V{"core", "numpy", "torch", "trainer"});
  }
  {
    Lockfile lockfile = workspace_lock();
    REQUIRE(select_members(lockfile, MemberSelection{{}, true, {}}));
    CHECK(names(lockfile.closure("cpu", {}, {"dev"})) ==
          V{"core", "idna", "numpy", "pytest", "requests", "service", "torch", "trainer"});
    CHECK(lockfile.project() != nullptr);
  }
  {
    Lockfile lockfile = workspace_lock();
    REQUIRE(select_members(lockfile, MemberSelection{{"app"_pkg}, false, {}}));  // the root itself
    CHECK(names(lockfile.closure("cpu", {}, {})) == V{"requests"});
    CHECK(lockfile.project() != nullptr);
  }
  {
    Lockfile lockfile = workspace_lock();
    REQUIRE(select_members(lockfile, MemberSelection{}));  // nothing asked: the root's roots
    CHECK(names(lockfile.closure("cpu", {}, {})) == V{"requests"});
  }
}

TEST_CASE("workspace selection: a member is named by any spelling of its name",
          "[lock][workspace]") {
  using V = std::vector<std::string>;
  Lockfile lockfile = workspace_lock();
  // `--package Service` and `--package SERVICE` parse to the member `service`.
  REQUIRE(select_members(lockfile, MemberSelection{{test::package_name("Service")}, false, {}}));
  CHECK(names(lockfile.closure("cpu", {}, {})) == V{"core", "idna", "numpy", "service"});
  Lockfile all = workspace_lock();
  REQUIRE(select_members(all, MemberSelection{{test::package_name("SERVICE"),
                                               test::package_name("Trainer")}, false, {}}));
  CHECK(names(all.closure("cpu", {}, {})) ==
        V{"core", "idna", "numpy", "service", "torch", "trainer"});
}

TEST_CASE("workspace selection: unknown packages and extras are refused", "[lock][workspace]") {
  Lockfile lockfile = workspace_lock();
  Result<void> unknown = select_members(lockfile, MemberSelection{{"nope"_pkg}, false, {}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ErrorCode::kInvalidInput);
  CHECK(unknown.error().message ==
        "`--package nope` names no package of the workspace: its packages are `app`, `core`, "
        "`service`, `trainer`");
  Result<void> extra = select_members(lockfile, MemberSelection{{"service"_pkg}, false, {"gpu"_pkg}});
  REQUIRE_FALSE(extra);
  CHECK(extra.error().message.find("`--extra gpu`: no selected package") == 0);
  CHECK(select_members(lockfile, MemberSelection{{"trainer"_pkg}, false, {"gpu"_pkg}}));
}

TEST_CASE("workspace selection: members are roots for a standard installer and read back",
          "[lock][workspace]") {
  Lockfile lockfile = workspace_lock();
  // pytest is the root's dev group's, and the service's own dependency: a member reaches it,
  // so a standard installer takes it without the group.
  for (LockedPackage& package : lockfile.packages) {
    if (package.name == "service"_pkg) package.targets["cpu"].dependencies.push_back("pytest==1.0");
  }
  REQUIRE(assign_package_markers(lockfile));
  for (const LockedPackage& package : lockfile.packages) {
    INFO(package.name.str());
    if (package.is_project) continue;
    CHECK(package.marker == "sys_platform == \"linux\"");
  }
  const std::string text = write_lockfile(lockfile);
  INFO(text);
  CHECK(text.find("directory = { path = \"packages/core\", editable = true }\n") != std::string::npos);
  CHECK(text.find("version = \"0.1.0\"\nworkspace-member = true\n") != std::string::npos);
  Result<Lockfile> read = read_lockfile(text, "pylock.toml");
  INFO((read ? "" : read.error().message));
  REQUIRE(read);
  CHECK(read->member_edges("cpu") == std::vector<std::string>{"core==0.1.0", "service==0.1.0",
                                                                "trainer==0.1.0",
                                                                "trainer[gpu]==0.1.0"});
}

}  // namespace wv::lock
