// Wheelhouse folders: reading locked files from one, writing one.
#include "src/install/wheelhouse.h"

#include <unistd.h>

#include <atomic>
#include <map>

#include "src/base/log.h"
#include "src/base/str.h"

namespace wv::install {

bool is_flat_file_name(std::string_view name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

Result<void> check_wheelhouse(const std::string& dir) {
  RealFileSystem file_system;
  Result<FileInfo> info = file_system.stat_followed(dir);
  if (info && info->type == FileType::kDirectory) return {};
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("the wheelhouse ", in_backticks(dir), " is not a folder",
                            info ? std::string() : str_cat(" (", info.error().message, ")")))
      .with_note("`wvlock fetch --into DIR` writes one");
}

std::string WheelhouseStore::find(const lock::LockedFile& file) const {
  if (!is_flat_file_name(file.name)) return "";
  const std::string path = path_join(dir_, file.name);
  const LocatedFile located = inspect_file(path, file.sha256, file.size, file.name);
  if (located.state == FileState::kVerified) return path;
  // Another lock's file of that name, or a damaged copy: not this lock's file.
  if (located.state != FileState::kMissing) log_debug(str_cat("wheelhouse: ", located.problem));
  return "";
}

Result<std::string> WheelhouseStore::get(const lock::LockedFile& file) {
  if (std::string path = find(file); !path.empty()) return path;
  if (fallback_ != nullptr) return fallback_->get(file);
  return make_error(ErrorCode::kNotFound, str_cat(in_backticks(file.name), " is not in the wheelhouse ",
                                                  in_backticks(dir_)));
}

std::vector<Result<std::string>> WheelhouseStore::get_all(
    const std::vector<const lock::LockedFile*>& files) {
  std::vector<Result<std::string>> results(files.size(), Result<std::string>(std::string()));
  std::vector<const lock::LockedFile*> rest;
  std::vector<std::size_t> rest_index;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::string path = find(*files[i]); !path.empty()) {
      results[i] = std::move(path);
    } else {
      rest.push_back(files[i]);
      rest_index.push_back(i);
    }
  }
  if (rest.empty()) return results;
  // What the wheelhouse lacks goes to the fallback in one batch (parallel downloads there).
  std::vector<Result<std::string>> fetched =
      fallback_ != nullptr ? fallback_->get_all(rest) : WheelStore::get_all(rest);
  for (std::size_t j = 0; j < rest.size(); ++j) {
    results[rest_index[j]] =
        j < fetched.size() ? std::move(fetched[j])
                           : Result<std::string>(make_error(
                                 ErrorCode::kIo, str_cat("no answer for ", in_backticks(rest[j]->name))));
  }
  return results;
}

LocatedFile WheelhouseStore::locate(const lock::LockedFile& file) {
  if (std::string path = find(file); !path.empty()) {
    LocatedFile located;
    located.state = FileState::kVerified;
    located.path = std::move(path);
    return located;
  }
  return fallback_ != nullptr ? fallback_->locate(file) : LocatedFile{};
}

Result<std::string> add_to_wheelhouse(FileSystem& file_system, const std::string& dir,
                                      const std::string& source, const lock::LockedFile& file) {
  if (!is_flat_file_name(file.name)) {
    return make_error(ErrorCode::kInvalidLockfile,
                      str_cat("the locked file name ", in_backticks(file.name),
                              " cannot be a file of a wheelhouse (one plain file name is needed)"));
  }
  const std::string path = path_join(dir, file.name);
  if (inspect_file(path, file.sha256, file.size, file.name).state == FileState::kVerified) {
    return path;
  }
  static std::atomic<std::uint64_t> counter{0};
  const std::string temporary =
      path_join(dir, str_cat(".", file.name, ".tmp.", std::uint64_t(::getpid()), ".", counter++));
  (void)file_system.remove(temporary);
  if (Result<LinkMode> placed = file_system.link_file(source, temporary, LinkMode::kClone); !placed) {
    (void)file_system.remove(temporary);
    return std::move(placed).error().with_context(
        str_cat("writing ", in_backticks(file.name), " into the wheelhouse ", in_backticks(dir)));
  }
  if (Result<void> moved = file_system.rename(temporary, path); !moved) {
    (void)file_system.remove(temporary);
    return std::move(moved).error();
  }
  return path;
}

Result<void> write_wheelhouse_manifest(FileSystem& file_system, const std::string& dir,
                                       const std::vector<std::pair<std::string, std::string>>& files) {
  const std::string path = path_join(dir, kWheelhouseManifest);
  std::map<std::string, std::string> lines;  // name -> sha256, sorted by name
  // An earlier fetch's lines stay while their files do: one folder can serve several locks.
  if (Result<std::string> old = file_system.read_file(path); old) {
    for (std::string_view line : split(*old, '\n')) {
      // sha256sum's format: 64 hex digits, two spaces (or " *" for binary mode), the name.
      if (line.size() < 67 || line[64] != ' ') continue;
      const std::string name(line.substr(66));
      if (is_flat_file_name(name) && file_system.exists(path_join(dir, name))) {
        lines[name] = std::string(line.substr(0, 64));
      }
    }
  }
  for (const auto& [name, sha256] : files) lines[name] = to_lower(sha256);
  std::string text;
  for (const auto& [name, sha256] : lines) text += str_cat(sha256, "  ", name, "\n");
  return file_system.write_file_atomic(path, text, false);
}

}  // namespace wv::install
