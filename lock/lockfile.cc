#include "lock/lockfile.h"

#include <algorithm>
#include <set>

#include "src/base/credentials.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/version.h"
#include "src/pkg/wheel_filename.h"

namespace wv::lock {

const LockedFile* LockedPackage::find_wheel(std::string_view filename) const {
  for (const LockedFile& wheel : wheels) {
    if (wheel.name == filename) return &wheel;
  }
  return nullptr;
}

std::string source_file_name(const LockedFile& file) {
  if (!file.url.empty()) return url_filename(file.url);
  std::size_t slash = file.path.rfind('/');
  return slash == std::string::npos ? file.path : file.path.substr(slash + 1);
}

const LockedTarget* Lockfile::find_target(std::string_view name) const {
  for (const LockedTarget& target : targets) {
    if (targets::same_target_name(target.name, name)) return &target;
  }
  return nullptr;
}

const LockedPackage* Lockfile::project() const {
  for (const LockedPackage& package : packages) {
    if (package.is_project) return &package;
  }
  return nullptr;
}

const LockedPackage* Lockfile::find_package_for_target(const pkg::PackageName& name,
                                                       std::string_view target) const {
  for (const LockedPackage& package : packages) {
    if (package.name == name && package.targets.count(std::string(target))) return &package;
  }
  return nullptr;
}

std::vector<const LockedPackage*> Lockfile::closure(std::string_view target) const {
  std::vector<const LockedPackage*> used;
  for (const LockedPackage& package : packages) {
    if (package.targets.count(std::string(target))) used.push_back(&package);
  }
  return used;
}

std::vector<const LockedPackage*> Lockfile::closure(std::string_view target,
                                                    const std::vector<std::string>& requested_extras,
                                                    const std::vector<std::string>& groups,
                                                    bool with_dependencies) const {
  const LockedTarget* declared = find_target(target);
  if (!declared) return {};
  // A target locks only the extras it declares (`extras = [...]`), and those are part of its
  // install: every extra root is followed; `extras` names more (none can be locked beyond them).
  (void)requested_extras;
  Selection selection{{}, groups, with_dependencies};
  if (with_dependencies) {
    for (const auto& [extra, edges] : declared->extra_roots) selection.extras.push_back(extra);
  }
  return selected_closure(target, selection);
}

std::vector<const LockedPackage*> Lockfile::selected_closure(std::string_view target,
                                                             const Selection& selection) const {
  const LockedTarget* declared = find_target(target);
  if (!declared) return {};
  std::vector<std::string> pending;
  if (selection.dependencies) pending = declared->roots;
  for (const auto& [names, roots] : {std::pair{&selection.extras, &declared->extra_roots},
                                     std::pair{&selection.groups, &declared->group_roots}}) {
    for (const std::string& name : *names) {
      auto it = roots->find(name);
      if (it != roots->end()) pending.insert(pending.end(), it->second.begin(), it->second.end());
    }
  }
  std::vector<const LockedPackage*> result;
  for (const auto& [name, package] : reachable(declared->name, std::move(pending))) {
    result.push_back(package);
  }
  return result;
}

std::vector<std::string> Lockfile::member_edges(std::string_view target) const {
  std::vector<std::string> edges;
  for (const LockedPackage& package : packages) {
    auto use = package.targets.find(std::string(target));
    if (!package.workspace_member || use == package.targets.end()) continue;
    edges.push_back(str_cat(package.name, "==", package.version));
    for (const auto& [extra, extra_edges] : use->second.extra_dependencies) {
      edges.push_back(str_cat(package.name, "[", extra, "]==", package.version));
    }
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

std::map<pkg::PackageName, const LockedPackage*> Lockfile::reachable(
    std::string_view target, std::vector<std::string> pending) const {
  std::set<std::string> seen_edges;
  std::map<pkg::PackageName, const LockedPackage*> reached;
  while (!pending.empty()) {
    std::string edge = std::move(pending.back());
    pending.pop_back();
    if (!seen_edges.insert(edge).second) continue;
    // "name[extra]==version" -> name, extra
    std::size_t bracket = edge.find('[');
    std::size_t equals = edge.find("==");
    Result<pkg::PackageName> name = edge_package(edge.substr(0, std::min(bracket, equals)));
    const LockedPackage* package = name ? find_package_for_target(*name, target) : nullptr;
    if (!package) continue;
    reached[*name] = package;
    const TargetUse& use = package->targets.at(std::string(target));
    pending.insert(pending.end(), use.dependencies.begin(), use.dependencies.end());
    if (bracket != std::string::npos && bracket < equals) {
      std::string extra = edge.substr(bracket + 1, edge.find(']') - bracket - 1);
      auto it = use.extra_dependencies.find(extra);
      if (it != use.extra_dependencies.end()) {
        pending.insert(pending.end(), it->second.begin(), it->second.end());
      }
    }
  }
  return reached;
}

void canonicalize(Lockfile& lockfile) {
  auto sort_unique = [](std::vector<std::string>& items) {
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
  };
  sort_unique(lockfile.extras);
  sort_unique(lockfile.dependency_groups);
  sort_unique(lockfile.default_groups);
  for (LockedPackage& package : lockfile.packages) {
    std::sort(package.wheels.begin(), package.wheels.end(),
              [](const LockedFile& a, const LockedFile& b) { return a.name < b.name; });
    for (auto& [name, use] : package.targets) {
      sort_unique(use.dependencies);
      for (auto& [extra, edges] : use.extra_dependencies) sort_unique(edges);
    }
  }
  std::sort(lockfile.packages.begin(), lockfile.packages.end(),
            [](const LockedPackage& a, const LockedPackage& b) {
              if (a.name != b.name) return a.name < b.name;
              return a.version != b.version ? a.version < b.version : a.index < b.index;
            });
  for (LockedTarget& target : lockfile.targets) {
    sort_unique(target.roots);
    for (auto& [extra, edges] : target.extra_roots) sort_unique(edges);
    for (auto& [group, edges] : target.group_roots) sort_unique(edges);
  }
}

namespace {

std::string at_line(std::string_view path, int line) {
  if (line > 0) return str_cat(path, ":", line);
  return std::string(path);
}

Error invalid(std::string_view path, int line, std::string message) {
  return make_error(ErrorCode::kInvalidLockfile, str_cat(at_line(path, line), ": ", message));
}

bool is_lower_hex(std::string_view text, std::size_t size) {
  if (text.size() != size) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string label(const LockedPackage& package) {
  return str_cat("package ", in_backticks(package.name.str()));
}

// User-info in a URL is a credential unless it is a bare ssh user (`ssh://git@host/...`, no
// secret): a password never belongs in a lock, and over http(s) a bare user is a token.
bool has_credentials(std::string_view url) { return carries_credentials(url); }

// A subdirectory names a folder inside its source tree: relative, no `..`, no NUL.
bool is_inner_path(std::string_view path) {
  if (path.find('\0') != std::string_view::npos) return false;
  if (!path.empty() && (path.front() == '/' || path.front() == '\\')) return false;
  if (path.size() >= 2 && path[1] == ':') return false;  // a Windows drive
  while (!path.empty()) {
    std::size_t end = path.find_first_of("/\\");
    if (path.substr(0, end) == "..") return false;
    path = end == std::string_view::npos ? std::string_view() : path.substr(end + 1);
  }
  return true;
}

// A wheel or sdist file name of exactly this package and version.
bool is_file_of(const LockedPackage& package, std::string_view file_name, bool sdist_too) {
  auto version = pkg::parse_version(package.version);
  if (!version) return false;
  if (auto wheel = pkg::parse_wheel_filename(file_name)) {
    return wheel->name == package.name && wheel->version == *version;
  }
  if (!sdist_too) return false;
  auto sdist = pkg::parse_sdist_filename(file_name, package.name);
  return sdist && sdist->version == *version;
}

Result<void> check_file(const LockedPackage& package, const LockedFile& file,
                        std::string_view path) {
  if (file.name.empty()) {
    return invalid(path, file.line, str_cat("a file of ", in_backticks(package.name.str()),
                                            " has no `name`"));
  }
  if (file.name.find_first_of("/\\") != std::string::npos || file.name == "." ||
      file.name == ".." || file.name.find('\0') != std::string::npos) {
    return invalid(path, file.line, str_cat("file name ", in_backticks(file.name.substr(0, 100)),
                                            " of ", in_backticks(package.name.str()),
                                            " is a path, not a file name"));
  }
  if (file.url.empty() == file.path.empty()) {
    return invalid(path, file.line, str_cat(label(package), ": ", in_backticks(file.name),
                                            ": expected exactly one of `url` and `path`"));
  }
  if (!is_lower_hex(file.sha256, 64)) {
    return invalid(path, file.line,
                   str_cat(label(package), ": ", in_backticks(file.name),
                           ": expected `hashes = { sha256 = \"<64 hex digits>\" }`"));
  }
  return {};
}

// PEP 751: either wheels and/or an sdist, or exactly one of directory, vcs and archive.
Result<void> check_source_kind(const LockedPackage& package, std::string_view path) {
  int trees = int(bool(package.directory)) + int(bool(package.vcs)) + int(bool(package.archive));
  bool files = !package.wheels.empty() || package.sdist;
  if (trees > 1) {
    return invalid(path, package.line,
                   str_cat(label(package), " has more than one of `directory`, `vcs` and "
                                           "`archive`: expected exactly one source"));
  }
  if (trees == 1 && files) {
    return invalid(path, package.line,
                   str_cat(label(package), " mixes wheels or an sdist with a `directory`, `vcs` "
                                           "or `archive`: expected one source kind (PEP 751)"));
  }
  if (trees == 0 && !files) {
    return invalid(path, package.line,
                   str_cat(label(package),
                           " lists no wheel, sdist, directory, vcs or archive"));
  }
  return {};
}

// Source trees keep their version in the tool table (PEP 751 forbids a top-level one); the
// project's own may be dynamic and so unknown.
Result<void> check_version(const LockedPackage& package, std::string_view path, bool standard) {
  if (!package.version.empty()) return {};
  bool tree = package.directory || package.vcs;
  // PEP 751: a source tree's entry MUST NOT carry a version; only ours keep one in the tool table.
  if (tree && (package.is_project || standard)) return {};
  if (!tree) return invalid(path, package.line, str_cat(label(package), " has no `version`"));
  return invalid(path, package.line,
                 str_cat(label(package), " has no version: a directory or vcs entry keeps it in "
                                         "`[packages.tool.wvlock] version`"));
}

Result<void> check_subdirectory(const LockedPackage& package, std::string_view kind,
                                const std::string& subdirectory, std::string_view path) {
  if (is_inner_path(subdirectory)) return {};
  return invalid(path, package.line,
                 str_cat(label(package), ": `", kind, ".subdirectory` ",
                         in_backticks(subdirectory.substr(0, 100)),
                         " must be a relative path inside the source tree (no `..`)"));
}

Result<void> check_vcs(const LockedPackage& package, const LockedVcs& vcs, std::string_view path) {
  if (vcs.type != "git") {
    return invalid(path, package.line,
                   str_cat(label(package), ": vcs type ", in_backticks(vcs.type.substr(0, 100)),
                           " is not supported: wvlock locks only `git` sources"));
  }
  if (!vcs.url.empty() && !vcs.path.empty()) {
    return invalid(path, package.line,
                   str_cat(label(package), ": `vcs` takes one of `url` and `path`, not both"));
  }
  const bool local = vcs.url.empty() && !vcs.path.empty();
  if (local && vcs.path.find('\0') != std::string::npos) {
    return invalid(path, package.line, str_cat(label(package), ": `vcs.path` holds a NUL"));
  }
  if (!local && vcs.url.empty()) {
    return invalid(path, package.line,
                   str_cat(label(package), ": expected `vcs.url`, the repository's URL"));
  }
  if (!local && has_credentials(vcs.url)) {
    return invalid(path, package.line,
                   str_cat(label(package), ": `vcs.url` ",
                           in_backticks(redact_credentials(vcs.url.substr(0, 200))),
                           " carries credentials, which never belong in a lockfile"));
  }
  if (!is_lower_hex(vcs.commit_id, 40)) {
    return invalid(path, package.line,
                   str_cat(label(package), ": `vcs.commit-id` ",
                           in_backticks(vcs.commit_id.substr(0, 100)),
                           ": expected the full commit, 40 lower-case hex digits"));
  }
  return check_subdirectory(package, "vcs", vcs.subdirectory, path);
}

Result<void> check_directory(const LockedPackage& package, const LockedDirectory& directory,
                             std::string_view path) {
  if (directory.path.empty() || directory.path.find('\0') != std::string::npos) {
    return invalid(path, package.line,
                   str_cat(label(package), ": expected `directory.path`, a folder path"));
  }
  return check_subdirectory(package, "directory", directory.subdirectory, path);
}

Result<void> check_archive(const LockedPackage& package, const LockedArchive& archive,
                           std::string_view path) {
  const LockedFile& file = archive.file;
  std::string derived = source_file_name(file);
  if (derived.empty()) {
    return invalid(path, package.line,
                   str_cat(label(package), ": expected the archive's `url` or `path` to end "
                                           "with its file name"));
  }
  // The writer drops the name (an archive has none in PEP 751): it must be what reads back.
  if (file.name != derived) {
    return invalid(path, package.line,
                   str_cat(label(package), ": archive name ", in_backticks(file.name.substr(0, 100)),
                           " is not the last component of its url or path (",
                           in_backticks(derived.substr(0, 100)), ")"));
  }
  // PEP 751 lets an archive be any source archive (a forge's `main.zip`): its metadata, not
  // its name, said what it holds.
  WV_TRY(check_file(package, file, path));
  return check_subdirectory(package, "archive", archive.subdirectory, path);
}

// At most one project entry: a directory with no per-target tables (its dependencies are the
// targets' roots, so no target's closure reaches it).
Result<void> check_project(const Lockfile& lockfile, std::string_view path) {
  const LockedPackage* project = nullptr;
  for (const LockedPackage& package : lockfile.packages) {
    if (!package.is_project) continue;
    if (project) {
      return invalid(path, package.line,
                     str_cat("packages ", in_backticks(project->name.str()), " and ",
                             in_backticks(package.name.str()), " are both `project = true`: expected "
                                                         "at most one project entry"));
    }
    project = &package;
    if (!package.directory) {
      return invalid(path, package.line,
                     str_cat(label(package), " is the project (`project = true`): expected a "
                                             "`directory` entry"));
    }
    if (!package.targets.empty()) {
      return invalid(path, package.line,
                     str_cat(label(package), " is the project: expected no per-target tables "
                                             "(its dependencies are the targets' roots)"));
    }
  }
  return {};
}

Result<void> check_sources(const LockedPackage& package, std::string_view path, bool standard) {
  WV_TRY(check_source_kind(package, path));
  WV_TRY(check_version(package, path, standard));
  for (const LockedFile& wheel : package.wheels) {
    WV_TRY(check_file(package, wheel, path));
    // A wheel of another project or version than its entry would install and never settle.
    if (!is_file_of(package, wheel.name, false)) {
      return invalid(path, wheel.line,
                     str_cat("wheel ", in_backticks(wheel.name.substr(0, 200)),
                             " is not a wheel of ", package.name, " ", package.version));
    }
  }
  if (package.sdist) WV_TRY(check_file(package, *package.sdist, path));
  if (package.vcs) WV_TRY(check_vcs(package, *package.vcs, path));
  if (package.directory) WV_TRY(check_directory(package, *package.directory, path));
  if (package.archive) WV_TRY(check_archive(package, *package.archive, path));
  return {};
}

std::string_view edge_version(std::string_view edge) {
  std::size_t at = edge.find("==");
  return at == std::string_view::npos ? std::string_view() : edge.substr(at + 2);
}

}  // namespace

Result<void> validate(const Lockfile& lockfile, std::string_view path) {
  std::string_view version = lockfile.lock_version;
  std::string_view major = version.substr(0, version.find('.'));
  if (major != "1") {
    return invalid(path, 1,
                   str_cat("lock-version ", in_backticks(version),
                           " is not supported: this wvlock reads lock-version 1.x (written by a "
                           "newer tool? upgrade wvlock or re-run `wvlock lock`)"));
  }
  if (lockfile.created_by.empty()) return invalid(path, 1, "`created-by` is required");

  // Names reach file names (`pylock.NAME.toml`, dist-info folders): each must be a name,
  // never a path.
  auto check_name = [&](std::string_view what, const std::string& name, int line) -> Result<void> {
    if (pkg::parse_normalized_name(name)) return {};
    return invalid(path, line, str_cat(what, " ", in_backticks(name.substr(0, 100)),
                                       " is not a normalised name (PEP 503/685)"));
  };
  for (const auto* list : {&lockfile.extras, &lockfile.dependency_groups, &lockfile.default_groups}) {
    for (const std::string& name : *list) WV_TRY(check_name("extra or group", name, 1));
  }
  std::set<std::string> target_names;
  for (const LockedTarget& target : lockfile.targets) {
    if (target.name.empty()) return invalid(path, target.line, "a target has no `name`");
    if (!targets::is_valid_target_name(target.name)) {
      return invalid(path, target.line,
                     str_cat("target name ", in_backticks(target.name.substr(0, 100)),
                             " is not a name (letters, digits, `-`, `_`, `.`)"));
    }
    for (const auto* roots : {&target.extra_roots, &target.group_roots}) {
      for (const auto& [name, edges] : *roots) WV_TRY(check_name("extra or group", name, target.line));
    }
    if (!target_names.insert(target.name).second) {
      return invalid(path, target.line, str_cat("target ", in_backticks(target.name),
                                                " is declared twice"));
    }
  }

  WV_TRY(check_project(lockfile, path));
  // target -> package name -> version, to check edges and the one-version rule.
  std::map<std::string, std::map<pkg::PackageName, std::string>> used;
  for (const LockedPackage& package : lockfile.packages) {
    if (package.name.empty()) return invalid(path, package.line, "a package has no `name`");
    WV_TRY(check_sources(package, path, lockfile.targets.empty()));
    if (!package.marker.empty()) {
      if (Result<pkg::Marker> marker = pkg::parse_marker(package.marker); !marker) {
        return invalid(path, package.line, str_cat(label(package), ": `marker` ",
                                                   in_backticks(package.marker.substr(0, 200)),
                                                   ": ", marker.error().message));
      }
    }

    for (const auto& [target, use] : package.targets) {
      if (!target_names.count(target)) {
        return invalid(path, package.line,
                       str_cat("package ", in_backticks(package.name.str()), " names target ",
                               in_backticks(target), ", which is not declared"));
      }
      if (use.wheels.empty() && !package.has_source()) {
        return invalid(path, package.line,
                       str_cat("package ", in_backticks(package.name.str()), " keeps no wheel for ",
                               "target ", in_backticks(target), " and has no source to build ",
                               "(sdist, directory, vcs or archive)"));
      }
      for (const std::string& wheel : use.wheels) {
        if (!package.find_wheel(wheel)) {
          return invalid(path, package.line,
                         str_cat("target ", in_backticks(target), " chooses ",
                                 in_backticks(wheel), ", which is not listed in the wheels of ",
                                 in_backticks(str_cat(package.name, " ", package.version))));
        }
      }
      auto [it, fresh] = used[target].emplace(package.name, package.version);
      if (!fresh) {
        return invalid(path, package.line,
                       str_cat("target ", in_backticks(target), " uses two versions of ",
                               in_backticks(package.name.str()), ": ", it->second, " and ",
                               package.version));
      }
    }
  }
  auto check_edge = [&](const std::string& target, const std::string& edge,
                        int line) -> Result<void> {
    auto& versions = used[target];
    Result<pkg::PackageName> name = edge_package(edge);
    auto it = name ? versions.find(*name) : versions.end();
    if (it == versions.end() || it->second != edge_version(edge)) {
      return invalid(path, line,
                     str_cat("target ", in_backticks(target), " depends on ", in_backticks(edge),
                             ", but no package entry provides it for that target"));
    }
    return {};
  };
  for (const LockedPackage& package : lockfile.packages) {
    for (const auto& [target, use] : package.targets) {
      for (const std::string& edge : use.dependencies) WV_TRY(check_edge(target, edge, package.line));
      for (const auto& [extra, edges] : use.extra_dependencies) {
        for (const std::string& edge : edges) WV_TRY(check_edge(target, edge, package.line));
      }
    }
  }
  for (const LockedTarget& target : lockfile.targets) {
    for (const std::string& root : target.roots) WV_TRY(check_edge(target.name, root, target.line));
    for (const auto* roots : {&target.extra_roots, &target.group_roots}) {
      for (const auto& [name, edges] : *roots) {
        for (const std::string& edge : edges) WV_TRY(check_edge(target.name, edge, target.line));
      }
    }
  }
  return {};
}

std::string_view edge_name(std::string_view edge) {
  std::size_t end = edge.find_first_of("[=");
  return edge.substr(0, end);
}

Result<pkg::PackageName> edge_package(std::string_view edge) {
  return pkg::parse_normalized_name(edge_name(edge));
}

}  // namespace wv::lock
