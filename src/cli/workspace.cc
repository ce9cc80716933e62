#include "src/cli/workspace.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "src/base/str.h"
#include "lock/workspace_selection.h"
#include "src/pkg/name.h"

namespace wv::cli {
namespace {

namespace fs = std::filesystem;

bool has_glob(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

bool is_dir(const FileSystem& file_system, const std::string& path) {
  Result<FileInfo> info = file_system.stat_followed(path);
  return info && info->type == FileType::kDirectory;
}

std::string join_relative(const std::string& base, std::string_view leaf) {
  return base.empty() ? std::string(leaf) : str_cat(base, "/", leaf);
}

// The folders in `root`/`base` (relative paths), hidden ones only when `hidden`. A folder that
// is absent lists nothing; one that cannot be listed is an error, never a silent skip.
Result<std::vector<std::string>> child_folders(const FileSystem& file_system,
                                               const std::string& root, const std::string& base,
                                               bool hidden) {
  const std::string folder = base.empty() ? root : path_join(root, base);
  Result<std::vector<DirectoryEntry>> entries = file_system.list_directory(folder);
  if (!entries) {
    if (entries.error().code == ErrorCode::kNotFound) return std::vector<std::string>();
    return make_error(entries.error().code,
                      str_cat("cannot list ", in_backticks(folder),
                              " to find workspace members: ", entries.error().message));
  }
  std::vector<std::string> out;
  for (const DirectoryEntry& entry : *entries) {
    if (entry.name.empty() || (entry.name[0] == '.' && !hidden)) continue;
    const bool folder_entry =
        entry.type == FileType::kDirectory ||
        (entry.type == FileType::kSymlink && is_dir(file_system, path_join(folder, entry.name)));
    if (folder_entry) out.push_back(join_relative(base, entry.name));
  }
  return out;
}

// A path or glob as `/` segments without empty or `.` ones; `**/**` is one `**` (the same
// match, and the matcher's work stays polynomial in the number of `**`).
std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> segments;
  for (std::string_view segment : split(path, '/')) {
    if (segment.empty() || segment == ".") continue;
    if (segment == "**" && !segments.empty() && segments.back() == "**") continue;
    segments.push_back(segment);
  }
  return segments;
}

// `**`: `base` and every folder below it, hidden ones left out (zero or more segments).
Result<void> add_descendants(const FileSystem& file_system, const std::string& root,
                             const std::string& base, std::vector<std::string>& out) {
  out.push_back(base);
  WV_ASSIGN_OR_RETURN(std::vector<std::string> children,
                      child_folders(file_system, root, base, /*hidden=*/false));
  for (const std::string& child : children) {
    WV_TRY(add_descendants(file_system, root, child, out));
  }
  return {};
}

// The folders under `root` that `glob` matches, one `/` segment at a time (`*`, `?` and `[...]`
// within a segment, `**` for any number of segments, as uv's globs; hidden folders only when
// the segment names them). A folder matched through `**` counts only with a pyproject.toml.
Result<std::vector<std::string>> expand(const FileSystem& file_system, const std::string& root,
                                        const std::string& glob) {
  std::vector<std::string> current{""};
  bool recursive = false;
  for (std::string_view segment : path_segments(glob)) {
    std::vector<std::string> next;
    for (const std::string& base : current) {
      if (segment == "**") {
        recursive = true;
        WV_TRY(add_descendants(file_system, root, base, next));
      } else if (!has_glob(segment)) {
        const std::string relative = join_relative(base, segment);
        if (is_dir(file_system, path_join(root, relative))) next.push_back(relative);
      } else {
        WV_ASSIGN_OR_RETURN(std::vector<std::string> children,
                            child_folders(file_system, root, base, segment[0] == '.'));
        for (std::string& child : children) {
          const std::string leaf(path_filename(child));
          if (fnmatch(std::string(segment).c_str(), leaf.c_str(), FNM_PERIOD) == 0) {
            next.push_back(std::move(child));
          }
        }
      }
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    current = std::move(next);
  }
  current.erase(std::remove(current.begin(), current.end(), ""), current.end());
  if (recursive) {
    current.erase(std::remove_if(current.begin(), current.end(),
                                 [&](const std::string& relative) {
                                   return !file_system.exists(
                                       path_join(path_join(root, relative), "pyproject.toml"));
                                 }),
                  current.end());
  }
  return current;
}

// Whether `path`'s segments from `p` on match `glob`'s from `g` on: `*`, `?` and `[...]` within a
// segment (matching hidden names too, as exclude always has), `**` for zero or more segments.
bool segments_match(const std::vector<std::string_view>& glob, std::size_t g,
                    const std::vector<std::string_view>& path, std::size_t p) {
  for (; g < glob.size(); ++g, ++p) {
    if (glob[g] == "**") {
      for (std::size_t rest = p; rest <= path.size(); ++rest) {
        if (segments_match(glob, g + 1, path, rest)) return true;
      }
      return false;
    }
    if (p == path.size() ||
        fnmatch(std::string(glob[g]).c_str(), std::string(path[p]).c_str(), 0) != 0) {
      return false;
    }
  }
  return p == path.size();
}


bool excluded(const targets::WorkspaceConfig& workspace, const std::string& relative) {
  const std::vector<std::string_view> path = path_segments(relative);
  return std::any_of(workspace.exclude.begin(), workspace.exclude.end(), [&](const auto& pattern) {
    return segments_match(path_segments(pattern.glob), 0, path, 0);
  });
}

Error at(std::string_view path, int line, int column, std::string_view message) {
  return make_error(ErrorCode::kInvalidInput,
                    str_cat(in_backticks(path), ":", line, ":", column, ": ", message));
}

// A package's `[project] name` (given) as a name; an invalid one is an error where it is written.
Result<pkg::PackageName> project_name(const std::string& path, const targets::ProjectConfig& config) {
  Result<pkg::PackageName> name = pkg::parse_package_name(*config.name);
  if (!name) {
    return at(path, config.name_line, config.name_column,
              str_cat("`[project] name`: ", name.error().message));
  }
  return name;
}

// One member folder that a glob matched: its pyproject.toml read, its name checked.
Result<WorkspaceMember> read_member(const FileSystem& file_system, const targets::ProjectConfig& root,
                                    const std::string& relative,
                                    const targets::WorkspaceConfig::Pattern& pattern) {
  WorkspaceMember member;
  member.relative = relative;
  member.dir = absolute_path(path_join(root.project_dir, relative));
  const std::string path = path_join(path_join(root.project_dir, relative), "pyproject.toml");
  Result<std::string> text = file_system.read_file(path);
  if (!text) {
    return at(root.path, pattern.line, pattern.column,
              str_cat("workspace member ", in_backticks(relative), " (matched by ",
                      in_backticks(pattern.glob), ") has no pyproject.toml: ", text.error().message));
  }
  WV_ASSIGN_OR_RETURN(member.config, targets::parse_project_file(*text, path));
  if (!member.config.name) {
    return at(path, 1, 1, str_cat("workspace member ", in_backticks(relative),
                                  " declares no `[project] name`"));
  }
  WV_ASSIGN_OR_RETURN(member.name, project_name(path, member.config));
  Result<pkg::PackageName> root_name =
      pkg::parse_package_name(root.name.value_or(""));  // no name, or none valid: no clash
  if (root_name && *root_name == member.name) {
    return at(path, member.config.name_line, member.config.name_column,
              str_cat("workspace member ", in_backticks(relative), " has the workspace root's name ",
                      in_backticks(member.name.str()),
                      ": give each package of a workspace its own name"));
  }
  return member;
}

// Every `workspace = true` source of `config` must name a member.
Result<void> check_workspace_sources(const targets::ProjectConfig& config, const Workspace& workspace) {
  for (const auto& [package, entries] : config.sources) {
    for (const targets::SourceEntry& entry : entries) {
      if (entry.kind != targets::SourceEntry::Kind::kWorkspace) continue;
      if (workspace.find(package)) continue;
      std::vector<std::string> names;
      for (const WorkspaceMember& member : workspace.members) names.push_back(member.name.str());
      return at(config.path, entry.line, entry.column,
                str_cat("source of ", in_backticks(package.str()), " says `workspace = true`, but ",
                        in_backticks(package.str()), " is not a workspace member",
                        names.empty() ? std::string(" (the workspace has no member)")
                                      : str_cat(" (members: ", join_backticked(names), ")")));
    }
  }
  return {};
}

}  // namespace

const WorkspaceMember* Workspace::find(const pkg::PackageName& name) const {
  for (const WorkspaceMember& member : members) {
    if (member.name == name) return &member;
  }
  return nullptr;
}

Result<pkg::PackageName> member_name_at(const FileSystem& file_system, const std::string& dir) {
  const std::string path = path_join(dir, "pyproject.toml");
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(path));
  WV_ASSIGN_OR_RETURN(targets::ProjectConfig config, targets::parse_project_file(text, path));
  if (!config.name) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path), ": a workspace member declares no `[project] name`"));
  }
  return project_name(path, config);
}

