#include "src/cli/dependency_edit.h"

#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/pkg/name.h"

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
  flags.no_sync = arguments.extract_flag("--no-sync");
  flags.frozen = arguments.extract_flag("--frozen");
  return flags;
}

Result<ProjectFiles> read_project_files(const GlobalOptions& options, FileSystem& file_system) {
  ProjectFiles files;
  files.pyproject_path = path_join(options.project_dir, "pyproject.toml");
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
