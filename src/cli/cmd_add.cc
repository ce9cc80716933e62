// `wvlock add REQUIREMENT...`: each requirement into the dependency array the flags select
// (uv's flags), pinned to a declared index with `--index` (for some targets with `--target`),
// pyproject.toml edited in place (pkg/pyproject_edit.h): the root's, or in a workspace the
// member's the command started in or `--package` names; then lock (at the root) and sync. A bare name gets
// `>=` the version the lock chose, as uv writes it.
#include <algorithm>
#include <map>
#include <optional>

#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/dependency_edit.h"
#include "src/cli/python_default.h"
#include "lock/lockfile.h"
#include "src/pkg/name.h"
#include "src/pkg/requirement.h"
#include "src/pkg/toml_scan.h"
#include "src/pkg/version.h"
#include "targets/project_file.h"

namespace wv::cli {
namespace {

struct AddRequest {
  EditFlags edit;
  std::vector<pkg::Requirement> parsed;
  std::vector<std::string> requirements;  ///< as given, trimmed
  std::optional<std::string> index;
  std::optional<std::string> target;
};

Result<AddRequest> parse_add_arguments(Arguments& arguments) {
  AddRequest request;
  WV_ASSIGN_OR_RETURN(request.edit, extract_edit_flags(arguments));
  WV_ASSIGN_OR_RETURN(request.index, arguments.extract_value("--index"));
  WV_ASSIGN_OR_RETURN(request.target, arguments.extract_value("--target"));
  while (std::optional<std::string> requirement = arguments.take_positional()) {
    WV_ASSIGN_OR_RETURN(pkg::Requirement parsed, pkg::parse_requirement(*requirement));
    request.parsed.push_back(std::move(parsed));
    request.requirements.emplace_back(trim(*requirement));
  }
  WV_TRY(arguments.expect_done());
  if (request.requirements.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      "`wvlock add` needs a requirement, e.g. `wvlock add 'numpy>=2'`");
  }
  if (request.target && !request.index) {
    return make_error(ErrorCode::kInvalidInput,
                      "`--target` says where an `--index` source applies: give `--index NAME` too");
  }
  return request;
}

// `--index` names a declared index and `--target` a declared target (either spelling of a
// target with several Pythons) of the project at `project_dir`: in a workspace, the root's,
// whose indexes and targets serve every member.
Result<void> check_source_names(const AddRequest& request, const std::string& project_dir,
                                FileSystem& file_system) {
  if (!request.index) return {};
  ProjectFiles files;
  files.pyproject_path = path_join(project_dir, "pyproject.toml");
  WV_ASSIGN_OR_RETURN(files.pyproject, file_system.read_file(files.pyproject_path, Limit::kTomlBytes));
  WV_ASSIGN_OR_RETURN(targets::ProjectConfig config,
                      targets::parse_project_file(files.pyproject, files.pyproject_path,
                                                  project_default_pythons(file_system)));
  if (!config.find_index(*request.index)) {
    std::vector<std::string> names;
    for (const targets::IndexConfig& index : config.indexes) names.push_back(index.name);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("no index named ", in_backticks(*request.index), " in ",
                              in_backticks(files.pyproject_path)))
        .with_note(names.empty() ? std::string("note: it declares no index")
                                 : str_cat("note: its indexes are ", join_backticked(names)))
        .with_note("hint: declare it first as a `[[tool.wvlock.index]]` table with `name` and "
                   "`url`");
  }
  if (!request.target) return {};
  std::vector<std::string> names;
  for (const targets::Target& target : config.targets) {
    if (target.name == *request.target || target.declared_name == *request.target) return {};
    names.push_back(target.declared_name.empty() ? target.name : target.declared_name);
  }
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("no target named ", in_backticks(*request.target), " in ",
                            in_backticks(files.pyproject_path)))
      .with_note(names.empty() ? std::string("note: it declares no target")
                               : str_cat("note: its targets are ", join_backticked(names)));
}

// The `[tool.wvlock.sources]` value `--index` (and `--target`) ask for.
std::string source_value(const AddRequest& request) {
  std::string value = str_cat("{ index = ", pkg::toml_scan::format_string(*request.index));
  if (request.target) {
    value += str_cat(", targets = [", pkg::toml_scan::format_string(*request.target), "]");
  }
  return value + " }";
}

// A workspace member added to another (or to the root) is that member's folder, editable: a
// `{ workspace = true }` source in the table the project keeps its sources in, as uv writes.
bool is_workspace_member(const AddRequest& request, const EditTarget& target, std::size_t i) {
  Result<pkg::PackageName> name = pkg::parse_package_name(request.parsed[i].normalized_name());
  return name && target.is_member(*name) && !request.parsed[i].url;
}

Result<std::string> edited_pyproject(const AddRequest& request, const EditTarget& target,
                                     const ProjectFiles& files) {
  std::string text = files.pyproject;
  for (std::size_t i = 0; i < request.requirements.size(); ++i) {
    WV_ASSIGN_OR_RETURN(text, pkg::add_dependency(text, files.pyproject_path, request.edit.list,
                                                  request.requirements[i]));
    if (is_workspace_member(request, target, i) && !request.index) {
      WV_ASSIGN_OR_RETURN(std::string tool, sources_tool(text, files.pyproject_path));
      WV_ASSIGN_OR_RETURN(text, pkg::set_source(text, files.pyproject_path,
                                                request.parsed[i].normalized_name(),
                                                "{ workspace = true }", tool));
    } else if (request.index) {
      WV_ASSIGN_OR_RETURN(text, pkg::set_source(text, files.pyproject_path,
                                                request.parsed[i].normalized_name(),
                                                source_value(request)));
    }
  }
  return text;
}

