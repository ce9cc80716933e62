// compare_lockfiles(): what a new lock changes against the previous one, per package name.
#include <catch2/catch.hpp>

#include "lock/lock_changes.h"

namespace {

using wv::lock::ChangeAction;
using wv::lock::LockedPackage;
using wv::lock::Lockfile;
using wv::lock::PackageChange;

Lockfile with(std::vector<std::pair<std::string, std::string>> packages) {
  Lockfile lockfile;
  for (auto& [name, version] : packages) {
    LockedPackage package;
    package.name = name;
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
  project.name = "app";
  project.version = "0.2.0";
  project.is_project = true;
  after.packages.push_back(project);  // the project's own entry is not a change

  auto changes = wv::lock::compare_lockfiles(&before, after);
  // PEP 440 order: 2.10 is newer than 2.9.
  CHECK(changes == std::vector<PackageChange>{
                       {"gone", ChangeAction::kRemoved, "1.0", std::nullopt},
                       {"new", ChangeAction::kAdded, std::nullopt, "0.1"},
                       {"numpy", ChangeAction::kUpgraded, "2.9", "2.10"},
                       {"requests", ChangeAction::kDowngraded, "2.32.3", "2.31.0"},
                   });
  CHECK(std::string(to_string(ChangeAction::kDowngraded)) == "downgraded");
  CHECK(wv::lock::compare_lockfiles(&after, after).empty());
}

TEST_CASE("lock changes: no previous lock adds everything, several versions pair up by version",
          "[lock][changes]") {
  Lockfile after = with({{"a", "1.0"}, {"b", "2.0"}});
  auto first = wv::lock::compare_lockfiles(nullptr, after);
  CHECK(first == std::vector<PackageChange>{{"a", ChangeAction::kAdded, std::nullopt, "1.0"},
                                            {"b", ChangeAction::kAdded, std::nullopt, "2.0"}});
  // torch at two versions (two targets) before, one after: the version that left is removed.
  Lockfile split = with({{"torch", "2.8.0"}, {"torch", "2.9.0"}});
  Lockfile merged = with({{"torch", "2.9.0"}});
  CHECK(wv::lock::compare_lockfiles(&split, merged) ==
        std::vector<PackageChange>{{"torch", ChangeAction::kRemoved, "2.8.0", std::nullopt}});
  CHECK(wv::lock::compare_lockfiles(&merged, split) ==
        std::vector<PackageChange>{{"torch", ChangeAction::kAdded, std::nullopt, "2.8.0"}});
}
