// One member of a workspace (docs/user-guide.md, "Workspaces"), as read from its folder: what
// the lock layer needs to make the project's inputs (lock/project_inputs.h). Finding the
// members (globs, checks) is the CLI's (src/cli/workspace.h).
#pragma once

#include <string>

#include "src/pkg/name.h"
#include "targets/project_file.h"

namespace wv::targets {

struct WorkspaceMember {
  pkg::PackageName name;
  std::string dir;       ///< its folder, absolute
  std::string relative;  ///< its folder relative to the root, POSIX separators
  ProjectConfig config;
};

}  // namespace wv::targets
