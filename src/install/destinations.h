// Where the commit may write and what it may take away (docs/hardening.md, class 1), checked
// before anything changes: a file placed by the sync may take the place of (a) nothing, (b) a
// file this sync removes anyway (listed in the RECORD of a distribution it upgrades or
// removes), or (c) a folder whose every file is such a file, which the commit then removes.
// Never a folder with anything else in it, never another distribution's or the environment's
// own file, and never through a symlink or a file on the way (pip: IsADirectoryError /
// NotADirectoryError, after having changed things; here nothing has).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/wheel_unpack.h"

namespace wv::install {

/// The rule above at each destination.
struct DestinationCheck {
  const FileSystem& file_system;
  const std::string& root;
  const InstallScheme& scheme;
  const std::set<std::string>& trashed;
  /// "`member` of wheel `W`" for a destination.
  std::function<std::string(const std::string&)> source;
  /// "`name version`" of the installed distribution whose RECORD lists a path, or "".
  std::function<std::string(const std::string&)> owner;
  /// The staged copy of a destination.
  std::function<std::string(const std::string&)> staged;
  /// What each folder on the way was found to be (nullopt: absent), one stat per folder for
  /// the whole pass instead of one per folder per file (a new 12,000-file package has every
  /// file below the same few). Nothing changes on disk while the destinations are checked.
  mutable std::map<std::string, std::optional<FileInfo>> folders = {};

  /// Ok(true) when the destination already holds the file (nothing to move), Ok(false) when
  /// the file may be moved in (a folder there that leaves whole is added to `vacated`, deepest
  /// first), else the refusal.
  Result<bool> check(const std::string& rel, std::vector<std::string>& vacated) const;

 private:
  /// "it belongs to `name version`", or that no installed distribution records it.
  std::string whose(const std::string& rel) const;
  /// True for the environment's own folders: a scheme folder or one above it. A symlink
  /// there (a distribution's `lib64 -> lib`) is the venv's layout, not something to refuse.
  bool is_scheme_folder(const std::string& rel) const;
  /// True when `rel` already holds exactly the staged file (same bytes, same executable bit):
  /// namespace packages (`nvidia/__init__.py` in every nvidia-* wheel) ship one file from
  /// several distributions, and leaving it as it is replaces nothing.
  bool already_there(const std::string& rel) const;
  /// Every folder on the way to `rel` is a folder, one the sync creates, or a trashed file.
  /// Ok(true) when each one is there as a folder (so `rel` itself may be).
  Result<bool> check_parents(const std::string& rel) const;
  /// A folder on the way, as `folders` remembers it.
  const std::optional<FileInfo>& folder_info(const std::string& prefix) const;
  /// The folder at `rel` leaves whole (every file in it is trashed): its folders, deepest
  /// first, are added to `vacated`.
  Result<void> check_folder(const std::string& rel, std::vector<std::string>& vacated) const;
};

/// Refuses `rel` when an existing folder on its way below the root is a symlink that resolves
/// outside `real_root` (the root, symlinks resolved): a symlinked folder in the environment
/// must not carry a write or a removal outside it. `checked` skips folders seen before.
Result<void> check_inside(const FileSystem& file_system, const std::string& root,
                          const std::string& real_root, const std::string& rel,
                          std::set<std::string>& checked);

/// Python's byte-code caches of a removed module (`__pycache__/mod.*.pyc`), which RECORD
/// does not list; relative to the root like `rel`.
std::vector<std::string> pycache_of(const FileSystem& file_system, const std::string& root,
                                    const std::string& rel);

}  // namespace wv::install