// The lowest version the lock holds of each package (the lock may keep several, one per
// target).
Result<std::map<std::string, std::string>> locked_versions(const ProjectFiles& files,
                                                           FileSystem& file_system) {
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(files.lock_path, Limit::kTomlBytes));
  WV_ASSIGN_OR_RETURN(lock::Lockfile lockfile, lock::read_lockfile(text, files.lock_path));
  std::map<pkg::PackageName, pkg::Version> lowest;
  for (const lock::LockedPackage& package : lockfile.packages) {
    Result<pkg::Version> version = pkg::parse_version(package.version);
    if (!version) continue;
    auto found = lowest.find(package.name);
    if (found == lowest.end() || *version < found->second) lowest.insert_or_assign(package.name, *version);
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, version] : lowest) out.emplace(name.str(), version.to_string());
  return out;
}

// `numpy` -> `numpy>=2.1.3`, `requests[socks] ; os_name == 'posix'` -> with the bound after
// the extras.
std::string with_lower_bound(std::string_view requirement, std::string_view version) {
  std::size_t end = 0;
  while (end < requirement.size() &&
         (is_ascii_alnum(requirement[end]) || requirement[end] == '-' ||
          requirement[end] == '_' || requirement[end] == '.')) {
    ++end;
  }
  std::size_t extras = end;
  while (extras < requirement.size() && (requirement[extras] == ' ' || requirement[extras] == '\t')) {
    ++extras;
  }
  if (extras < requirement.size() && requirement[extras] == '[') {
    const std::size_t close = requirement.find(']', extras);
    if (close != std::string_view::npos) end = close + 1;
  }
  return str_cat(requirement.substr(0, end), ">=", version, requirement.substr(end));
}

// The bounds of the bare names, once the lock has chosen their versions: the edited text, or
// nullopt when no bare name was added.
Result<std::optional<std::string>> bounded_pyproject(const AddRequest& request,
                                                     const EditTarget& target,
                                                     const ProjectFiles& files,
                                                     FileSystem& file_system) {
  std::optional<std::map<std::string, std::string>> versions;
  WV_ASSIGN_OR_RETURN(std::string text,
                      file_system.read_file(files.pyproject_path, Limit::kTomlBytes));
  bool changed = false;
  for (std::size_t i = 0; i < request.parsed.size(); ++i) {
    const pkg::Requirement& parsed = request.parsed[i];
    if (!parsed.specifier.empty() || parsed.url) continue;
    if (is_workspace_member(request, target, i)) continue;  // uv writes a member's name bare
    // A package the list named already keeps what was written.
    WV_ASSIGN_OR_RETURN(std::vector<pkg::DependencyList> named,
                        pkg::lists_naming(files.pyproject, files.pyproject_path,
                                          parsed.normalized_name()));
    if (std::find(named.begin(), named.end(), request.edit.list) != named.end()) continue;
    if (!versions) {
      WV_ASSIGN_OR_RETURN(versions, locked_versions(files, file_system));
    }
    auto found = versions->find(parsed.normalized_name());
    if (found == versions->end()) continue;  // not locked for any target (a marker excludes it)
    WV_ASSIGN_OR_RETURN(text, pkg::add_dependency(
                                  text, files.pyproject_path, request.edit.list,
                                  with_lower_bound(request.requirements[i], found->second)));
    changed = true;
  }
  if (!changed) return std::optional<std::string>();
  return std::optional<std::string>(std::move(text));
}

int fail(const Error& error) {
  print_error(error);
  return exit_code_for(error);
}

}  // namespace

int run_add(const GlobalOptions& given, Arguments& arguments) {
  auto request = parse_add_arguments(arguments);
  if (!request) return fail(request.error());
  RealFileSystem file_system;
  auto target = find_edit_target(given, file_system, request->edit.package);
  if (!target) return fail(target.error());
  const GlobalOptions options = options_for(given, *target);
  auto files = read_project_files(options, *target, file_system);
  if (!files) return fail(files.error());
  if (auto checked = check_source_names(*request, options.project_dir, file_system); !checked) {
    return fail(checked.error());
  }
  auto text = edited_pyproject(*request, *target, *files);
  if (!text) return fail(text.error());
  if (auto written = write_pyproject(file_system, *files, *text); !written) {
    return fail(written.error());
  }
  log_info(str_cat("added ", join_backticked(request->requirements), " to `",
                   request->edit.list.describe(), "` in ", files->pyproject_path));
  if (request->edit.frozen) return kExitOk;
  if (int locked = lock_or_restore(options, file_system, *files); locked != kExitOk) return locked;
  auto bounded = bounded_pyproject(*request, *target, *files, file_system);
  if (!bounded) {
    restore_project_files(file_system, *files);
    return fail(bounded.error());
  }
  if (*bounded) {
    if (auto written = write_pyproject(file_system, *files, **bounded); !written) {
      restore_project_files(file_system, *files);
      return fail(written.error());
    }
    // The bound changes the project's inputs: lock again (the versions stay as chosen).
    if (int locked = lock_or_restore(options, file_system, *files); locked != kExitOk) {
      return locked;
    }
  }
  if (request->edit.no_sync) return kExitOk;
  std::vector<std::string> sync_arguments;
  if (request->edit.list.kind == pkg::DependencyList::Kind::kGroup) {
    sync_arguments = {"--group", request->edit.list.name};
  }
  return sync_project(options, std::move(sync_arguments));
}

}  // namespace wv::cli