Result<std::optional<WorkspaceLocation>> find_workspace(const FileSystem& file_system,
                                                        const std::string& start) {
  const std::string from = absolute_path(start);
  // Plain string steps up the tree (absolute and normal already): every command pays this walk.
  for (std::string folder = from;; folder = path_parent(folder)) {
    const std::string path = path_join(folder, "pyproject.toml");
    Result<std::string> text = file_system.read_file(path);
    // No parse for a file that cannot declare a workspace: the word appears in any spelling of
    // the key but one with escapes (a backslash). Every command pays this search.
    if (text && text->find("workspace") == std::string::npos &&
        text->find('\\') == std::string::npos) {
      text = make_error(ErrorCode::kNotFound, "");
    }
    if (text) {
      WV_ASSIGN_OR_RETURN(auto workspace, targets::parse_workspace_table(*text, path));
      if (workspace) {
        const std::string& root = folder;
        if (root == from) return std::optional<WorkspaceLocation>(WorkspaceLocation{root, ""});
        const std::string relative = fs::path(from).lexically_relative(root).generic_string();
        for (const auto& pattern : workspace->members) {
          WV_ASSIGN_OR_RETURN(const std::vector<std::string> matched,
                              expand(file_system, root, pattern.glob));
          if (std::find(matched.begin(), matched.end(), relative) != matched.end() &&
              !excluded(*workspace, relative)) {
            return std::optional<WorkspaceLocation>(WorkspaceLocation{root, from});
          }
        }
      }
    }
    if (folder == "/" || folder.empty() || folder == ".") break;
  }
  return std::optional<WorkspaceLocation>();
}

