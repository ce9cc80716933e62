// The lock layer's inputs of a project, made from its pyproject.toml as read
// (targets::ProjectConfig) and its workspace members: the requirements, one context per
// declared target (its extras, pinned indexes and direct sources, every member as an editable
// folder), the input-hash lines (find-links, path sources' metadata, members and their source
// entries, source entries, the indexes) and the path sources' metadata files with their digests
// (Lockfile::input_files). The CLI reads the file and finds the members; this turns them into
// what resolve_targets() and input_hash() take, so a bench or a test needs no CLI code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "lock/project_requirements.h"
#include "lock/target_context.h"
#include "targets/project_file.h"
#include "targets/workspace_member.h"

namespace wv::lock {

struct ProjectInputs {
  ProjectRequirements requirements;
  std::vector<TargetContext> targets;  ///< in declared order
  std::vector<std::string> inputs;     ///< input_hash()'s lines besides the requirements
  /// Lockfile::input_files of a lock written now: each path source's pyproject.toml,
  /// setup.cfg and setup.py (relative to the project folder) and its `sha256:` digest.
  std::map<std::string, std::string> input_files;
};

/// The inputs of the project `config` with its workspace `members` (none outside a
/// workspace). Path sources' metadata files are read through `file_system`, each only inside
/// its folder (src/base/contained_path.h). `complete_tags`: every target's tag list (to lock);
/// without it the contexts serve the input-hash alone (make_target_context). kInvalidInput
/// when no target is declared, for a requirement that does not parse, and for a direct
/// reference in constraints or overrides, each at its place in pyproject.toml.
Result<ProjectInputs> project_inputs(const targets::ProjectConfig& config,
                                     const std::vector<targets::WorkspaceMember>& members,
                                     const FileSystem& file_system, bool complete_tags);

}  // namespace wv::lock
