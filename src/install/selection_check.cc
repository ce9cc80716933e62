// check_selection: one distribution, one name and version.
#include "src/install/selection_check.h"

#include <map>
#include <vector>

#include "src/base/str.h"
#include "src/pkg/name.h"
#include "src/pkg/version.h"
#include "src/pkg/wheel_filename.h"

namespace wv::install {
namespace {

// Two entries of the target (or its chosen wheels) of one normalised name. The closure keeps
// one entry per name and would silently drop the other, so the target's entries are checked,
// not only the chosen wheels.
Result<void> check_one_entry_per_name(const lock::Lockfile& lockfile,
                                      const TargetChoice& selection) {
  std::vector<const lock::LockedPackage*> entries;
  for (const lock::LockedPackage& package : lockfile.packages) {
    if (package.targets.count(selection.target)) entries.push_back(&package);
  }
  for (const ChosenWheel& chosen : selection.wheels) entries.push_back(chosen.package);
  std::map<pkg::PackageName, const lock::LockedPackage*> seen;
  for (const lock::LockedPackage* package : entries) {
    auto [it, fresh] = seen.emplace(package->name, package);
    if (!fresh && it->second != package) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("the plan for target ", in_backticks(selection.target),
                                " installs the distribution ", in_backticks(it->first.str()), " twice (",
                                in_backticks(str_cat(it->second->name, " ", it->second->version)),
                                " and ", in_backticks(str_cat(package->name, " ", package->version)),
                                "); refusing to sync"));
    }
  }
  return {};
}

// The chosen wheel's file name names its entry's distribution and version.
Result<void> check_wheel_name(const ChosenWheel& chosen) {
  const lock::LockedPackage& package = *chosen.package;
  WV_ASSIGN_OR_RETURN(pkg::WheelFilename filename, pkg::parse_wheel_filename(chosen.file->name));
  if (filename.name != package.name) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("inconsistent name: the lock's entry ", in_backticks(package.name.str()),
                              " chooses the wheel ", in_backticks(chosen.file->name),
                              ", which is named ", in_backticks(filename.name.str())));
  }
  Result<pkg::Version> version = pkg::parse_version(package.version);
  if (!version || !(*version == filename.version)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("inconsistent version: the lock's entry ",
                              in_backticks(str_cat(package.name, " ", package.version)),
                              " chooses the wheel ", in_backticks(chosen.file->name),
                              ", which is version ", in_backticks(filename.version.to_string())));
  }
  return {};
}

}  // namespace

Result<void> check_selection(const lock::Lockfile& lockfile, const TargetChoice& selection) {
  WV_TRY(check_one_entry_per_name(lockfile, selection));
  for (const ChosenWheel& chosen : selection.wheels) {
    if (chosen.file == nullptr) continue;  // built here: its wheel is checked when unpacked
    WV_TRY(check_wheel_name(chosen));
  }
  return {};
}

}  // namespace wv::install
