#include "lock/lock_changes.h"

#include <map>
#include <set>

#include "src/pkg/version.h"

namespace wv::lock {
namespace {

// Versions ordered as PEP 440 orders them (text that does not parse sorts first, as text).
struct ByVersion {
  bool operator()(const std::string& a, const std::string& b) const {
    auto x = pkg::parse_version(a);
    auto y = pkg::parse_version(b);
    if (x && y) return *x < *y || (!(*y < *x) && a < b);
    if (x || y) return bool(y);
    return a < b;
  }
};

using VersionSet = std::set<std::string, ByVersion>;
using Versions = std::map<pkg::PackageName, VersionSet>;

Versions versions_of(const Lockfile* lockfile) {
  Versions out;
  if (!lockfile) return out;
  for (const LockedPackage& package : lockfile->packages) {
    if (!package.is_project) out[package.name].insert(package.version);
  }
  return out;
}

}  // namespace

const char* to_string(ChangeAction action) {
  switch (action) {
    case ChangeAction::kAdded: return "added";
    case ChangeAction::kRemoved: return "removed";
    case ChangeAction::kUpgraded: return "upgraded";
    case ChangeAction::kDowngraded: return "downgraded";
  }
  return "added";
}

std::vector<PackageChange> compare_lockfiles(const Lockfile* before, const Lockfile& after) {
  const Versions old_versions = versions_of(before);
  const Versions new_versions = versions_of(&after);
  std::set<pkg::PackageName> names;
  for (const auto& [name, versions] : old_versions) names.insert(name);
  for (const auto& [name, versions] : new_versions) names.insert(name);
  auto list = [](const VersionSet& versions) {
    return std::vector<std::string>(versions.begin(), versions.end());
  };
  static const VersionSet kNone;
  std::vector<PackageChange> changes;
  for (const pkg::PackageName& name : names) {
    auto old_it = old_versions.find(name);
    auto new_it = new_versions.find(name);
    const VersionSet& was = old_it == old_versions.end() ? kNone : old_it->second;
    const VersionSet& now = new_it == new_versions.end() ? kNone : new_it->second;
    if (was == now) continue;
    ChangeAction action = ChangeAction::kAdded;
    if (now.empty()) {
      action = ChangeAction::kRemoved;
    } else if (!was.empty()) {
      const ByVersion older;
      const std::string &was_newest = *was.rbegin(), &now_newest = *now.rbegin();
      const bool newer = older(was_newest, now_newest) ||
                         (!older(now_newest, was_newest) && older(*was.begin(), *now.begin()));
      action = newer ? ChangeAction::kUpgraded : ChangeAction::kDowngraded;
    }
    changes.push_back({name, action, list(was), list(now)});
  }
  return changes;
}

}  // namespace wv::lock
