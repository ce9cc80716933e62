// PEP 751 package markers: a standard installer keeps a package when its `marker` holds, with
// no graph to walk, so each marker says where some target needs the package and through which
// extras and dependency groups (docs/lockfile.md, "Markers").
#include <set>

#include "src/base/str.h"
#include "lock/lockfile.h"
#include "src/pkg/marker.h"

namespace wv::lock {
namespace {

// How the targets of one platform reach a package: from a root (always), or only through
// these extras and groups.
struct Reach {
  bool always = false;
  std::set<std::string> extras, groups;

  void add(const Reach& other) {
    always = always || other.always;
    extras.insert(other.extras.begin(), other.extras.end());
    groups.insert(other.groups.begin(), other.groups.end());
    if (always) {  // a root reaches it: the extras and groups that also do change nothing
      extras.clear();
      groups.clear();
    }
  }
  friend bool operator==(const Reach&, const Reach&) = default;
};

// package name -> how `target` reaches it.
std::map<pkg::PackageName, Reach> reach_of(const Lockfile& lockfile, const LockedTarget& target) {
  std::map<pkg::PackageName, Reach> reach;
  // Workspace members are roots for an installer that reads the lock as PEP 751 says (the
  // whole workspace); wvlock's sync selects among them (--package, --all-packages).
  std::vector<std::string> roots = target.roots;
  for (std::string& edge : lockfile.member_edges(target.name)) roots.push_back(std::move(edge));
  for (const auto& [name, package] : lockfile.reachable(target.name, roots)) {
    reach[name].always = true;
  }
  for (const auto& [extra, edges] : target.extra_roots) {
    for (const auto& [name, package] : lockfile.reachable(target.name, edges)) {
      reach[name].extras.insert(extra);
    }
  }
  for (const auto& [group, edges] : target.group_roots) {
    for (const auto& [name, package] : lockfile.reachable(target.name, edges)) {
      reach[name].groups.insert(group);
    }
  }
  return reach;
}

// `"x" in extras or "g" in dependency_groups`; the empty marker (always) when a root reaches it.
Result<pkg::Marker> reach_marker(const Reach& reach) {
  pkg::Marker marker;
  if (reach.always) return marker;
  for (const auto& [names, variable] : {std::pair{&reach.extras, "extras"},
                                        std::pair{&reach.groups, "dependency_groups"}}) {
    for (const std::string& name : *names) {
      WV_ASSIGN_OR_RETURN(pkg::Marker clause,
                          pkg::parse_marker(str_cat("\"", name, "\" in ", variable)));
      marker = marker.or_(clause);
    }
  }
  return marker;
}

// A target's platform marker; "" (a target built without one) holds everywhere.
Result<pkg::Marker> parse_target_marker(const std::string& text) {
  if (text.empty()) return pkg::Marker();
  Result<pkg::Marker> marker = pkg::parse_marker(text);
  if (!marker) {
    return std::move(marker).error().with_context(
        str_cat("the target marker ", in_backticks(text)));
  }
  return marker;
}

// The marker of a package its platforms reach as `by_platform` says (platform marker -> way).
Result<std::string> package_marker(const std::map<std::string, Reach>& by_platform,
                                   const std::set<std::string>& all_platforms) {
  // Needed the same way on every platform of the lock: the way alone.
  bool uniform = true;
  std::set<std::string> platforms;
  for (const auto& [platform, way] : by_platform) {
    uniform = uniform && way == by_platform.begin()->second;
    platforms.insert(platform);
  }
  if (uniform && platforms == all_platforms) {
    WV_ASSIGN_OR_RETURN(pkg::Marker marker, reach_marker(by_platform.begin()->second));
    return marker.to_string();
  }
  pkg::Marker marker;
  for (const auto& [platform, way] : by_platform) {
    WV_ASSIGN_OR_RETURN(pkg::Marker where, parse_target_marker(platform));
    WV_ASSIGN_OR_RETURN(pkg::Marker how, reach_marker(way));
    pkg::Marker term = where.and_(how);
    if (term.is_empty()) return std::string();  // holds everywhere (a target without a marker)
    marker = marker.or_(term);
  }
  return marker.to_string();
}

}  // namespace

Result<void> assign_package_markers(Lockfile& lockfile) {
  std::map<std::string, std::map<pkg::PackageName, Reach>> reach;  // target -> package -> reach
  for (const LockedTarget& target : lockfile.targets) {
    reach[target.name] = reach_of(lockfile, target);
  }
  const std::set<std::string> all_platforms(lockfile.environments.begin(),
                                            lockfile.environments.end());
  for (LockedPackage& package : lockfile.packages) {
    std::map<std::string, Reach> by_platform;  // target marker -> how its targets reach it
    for (const LockedTarget& target : lockfile.targets) {
      if (!package.targets.count(target.name)) continue;
      const auto& reached = reach[target.name];
      auto it = reached.find(package.name);
      // Locked for the target yet reached by no root: kept, as the target's table says.
      by_platform[target.marker].add(it == reached.end() ? Reach{true, {}, {}} : it->second);
    }
    package.marker.clear();  // the project, or an entry no target uses, has none
    if (!by_platform.empty()) {
      WV_ASSIGN_OR_RETURN(package.marker, package_marker(by_platform, all_platforms));
    }
  }
  return {};
}

}  // namespace wv::lock
