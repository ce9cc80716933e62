// The journal's text form, its roll back, and the repair of an environment a killed sync left.
#include "src/install/journal.h"

#include "src/base/str.h"
#include "src/install/environment.h"
#include "src/install/wheel_unpack.h"

namespace wv::install {

std::string Journal::serialize() const {
  std::string out = str_cat("wvlock-journal 1\nS ", staging, "\n");
  for (const auto& rel : trashed) out += str_cat("T ", rel, "\n");
  for (const auto& rel : vacated_dirs) out += str_cat("R ", rel, "\n");
  for (const auto& rel : created_dirs) out += str_cat("D ", rel, "\n");
  for (const auto& rel : placed) out += str_cat("P ", rel, "\n");
  return out;
}

Result<Journal> Journal::parse(std::string_view text, std::string_view path) {
  Journal journal;
  std::vector<std::string_view> lines = split(text, '\n');
  if (lines.empty() || lines.front() != "wvlock-journal 1") {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path), " is not a wvlock journal; remove it by hand "
                                                  "after checking the environment"));
  }
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    if (line.size() < 3 || line[1] != ' ' || !check_member_name(line.substr(2)).empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(path, ":", i + 1, ": expected `T|R|D|P|S <relative path>`"));
    }
    std::string rel(line.substr(2));
    switch (line[0]) {
      case 'S': journal.staging = rel; break;
      case 'T': journal.trashed.push_back(rel); break;
      case 'R': journal.vacated_dirs.push_back(rel); break;
      case 'D': journal.created_dirs.push_back(rel); break;
      case 'P': journal.placed.push_back(rel); break;
      default:
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(path, ":", i + 1, ": unknown journal entry"));
    }
  }
  return journal;
}

std::string destination_of(std::string_view staged) {
  std::size_t slash = staged.find('/');
  return std::string(slash == std::string_view::npos ? staged : staged.substr(slash + 1));
}

Result<void> io_failure(Result<void> result) {
  if (result) return result;
  Error error = std::move(result).error();
  error.code = ErrorCode::kIo;
  return error;
}

Result<void> move_file(FileSystem& file_system, const std::string& from, const std::string& to,
                       bool parents_exist) {
  if (!parents_exist) WV_TRY(io_failure(file_system.create_directories(path_parent(to))));
  return io_failure(file_system.rename(from, to));
}

namespace {

// Whether `path` exists (not following a symlink); an error other than its absence is one.
Result<bool> present(const FileSystem& file_system, const std::string& path) {
  Result<FileInfo> info = file_system.stat(path);
  if (info) return true;
  if (info.error().code == ErrorCode::kNotFound) return false;
  return std::move(info).error();
}

}  // namespace

Result<void> roll_back(FileSystem& file_system, const std::string& root, const Journal& journal) {
  const std::string staging = path_join(root, journal.staging);
  const std::string trash = path_join(root, kTrashName);
  for (const std::string& staged : journal.placed) {
    const std::string destination = path_join(root, destination_of(staged));
    WV_ASSIGN_OR_RETURN(bool still_staged, present(file_system, path_join(staging, staged)));
    if (still_staged) continue;
    // A placed folder (a whole new package folder moved in one rename) did not exist before
    // the sync: it goes whole.
    Result<FileInfo> placed = file_system.stat(destination);
    if (!placed && placed.error().code != ErrorCode::kNotFound) return std::move(placed).error();
    if (placed && placed->type == FileType::kDirectory) WV_TRY(file_system.remove_all(destination));
    else if (placed) WV_TRY(file_system.remove(destination));
  }
  for (auto it = journal.created_dirs.rbegin(); it != journal.created_dirs.rend(); ++it) {
    (void)file_system.remove(path_join(root, *it));  // fails (kept) when not empty
  }
  for (auto it = journal.vacated_dirs.rbegin(); it != journal.vacated_dirs.rend(); ++it) {
    (void)file_system.create_directories(path_join(root, *it));
  }
  for (const std::string& rel : journal.trashed) {
    WV_ASSIGN_OR_RETURN(bool kept, present(file_system, path_join(trash, rel)));
    if (kept) WV_TRY(move_file(file_system, path_join(trash, rel), path_join(root, rel)));
  }
  return {};
}

Result<std::string> repair_environment(FileSystem& file_system, const std::string& root) {
  const std::string journal_path = path_join(root, kJournalName);
  std::string note;
  WV_ASSIGN_OR_RETURN(bool interrupted, present(file_system, journal_path));
  if (interrupted) {
    WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(journal_path));
    WV_ASSIGN_OR_RETURN(Journal journal, Journal::parse(text, journal_path));
    WV_TRY(roll_back(file_system, root, journal));
    note = str_cat("an interrupted sync left ", in_backticks(journal_path),
                   "; its changes were rolled back (", journal.placed.size(),
                   " placed paths removed, ", journal.trashed.size(), " restored)");
    WV_TRY(file_system.remove(journal_path));
  }
  // Leftover staging and trash folders of a killed sync.
  Result<std::vector<DirectoryEntry>> entries = file_system.list_directory(root);
  if (!entries) return note;
  for (const DirectoryEntry& entry : *entries) {
    const std::string_view name = entry.name;
    if (name.substr(0, kStagingPrefix.size()) == kStagingPrefix || name == kTrashName) {
      (void)file_system.remove_all(path_join(root, name));
    }
  }
  return note;
}

}  // namespace wv::install
