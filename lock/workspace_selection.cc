#include "lock/workspace_selection.h"

#include <algorithm>
#include <set>

#include "src/base/str.h"

namespace wv::lock {
namespace {

// `member==version` and `member[extra]==version` for each extra the target locks of it.
void add_member_edges(const Lockfile& lockfile, const LockedTarget& target,
                      const pkg::PackageName& name, std::vector<std::string>& roots) {
  const LockedPackage* package = lockfile.find_package_for_target(name, target.name);
  if (package == nullptr) return;  // a member this target does not use
  roots.push_back(str_cat(name, "==", package->version));
  const TargetUse& use = package->targets.at(target.name);
  for (const auto& [extra, edges] : use.extra_dependencies) {
    roots.push_back(str_cat(name, "[", extra, "]==", package->version));
  }
}

// Whether some named member locks `extra` for some target.
bool locks_extra(const Lockfile& lockfile, const std::vector<pkg::PackageName>& named,
                 const pkg::ExtraName& extra) {
  for (const LockedPackage& package : lockfile.packages) {
    if (std::find(named.begin(), named.end(), package.name) == named.end()) continue;
    for (const auto& [target, use] : package.targets) {
      if (use.extra_dependencies.count(extra.str())) return true;
    }
  }
  return false;
}

}  // namespace

Result<void> select_members(Lockfile& lockfile, const MemberSelection& selection) {
  std::set<pkg::PackageName> members;
  for (const LockedPackage& package : lockfile.packages) {
    if (package.workspace_member) members.insert(package.name);
  }
  const LockedPackage* root = lockfile.project();
  const pkg::PackageName root_name = root ? root->name : pkg::PackageName();
  std::vector<pkg::PackageName> named;
  for (const pkg::PackageName& name : selection.packages) {
    if (name == root_name) continue;
    if (!members.count(name)) {
      std::vector<std::string> known;
      if (!root_name.empty()) known.push_back(root_name.str());
      for (const pkg::PackageName& member : members) known.push_back(member.str());
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("`--package ", name, "` names no package of the workspace",
                                known.empty() ? std::string(" (the lock has no workspace)")
                                              : str_cat(": its packages are ", join_backticked(known))));
    }
    named.push_back(name);
  }
  const bool root_named = !root_name.empty() &&
                          std::find(selection.packages.begin(), selection.packages.end(),
                                    root_name) != selection.packages.end();
  if (!selection.all && named.empty()) return {};
  for (const pkg::ExtraName& extra : selection.extras) {
    if (locks_extra(lockfile, named, extra)) continue;
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("`--extra ", extra, "`: no selected package of the workspace locks "
                              "that extra (a target locks the extras it declares in `extras`)"));
  }
  for (LockedTarget& target : lockfile.targets) {
    std::vector<std::string> roots = selection.all || root_named ? target.roots
                                                                 : std::vector<std::string>{};
    if (!selection.all && !root_named) {
      target.extra_roots.clear();
      target.group_roots.clear();
    }
    const std::vector<pkg::PackageName> chosen =
        selection.all ? std::vector<pkg::PackageName>(members.begin(), members.end()) : named;
    for (const pkg::PackageName& name : chosen) {
      add_member_edges(lockfile, target, name, roots);
    }
    target.roots = std::move(roots);
  }
  if (!selection.all && !root_named) {
    lockfile.packages.erase(std::remove_if(lockfile.packages.begin(), lockfile.packages.end(),
                                           [](const LockedPackage& p) { return p.is_project; }),
                            lockfile.packages.end());
  }
  return {};
}

}  // namespace wv::lock
