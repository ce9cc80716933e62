#include "src/install/built_sources.h"

#include <filesystem>

#include "src/base/contained_path.h"
#include "src/base/file_system.h"
#include "src/base/hash.h"
#include "src/base/str.h"
#include "src/pkg/source_tree.h"

namespace wv::install {
namespace fs = std::filesystem;
namespace {

// A digest of what decides a source tree's metadata: the files setuptools, flit, hatch and the
// rest read it from. Its code is not included: an editable install sees code edits anyway,
// and a regular one is rebuilt with `--reinstall`. Each is read only inside the folder (links
// followed, contained_path.h).
Result<std::string> tree_digest(const std::string& directory) {
  Fingerprint fingerprint;
  fingerprint.add("wvlock-tree-1");
  RealFileSystem file_system;
  const std::string what = str_cat("the folder ", in_backticks(directory));
  for (std::string_view leaf : pkg::kMetadataFiles) {
    fingerprint.add(leaf);
    Result<std::string> path = resolve_inside(directory, leaf, what);
    if (!path && path.error().code == ErrorCode::kNotFound) continue;
    if (!path) return std::move(path).error();
    WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(*path));
    fingerprint.add(text);
  }
  return fingerprint.finish().to_hex();
}

}  // namespace

bool installs_editable(const lock::LockedPackage& package, const SyncOptions& options) {
  return options.editable && package.directory && package.directory->editable;
}

const lock::LockedFile* source_file(const lock::LockedPackage& package) {
  if (package.archive) return &package.archive->file;
  if (package.sdist && !package.directory && !package.vcs) return &*package.sdist;
  return nullptr;
}

namespace {

// The folder a directory entry names, against the lock's folder, before its subdirectory.
fs::path locked_folder(const lock::LockedPackage& package, const SyncOptions& options) {
  fs::path path(package.directory->path);
  return path.is_relative() ? fs::path(options.lock_dir) / path : path;
}

// A directory entry's source tree, its subdirectory kept inside the folder the lock names
// (links followed, contained_path.h): a lockfile cannot send sync to read or build elsewhere.
Result<std::string> contained_source_directory(const lock::LockedPackage& package,
                                               const SyncOptions& options) {
  const std::string directory = source_directory(package, options);
  if (package.directory->subdirectory.empty()) return directory;
  const std::string folder = locked_folder(package, options).lexically_normal().generic_string();
  Result<std::string> inside = resolve_inside(folder, package.directory->subdirectory,
                                              str_cat("the folder ", in_backticks(folder)));
  // A missing one is the build's to report, as before.
  if (!inside && inside.error().code != ErrorCode::kNotFound) return std::move(inside).error();
  return directory;
}

}  // namespace

std::string source_directory(const lock::LockedPackage& package, const SyncOptions& options) {
  if (!package.directory) return "";
  fs::path path = locked_folder(package, options);
  if (!package.directory->subdirectory.empty()) path /= package.directory->subdirectory;
  return absolute_path(path.generic_string());
}

Result<SourceIdentities> source_identities(const TargetChoice& selection,
                                                                const SyncOptions& options) {
  SourceIdentities identities;
  for (const ChosenWheel& chosen : selection.wheels) {
    if (chosen.file != nullptr) continue;
    const lock::LockedPackage& package = *chosen.package;
    SourceIdentity identity;
    if (package.vcs) {
      identity.name = str_cat("git:", package.vcs->url.empty() ? package.vcs->path : package.vcs->url,
                              package.vcs->subdirectory.empty() ? "" : "#" + package.vcs->subdirectory);
      identity.digest = package.vcs->commit_id;
    } else if (package.directory) {
      WV_ASSIGN_OR_RETURN(const std::string directory, contained_source_directory(package, options));
      identity.name = str_cat(installs_editable(package, options) ? "editable:" : "directory:",
                              directory);
      WV_ASSIGN_OR_RETURN(identity.digest, tree_digest(directory));
    } else if (const lock::LockedFile* file = source_file(package)) {
      identity.name = str_cat(package.archive ? "archive:" : "sdist:", file->name);
      identity.digest = file->sha256;
    }
    // Spaces would not survive the WVLOCK record's `key = value` lines.
    for (char& c : identity.name) {
      if (c == ' ' || c == '\n') c = '_';
    }
    identities[package.name] = std::move(identity);
  }
  return identities;
}

Result<void> check_buildable(const std::vector<const PlanItem*>& builds, const SyncOptions& options) {
  if (builds.empty()) return {};
  std::vector<std::string> names;
  for (const PlanItem* item : builds) {
    names.push_back(item->version.empty() ? item->name.str() : str_cat(item->name, " ", item->version));
  }
  if (options.no_build) {
    return make_error(ErrorCode::kUnavailable,
                      str_cat("`--no-build` refuses to build ", join(names, ", "),
                              ": the lock has no wheel of ", names.size() == 1 ? "it" : "them",
                              " for this target"))
        .with_note("drop `--no-build` to build them, or `--no-install-project` when it is the "
                   "project itself");
  }
  if (options.builder == nullptr) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(join(names, ", "), " must be built from source, and this "
                                                 "installer has no builder"));
  }
  return {};
}

}  // namespace wv::install
