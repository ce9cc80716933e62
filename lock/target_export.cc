#include "lock/target_export.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::lock {
namespace {

using Roots = std::map<std::string, std::vector<std::string>>;  // extra or group -> its roots

// The named ones, each checked against what the target locked; all of them when none is named.
Result<std::vector<std::string>> chosen(std::string_view kind, const std::string& target,
                                        const Roots& locked,
                                        const std::optional<std::vector<pkg::ExtraName>>& named) {
  std::vector<std::string> all;
  for (const auto& [name, roots] : locked) all.push_back(name);
  if (!named) return all;
  std::vector<std::string> picked;
  for (const pkg::ExtraName& extra : *named) {
    const std::string& name = extra.str();
    picked.push_back(name);
    if (locked.count(name)) continue;
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("target ", in_backticks(target), " did not lock ", kind, " ",
                              in_backticks(name), " (it locked: ",
                              all.empty() ? std::string("none") : join(all, ", "), ")"));
  }
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  return picked;
}

// `roots` with only the selected names kept.
Roots only(const Roots& roots, const std::vector<std::string>& names) {
  Roots kept;
  for (const std::string& name : names) {
    if (auto it = roots.find(name); it != roots.end()) kept.insert(*it);
  }
  return kept;
}

}  // namespace

Result<Selection> export_selection(const LockedTarget& target,
                                   const std::optional<std::vector<pkg::ExtraName>>& extras,
                                   const std::optional<std::vector<pkg::ExtraName>>& groups) {
  Selection selection;
  WV_ASSIGN_OR_RETURN(selection.extras, chosen("extra", target.name, target.extra_roots, extras));
  WV_ASSIGN_OR_RETURN(selection.groups,
                      chosen("dependency group", target.name, target.group_roots, groups));
  return selection;
}

Result<Lockfile> export_target(const Lockfile& lockfile, const LockedTarget& target,
                               const Selection& selection) {
  Lockfile single;
  single.requires_python = lockfile.requires_python;
  single.environments = {target.marker};
  single.extras = selection.extras;
  single.dependency_groups = selection.groups;
  for (const std::string& group : lockfile.default_groups) {
    if (std::find(selection.groups.begin(), selection.groups.end(), group) !=
        selection.groups.end()) {
      single.default_groups.push_back(group);
    }
  }
  LockedTarget narrowed = target;
  narrowed.extra_roots = only(target.extra_roots, selection.extras);
  narrowed.group_roots = only(target.group_roots, selection.groups);
  single.targets = {narrowed};
  for (const LockedPackage* package : lockfile.selected_closure(target.name, selection)) {
    const TargetUse& use = package->targets.at(target.name);
    LockedPackage copy;
    copy.name = package->name;
    copy.version = package->version;
    copy.requires_python = package->requires_python;
    copy.index = package->index;
    for (const std::string& wheel : use.wheels) copy.wheels.push_back(*package->find_wheel(wheel));
    if (use.wheels.empty()) {  // built from its source: the source goes along
      copy.sdist = package->sdist;
      copy.directory = package->directory;
      copy.vcs = package->vcs;
      copy.archive = package->archive;
    }
    copy.variants = package->variants;
    copy.targets[target.name] = use;
    single.packages.push_back(std::move(copy));
  }
  canonicalize(single);
  WV_TRY(assign_package_markers(single));
  // A plain PEP 751 file: the per-target tables served the markers and go no further.
  for (LockedPackage& package : single.packages) package.targets.clear();
  single.targets.clear();
  return single;
}

}  // namespace wv::lock
