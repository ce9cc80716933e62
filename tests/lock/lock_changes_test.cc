// compare_lockfiles(): what a new lock changes against the previous one, per package name.
#include <catch2/catch.hpp>

#include "lock/lock_changes.h"
#include "tests/support/package_name.h"

namespace {

using wv::lock::ChangeAction;
using wv::lock::LockedPackage;
using wv::lock::Lockfile;
using wv::lock::PackageChange;
using Changes = std::vector<PackageChange>;
using V = std::vector<std::string>;

Lockfile with(std::vector<std::pair<std::string, std::string>> packages) {
  Lockfile lockfile;
  for (auto& [name, version] : packages) {
    LockedPackage package;
    package.name = wv::test::package_name(name);
    package.version = version;
    lockfile.packages.push_back(std::move(package));
  }
  return lockfile;
}

}  // namespace

TEST_CASE("lock changes: upgrades, downgrades, additions and removals", "[lock][changes]") {
  Lockfile before = with({{"numpy", "2.9"}, {"requests", "2.32.3"}, {"six", "1.16.0"},
                          {"torch", "2.9.0"}, {"gone", "1.0"}});
  Lockfile after = with({{"numpy", "2.10"}, {"requests", "2.31.0"}, {"six", "1.16.0"},
                         {"torch", "2.9.0"}, {"new", "0.1"}});
  LockedPackage project;
  project.name = "app"_pkg;
  project.version = "0.2.0";
  project.is_project = true;
  after.packages.push_back(project);  // the project's own entry is not a change

  // PEP 440 order: 2.10 is newer than 2.9.
  CHECK(wv::lock::compare_lockfiles(&before, after) ==
        Changes{{"gone"_pkg, ChangeAction::kRemoved, V{"1.0"}, V{}},
                {"new"_pkg, ChangeAction::kAdded, V{}, V{"0.1"}},
                {"numpy"_pkg, ChangeAction::kUpgraded, V{"2.9"}, V{"2.10"}},
                {"requests"_pkg, ChangeAction::kDowngraded, V{"2.32.3"}, V{"2.31.0"}}});
  CHECK(std::string(to_string(ChangeAction::kDowngraded)) == "downgraded");
  CHECK(wv::lock::compare_lockfiles(&after, after).empty());
}

TEST_CASE("lock changes: no previous lock adds everything, several versions are one change",
          "[lock][changes]") {
  Lockfile after = with({{"a", "1.0"}, {"b", "2.0"}});
  CHECK(wv::lock::compare_lockfiles(nullptr, after) ==
        Changes{{"a"_pkg, ChangeAction::kAdded, V{}, V{"1.0"}},
                {"b"_pkg, ChangeAction::kAdded, V{}, V{"2.0"}}});
  // numpy at one version before; after, some targets moved to a newer one, then all of them.
  Lockfile one = with({{"numpy", "2.2.6"}});
  Lockfile two = with({{"numpy", "2.3.3"}, {"numpy", "2.2.6"}});
  Lockfile newest = with({{"numpy", "2.3.3"}});
  CHECK(wv::lock::compare_lockfiles(&one, two) ==
        Changes{{"numpy"_pkg, ChangeAction::kUpgraded, V{"2.2.6"}, V{"2.2.6", "2.3.3"}}});
  CHECK(wv::lock::compare_lockfiles(&two, one) ==
        Changes{{"numpy"_pkg, ChangeAction::kDowngraded, V{"2.2.6", "2.3.3"}, V{"2.2.6"}}});
  CHECK(wv::lock::compare_lockfiles(&two, newest) ==
        Changes{{"numpy"_pkg, ChangeAction::kUpgraded, V{"2.2.6", "2.3.3"}, V{"2.3.3"}}});
}
