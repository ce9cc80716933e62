#include "src/install/requested.h"

#include "src/pkg/name.h"

namespace wv::install {

std::set<pkg::PackageName> requested_packages(const lock::Lockfile& lockfile,
                                              std::string_view target,
                                              const std::vector<std::string>& groups,
                                              bool with_dependencies, bool with_project) {
  std::set<pkg::PackageName> names;
  const lock::LockedTarget* locked = lockfile.find_target(target);
  if (locked == nullptr) return names;
  // A read lockfile's edges name packages in normal form (lock::validate); nothing else can.
  auto add = [&](const std::vector<std::string>& edges) {
    for (const std::string& edge : edges) {
      if (Result<pkg::PackageName> name = lock::edge_package(edge)) names.insert(std::move(*name));
    }
  };
  if (with_dependencies) {
    add(locked->roots);
    // As Lockfile::closure(): every extra a target declares is installed with it.
    for (const auto& [extra, edges] : locked->extra_roots) add(edges);
  }
  for (const std::string& group : groups) {
    auto it = locked->group_roots.find(group);
    if (it != locked->group_roots.end()) add(it->second);
  }
  if (const lock::LockedPackage* project = lockfile.project(); project && with_project) {
    names.insert(project->name);
  }
  return names;
}

}  // namespace wv::install
