// The commit's journal (docs/install.md, "Safety"): every change the commit is about to make to
// the environment, written durably before the first move, so that a failure midway is undone
// at once and a sync killed midway is undone by the next one (repair_environment).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"

namespace wv::install {

/// What the commit moves: T = an existing file moved to the trash, R = a folder removed once
/// its files were trashed (a file of the new version takes its place), D = a folder created,
/// P = a staged file (`N/rel`, N the wheel) moved into place at `rel`. Written before the first
/// move.
struct Journal {
  std::string staging;  ///< folder name under the root
  std::vector<std::string> trashed;
  std::vector<std::string> vacated_dirs;  ///< deepest first
  std::vector<std::string> created_dirs;
  std::vector<std::string> placed;

  std::string serialize() const;
  /// Refuses anything but a journal this version wrote; `path` names it in errors.
  static Result<Journal> parse(std::string_view text, std::string_view path);
};

/// A staged path `N/rel` (wheel N's staging folder) -> its destination `rel`.
std::string destination_of(std::string_view staged);

/// A failed step of the commit or of its roll back is a file system error (kIo, exit 3),
/// whatever its cause: `result` with that code.
Result<void> io_failure(Result<void> result);

/// Renames `from` to `to`, creating the parent first unless `parents_exist` (io_failure).
Result<void> move_file(FileSystem& file_system, const std::string& from, const std::string& to,
                       bool parents_exist = false);

/// Undoes a journal: placed files whose staged copy is gone are removed, created folders go
/// (deepest first, only when empty), removed folders come back, then trashed files. Folders
/// go before files come back because a file may return where a created folder stood. A path
/// that cannot be inspected stops it (the journal stays for the next try), never passes for
/// an absent one.
Result<void> roll_back(FileSystem& file_system, const std::string& root, const Journal& journal);

/// Rolls back an interrupted sync's journal, if any, and removes the staging and trash folders
/// a killed sync left. Returns a note saying what was repaired ("" when there was no journal).
/// Called by sync() under the sync lock.
Result<std::string> repair_environment(FileSystem& file_system, const std::string& root);

}  // namespace wv::install
