#include "src/cli/lock_view.h"

#include "src/base/str.h"
#include "targets/target.h"

namespace wv::cli {

Result<LockInputs> read_lock_inputs(const GlobalOptions& options, FileSystem& file_system) {
  LockInputs inputs;
  WV_ASSIGN_OR_RETURN(inputs.project, load_project(options, file_system));
  auto lockfile = read_project_lockfile(inputs.project, file_system);
  if (!lockfile) {
    if (lockfile.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound,
                        str_cat(in_backticks(inputs.project.lockfile_path),
                                " does not exist: run `wvlock lock` first"));
    }
    return lockfile.error();
  }
  inputs.lockfile = std::move(*lockfile);
  return inputs;
}

int fail_reading_lock(const Error& error) {
  print_error(error);
  return error.code == ErrorCode::kInvalidLockfile ? kExitFailure : exit_code_for(error);
}

Result<std::vector<const lock::LockedTarget*>> chosen_targets(const lock::Lockfile& lockfile,
                                                              const std::optional<std::string>& name) {
  std::vector<const lock::LockedTarget*> targets;
  for (const lock::LockedTarget& target : lockfile.targets) {
    if (!name || targets::same_target_name(target.name, *name)) targets.push_back(&target);
  }
  if (name && targets.empty()) {
    std::vector<std::string> names;
    for (const lock::LockedTarget& target : lockfile.targets) names.push_back(target.name);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("no target named ", in_backticks(*name), " in the lockfile (it has ",
                              join(names, ", "), ")"));
  }
  return targets;
}

Edge parse_edge(std::string_view text) {
  Edge edge;
  std::size_t equals = text.find("==");
  std::string_view head = text.substr(0, equals);
  edge.version = equals == std::string_view::npos ? "" : std::string(text.substr(equals + 2));
  std::size_t bracket = head.find('[');
  if (auto name = lock::edge_package(head.substr(0, bracket))) edge.name = std::move(*name);
  if (bracket != std::string_view::npos) {
    edge.extra = std::string(head.substr(bracket + 1, head.find(']') - bracket - 1));
  }
  return edge;
}

std::vector<std::string> children(const lock::Lockfile& lockfile, const std::string& target,
                                  const Edge& edge) {
  const lock::LockedPackage* package = lockfile.find_package_for_target(edge.name, target);
  if (!package) return {};
  const lock::TargetUse& use = package->targets.at(target);
  if (edge.extra.empty()) return use.dependencies;
  auto it = use.extra_dependencies.find(edge.extra);
  return it == use.extra_dependencies.end() ? std::vector<std::string>() : it->second;
}

std::vector<std::pair<std::string, std::string>> labelled_roots(const lock::LockedTarget& target) {
  std::vector<std::pair<std::string, std::string>> roots;
  for (const std::string& root : target.roots) roots.emplace_back(root, "");
  for (const auto& [extra, edges] : target.extra_roots) {
    for (const std::string& root : edges) roots.emplace_back(root, "extra " + extra);
  }
  for (const auto& [group, edges] : target.group_roots) {
    for (const std::string& root : edges) roots.emplace_back(root, "group " + group);
  }
  return roots;
}

}  // namespace wv::cli
