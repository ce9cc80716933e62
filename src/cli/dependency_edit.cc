#include "src/cli/dependency_edit.h"

#include <algorithm>

#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/python_default.h"
#include "src/cli/workspace.h"
#include "src/pkg/name.h"
#include "targets/project_file.h"

namespace wv::cli {

Result<EditFlags> extract_edit_flags(Arguments& arguments) {
  EditFlags flags;
  WV_ASSIGN_OR_RETURN(auto group, arguments.extract_value("--group"));
  WV_ASSIGN_OR_RETURN(auto optional, arguments.extract_value("--optional"));
  const bool dev = arguments.extract_flag("--dev");
  if (int(group.has_value()) + int(optional.has_value()) + int(dev) > 1) {
    return make_error(ErrorCode::kInvalidInput,
                      "`--group`, `--dev` and `--optional` choose one list: give one of them");
  }
  if (dev) group = "dev";
  if (group) {
    WV_ASSIGN_OR_RETURN(pkg::ExtraName name, pkg::parse_extra_name(*group));
    flags.list = {pkg::DependencyList::Kind::kGroup, name.str()};
  } else if (optional) {
    WV_ASSIGN_OR_RETURN(pkg::ExtraName name, pkg::parse_extra_name(*optional));
    flags.list = {pkg::DependencyList::Kind::kOptional, name.str()};
  }
  WV_ASSIGN_OR_RETURN(auto package, arguments.extract_value("--package"));
  if (package) {
    WV_ASSIGN_OR_RETURN(flags.package, pkg::parse_package_name(*package));
  }
  flags.no_sync = arguments.extract_flag("--no-sync");
  flags.frozen = arguments.extract_flag("--frozen");
  return flags;
}

bool EditTarget::is_member(const pkg::PackageName& name) const {
  return std::find(members.begin(), members.end(), name) != members.end();
}

Result<EditTarget> find_edit_target(const GlobalOptions& options, const FileSystem& file_system,
                                    const std::optional<pkg::PackageName>& package) {
  EditTarget target;
  target.pyproject_dir = options.project_dir;
  const std::string path = path_join(options.project_dir, "pyproject.toml");
  Result<std::string> text = file_system.read_file(path, Limit::kTomlBytes);
  // A missing file is read_project_files()'s to report (with its remedy).
  if (!text && !(text.error().code == ErrorCode::kNotFound && !package)) return text.error();
  Workspace workspace;
  std::optional<pkg::PackageName> root_name;
  std::optional<targets::WorkspaceConfig> table;
  if (text) {
    WV_ASSIGN_OR_RETURN(table, targets::parse_workspace_table(*text, path));
  }
  if (table) {  // a project of its own is read whole by lock, not here
    WV_ASSIGN_OR_RETURN(targets::ProjectConfig root,
                        targets::parse_project_file(*text, path, project_default_pythons(file_system)));
    WV_ASSIGN_OR_RETURN(workspace, load_workspace(file_system, root));
    if (root.name) {
      Result<pkg::PackageName> name = pkg::parse_package_name(*root.name);
      if (name) root_name = *name;
    }
  }
  for (const WorkspaceMember& member : workspace.members) target.members.push_back(member.name);
  std::string member_dir = options.workspace_member_dir;
  if (package) {
    if (root_name && *root_name == *package) return target;
    const WorkspaceMember* member = workspace.find(*package);
    if (!member) {
      std::vector<std::string> names;
      for (const WorkspaceMember& m : workspace.members) names.push_back(m.name.str());
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("`--package ", package->str(), "` names no workspace member of ",
                                in_backticks(path),
                                names.empty() ? std::string(" (it has no member)")
                                              : str_cat(" (members: ", join_backticked(names), ")")));
    }
    member_dir = member->dir;
  }
  if (!member_dir.empty()) {
    target.pyproject_dir = member_dir;
    target.member_dir = member_dir;
  }
  return target;
}

GlobalOptions options_for(const GlobalOptions& options, const EditTarget& target) {
  GlobalOptions out = options;
  out.workspace_member_dir = target.member_dir;
  return out;
}

Result<std::string> sources_tool(std::string_view text, std::string_view path) {
  WV_ASSIGN_OR_RETURN(bool uv, pkg::has_sources_table(text, path, "uv"));
  return std::string(uv ? "uv" : "wvlock");
}

Result<ProjectFiles> read_project_files(const GlobalOptions& options, const EditTarget& target,
                                        FileSystem& file_system) {
  ProjectFiles files;
  files.pyproject_path = path_join(target.pyproject_dir, "pyproject.toml");
  files.lock_path = path_join(options.project_dir, "pylock.toml");
  Result<std::string> pyproject = file_system.read_file(files.pyproject_path, Limit::kTomlBytes);
  if (!pyproject) {
    if (pyproject.error().code != ErrorCode::kNotFound) return pyproject.error();
    return make_error(ErrorCode::kNotFound,
                      str_cat(in_backticks(files.pyproject_path),
                              " does not exist: run `wvlock init` to write one"));
  }
  files.pyproject = std::move(*pyproject);
  Result<std::string> lock = file_system.read_file(files.lock_path, Limit::kTomlBytes);
  if (lock) {
    files.lock = std::move(*lock);
  } else if (lock.error().code != ErrorCode::kNotFound) {
    return lock.error();
  }
  return files;
}

Result<void> write_pyproject(FileSystem& file_system, const ProjectFiles& files,
                             std::string_view text) {
  return file_system.write_file_atomic(files.pyproject_path, text);
}

void restore_project_files(FileSystem& file_system, const ProjectFiles& files) {
  Result<void> pyproject = file_system.write_file_atomic(files.pyproject_path, files.pyproject);
  if (!pyproject) print_error(pyproject.error());
  Result<void> lock = files.lock ? file_system.write_file_atomic(files.lock_path, *files.lock)
                                 : file_system.remove(files.lock_path);
  if (!lock && lock.error().code != ErrorCode::kNotFound) print_error(lock.error());
}

int lock_or_restore(const GlobalOptions& options, FileSystem& file_system,
                    const ProjectFiles& files) {
  Arguments lock_arguments({});
  const int locked = run_lock(options, lock_arguments);
  if (locked != kExitOk) {
    restore_project_files(file_system, files);
    log_info(str_cat("note: ", in_backticks(files.pyproject_path),
                     " is back as it was, since the lock failed"));
  }
  return locked;
}

int sync_project(const GlobalOptions& options, std::vector<std::string> sync_arguments) {
  Arguments arguments(std::move(sync_arguments));
  return run_sync(options, arguments);
}

int lock_and_sync(const GlobalOptions& options, FileSystem& file_system, const ProjectFiles& files,
                  bool no_sync, std::vector<std::string> sync_arguments) {
  const int locked = lock_or_restore(options, file_system, files);
  if (locked != kExitOk || no_sync) return locked;
  return sync_project(options, std::move(sync_arguments));
}

}  // namespace wv::cli
