// The destination rule, the symlink check on the way to every path the commit touches, and the
// byte-code caches that leave with a module.
#include "src/install/destinations.h"

#include <algorithm>
#include <filesystem>

#include "src/base/str.h"

namespace wv::install {

std::string DestinationCheck::whose(const std::string& rel) const {
  std::string name = owner(rel);
  return name.empty() ? std::string("no installed distribution records it")
                      : str_cat("it belongs to ", in_backticks(name));
}

bool DestinationCheck::is_scheme_folder(const std::string& rel) const {
  for (const std::string* folder : {&scheme.purelib, &scheme.platlib, &scheme.scripts,
                                    &scheme.headers, &scheme.data}) {
    if (*folder == rel ||
        (folder->size() > rel.size() && folder->compare(0, rel.size(), rel) == 0 &&
         (*folder)[rel.size()] == '/')) {
      return true;
    }
  }
  return false;
}

bool DestinationCheck::already_there(const std::string& rel) const {
  const std::string destination = path_join(root, rel);
  Result<FileInfo> existing = file_system.stat(destination);
  Result<FileInfo> incoming = file_system.stat(staged(rel));
  if (!existing || existing->type != FileType::kRegular || !incoming ||
      existing->size != incoming->size || existing->executable != incoming->executable) {
    return false;
  }
  Result<std::string> a = file_system.content_sha256(destination);
  Result<std::string> b = file_system.content_sha256(staged(rel));
  return a && b && *a == *b;
}

const std::optional<FileInfo>& DestinationCheck::folder_info(const std::string& prefix) const {
  auto [it, fresh] = folders.try_emplace(prefix);
  if (fresh) {
    if (Result<FileInfo> info = file_system.stat(path_join(root, prefix))) it->second = *info;
  }
  return it->second;
}

Result<bool> DestinationCheck::check_parents(const std::string& rel) const {
  std::vector<std::string_view> parts = split(rel, '/');
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix = prefix.empty() ? std::string(parts[i]) : str_cat(prefix, "/", parts[i]);
    const std::optional<FileInfo>& info = folder_info(prefix);
    if (!info) return false;  // created by this sync
    if (info->type == FileType::kDirectory) continue;
    if (trashed.count(prefix)) return false;  // an old file that leaves; a folder takes its place
    if (info->type == FileType::kSymlink) {
      if (is_scheme_folder(prefix)) continue;
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(source(rel), " installs ", in_backticks(rel), " through ",
                                in_backticks(path_join(root, prefix)), ", a symlink wvlock did "
                                "not create; refusing to write through it"));
    }
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(source(rel), " installs ", in_backticks(rel), ", but ",
                              in_backticks(path_join(root, prefix)), " is a file, not a folder (",
                              whose(prefix), "); refusing to replace it"));
  }
  return true;
}

Result<bool> DestinationCheck::check(const std::string& rel,
                                     std::vector<std::string>& vacated) const {
  WV_ASSIGN_OR_RETURN(bool parents_there, check_parents(rel));
  if (!parents_there) return false;  // nothing can be at `rel` yet
  Result<FileInfo> info = file_system.stat(path_join(root, rel));
  if (!info) return false;
  if (info->type != FileType::kDirectory) {
    if (trashed.count(rel)) return false;
    if (already_there(rel)) return true;
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(source(rel), " would replace ", in_backticks(path_join(root, rel)),
                              " (", whose(rel), "); only the files of a distribution this sync "
                              "upgrades or removes are replaced"));
  }
  WV_TRY(check_folder(rel, vacated));
  return false;
}

Result<void> DestinationCheck::check_folder(const std::string& rel,
                                            std::vector<std::string>& vacated) const {
  auto refuse = [&](const std::string& why) -> Error {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(source(rel), " installs a file at ", in_backticks(rel), ", but ",
                              in_backticks(path_join(root, rel)), " is a folder (", why,
                              "); wvlock never replaces a folder it does not own as a whole"));
  };
  if (is_scheme_folder(rel)) return refuse("one of the environment's own");
  // Every folder inside (symlinks not followed), or the first entry that stays.
  std::vector<std::string> inside = {rel};
  for (std::size_t next = 0; next < inside.size(); ++next) {
    const std::string folder = inside[next];
    Result<std::vector<DirectoryEntry>> entries =
        file_system.list_directory(path_join(root, folder));
    if (!entries) return refuse(str_cat("it cannot be read: ", entries.error().message));
    for (const DirectoryEntry& entry : *entries) {
      const std::string inner = str_cat(folder, "/", entry.name);
      if (entry.type == FileType::kDirectory) {
        inside.push_back(inner);
      } else if (!trashed.count(inner)) {
        return refuse(str_cat("it holds ", in_backticks(inner), ", which this sync keeps: ",
                              whose(inner)));
      }
    }
  }
  // Deepest first: a folder's path is longer than every folder above it.
  std::sort(inside.begin(), inside.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  vacated.insert(vacated.end(), inside.begin(), inside.end());
  return {};
}

Result<void> check_inside(const FileSystem& file_system, const std::string& root,
                          const std::string& real_root, const std::string& rel,
                          std::set<std::string>& checked) {
  // Every folder above one already checked was checked with it (or is absent, created by us).
  if (std::size_t slash = rel.rfind('/');
      slash != std::string::npos && checked.count(path_join(root, rel.substr(0, slash)))) {
    return {};
  }
  std::string current = root;
  std::vector<std::string_view> parts = split(rel, '/');
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    current = path_join(current, parts[i]);
    if (!checked.insert(current).second) continue;
    Result<FileInfo> info = file_system.stat(current);
    if (!info) return {};  // does not exist yet: created by us
    if (info->type != FileType::kSymlink) continue;
    Result<std::string> target = file_system.real_path(current);
    if (!target || (*target != real_root && target->compare(0, real_root.size() + 1,
                                                             real_root + "/") != 0)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(current), " is a symlink leading outside the "
                                "environment; refusing to write ", in_backticks(rel),
                                " through it"));
    }
  }
  return {};
}

std::vector<std::string> pycache_of(const FileSystem& file_system, const std::string& root,
                                    const std::string& rel) {
  namespace fs = std::filesystem;  // lexical only: the stem and the folder of `rel`
  std::vector<std::string> result;
  if (rel.size() < 3 || rel.compare(rel.size() - 3, 3, ".py") != 0) return result;
  fs::path path(rel);
  const std::string stem = path.stem().string() + ".";
  const fs::path cache = path.parent_path() / "__pycache__";
  Result<std::vector<DirectoryEntry>> entries =
      file_system.list_directory(path_join(root, cache.string()));
  if (!entries) return result;  // no caches
  for (const DirectoryEntry& entry : *entries) {
    const std::string& name = entry.name;
    if (name.compare(0, stem.size(), stem) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".pyc") == 0) {
      result.push_back((cache / name).generic_string());
    }
  }
  return result;
}

}  // namespace wv::install