Result<Workspace> load_workspace(const FileSystem& file_system, const targets::ProjectConfig& root) {
  Workspace workspace;
  if (!root.workspace) return workspace;
  const std::string root_dir = absolute_path(root.project_dir);
  for (const auto& pattern : root.workspace->members) {
    WV_ASSIGN_OR_RETURN(const std::vector<std::string> matched,
                        expand(file_system, root.project_dir, pattern.glob));
    if (matched.empty()) {
      return at(root.path, pattern.line, pattern.column,
                has_glob(pattern.glob)
                    ? str_cat("workspace member glob ", in_backticks(pattern.glob),
                              pattern.glob.find("**") != std::string::npos
                                  ? " matches no folder with a pyproject.toml"
                                  : " matches no folder")
                    : str_cat("workspace member ", in_backticks(pattern.glob),
                              " does not exist (no such folder)"));
    }
    for (const std::string& relative : matched) {
      if (excluded(*root.workspace, relative)) continue;
      if (absolute_path(path_join(root.project_dir, relative)) == root_dir) continue;
      if (std::any_of(workspace.members.begin(), workspace.members.end(),
                      [&](const WorkspaceMember& m) { return m.relative == relative; })) {
        continue;  // two globs matched one folder
      }
      WV_ASSIGN_OR_RETURN(WorkspaceMember member, read_member(file_system, root, relative, pattern));
      if (const WorkspaceMember* twin = workspace.find(member.name)) {
        return at(member.config.path, member.config.name_line, member.config.name_column,
                  str_cat("two workspace members are named ", in_backticks(member.name.str()), ": ",
                          in_backticks(twin->relative), " and ", in_backticks(relative)));
      }
      workspace.members.push_back(std::move(member));
    }
  }
  std::sort(workspace.members.begin(), workspace.members.end(),
            [](const WorkspaceMember& a, const WorkspaceMember& b) { return a.relative < b.relative; });
  WV_TRY(check_workspace_sources(root, workspace));
  for (const WorkspaceMember& member : workspace.members) {
    WV_TRY(check_workspace_sources(member.config, workspace));
  }
  return workspace;
}

Result<std::vector<pkg::PackageName>> view_workspace_packages(
    const GlobalOptions& options, lock::Lockfile& lockfile, std::vector<pkg::PackageName> names,
    bool all, std::vector<pkg::ExtraName>* extras) {
  const lock::LockedPackage* root = lockfile.project();
  lock::MemberSelection selection;
  selection.all = all;
  std::vector<pkg::PackageName> others;
  for (pkg::PackageName& name : names) {
    const bool member = std::any_of(lockfile.packages.begin(), lockfile.packages.end(),
                                    [&](const lock::LockedPackage& p) {
                                      return p.workspace_member && p.name == name;
                                    });
    if (member || (root && root->name == name)) {
      selection.packages.push_back(std::move(name));
    } else {
      others.push_back(std::move(name));
    }
  }
  if (selection.packages.empty() && !all && others.empty() && !options.workspace_member_dir.empty()) {
    RealFileSystem file_system;
    WV_ASSIGN_OR_RETURN(pkg::PackageName name, member_name_at(file_system, options.workspace_member_dir));
    selection.packages.push_back(std::move(name));
  }
  const bool root_named = root && std::find(selection.packages.begin(), selection.packages.end(),
                                            root->name) != selection.packages.end();
  if (extras && !selection.packages.empty() && !all && !root_named) {
    selection.extras = std::exchange(*extras, {});
  }
  WV_TRY(lock::select_members(lockfile, selection));
  return others;
}

}  // namespace wv::cli
