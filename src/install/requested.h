// Which installed distributions get a `REQUESTED` file (PyPA "Recording installed projects":
// the user asked for the project itself, it was not pulled in as a dependency). pip reads it
// (`pip inspect`'s `requested`), and tools that prune unused dependencies keep what has it.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/pkg/name.h"
#include "lock/lockfile.h"

namespace wv::install {

/// The names of the packages `target` installs as direct requirements: its roots and
/// the roots of its extras (all part of its install) unless `with_dependencies` is false
/// (`--only-group`), the roots of the dependency `groups` being installed, and the project
/// itself when `with_project` and the lock has one. A package reached only through another
/// one's dependencies is not among them.
std::set<pkg::PackageName> requested_packages(const lock::Lockfile& lockfile,
                                              std::string_view target,
                                              const std::vector<std::string>& groups,
                                              bool with_dependencies, bool with_project);

}  // namespace wv::install
