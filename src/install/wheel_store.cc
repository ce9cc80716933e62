// Local wheel files checked against the lock.
#include "src/install/wheel_store.h"

#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/url.h"
#include "src/base/sha256.h"
#include "src/base/str.h"

namespace wv::install {

LocatedFile inspect_file(const std::string& path, std::string_view sha256,
                         std::optional<std::uint64_t> size, std::string_view what) {
  LocatedFile located;
  located.path = path;
  std::error_code ec;
  const std::uint64_t actual_size = std::filesystem::file_size(path, ec);
  if (ec) {
    located.state = ec == std::errc::no_such_file_or_directory ? FileState::kMissing
                                                               : FileState::kUnreadable;
    located.problem = located.state == FileState::kMissing
                          ? str_cat(in_backticks(what), " is missing: there is no file at ",
                                    in_backticks(path))
                          : str_cat("cannot read ", in_backticks(what), " at ", in_backticks(path),
                                    ": ", ec.message());
    return located;
  }
  if (size && *size != actual_size) {
    located.state = FileState::kMismatch;
    located.problem = str_cat(in_backticks(what), " is ", actual_size, " bytes, the lock says ",
                              *size, " (truncated or replaced file)");
    return located;
  }
  Result<std::string> digest = sha256_file_hex(path);
  if (!digest) {
    located.state = FileState::kUnreadable;
    located.problem = str_cat("cannot read ", in_backticks(what), ": ", digest.error().message);
    return located;
  }
  if (*digest != to_lower(sha256)) {
    located.state = FileState::kMismatch;
    located.problem = str_cat("hash mismatch for ", in_backticks(what), ": the lock expects sha256 ",
                              to_lower(sha256), ", the file has ", *digest);
    return located;
  }
  located.state = FileState::kVerified;
  return located;
}

namespace {

Result<void> as_result(const LocatedFile& located) {
  switch (located.state) {
    case FileState::kVerified:
      return {};
    case FileState::kMismatch:
      return make_error(ErrorCode::kIntegrity, located.problem);
    case FileState::kNotDownloaded:
      return make_error(ErrorCode::kNetwork, located.problem);
    case FileState::kMissing:
    case FileState::kUnreadable:
      break;
  }
  return make_error(ErrorCode::kIo, located.problem);
}

}  // namespace

Result<void> verify_file(const std::string& path, std::string_view sha256,
                         std::optional<std::uint64_t> size, std::string_view what) {
  return as_result(inspect_file(path, sha256, size, what));
}

std::string LocalWheelStore::local_path(const lock::LockedFile& file) const {
  if (!file.path.empty()) {
    if (file.path.front() == '/') return file.path;
    return path_join(lock_dir_.empty() ? std::string(".") : lock_dir_, file.path);
  }
  if (is_file_url(file.url)) return file_url_to_path(file.url).value_or("");
  return "";
}

std::string LocalWheelStore::unverified_path(const lock::LockedFile& file) const {
  std::string path = local_path(file);
  return path.empty() ? path : absolute_path(path);
}

LocatedFile LocalWheelStore::locate(const lock::LockedFile& file) {
  std::string path = local_path(file);
  if (path.empty()) return fallback_ != nullptr ? fallback_->locate(file) : LocatedFile{};
  return inspect_file(absolute_path(path), file.sha256, file.size, file.name);
}

Result<std::string> LocalWheelStore::get(const lock::LockedFile& file) {
  if (local_path(file).empty()) {
    if (fallback_ != nullptr) return fallback_->get(file);
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(file.name), " must be downloaded from ",
                              in_backticks(file.url), " and no network store was given"));
  }
  LocatedFile located = locate(file);
  WV_TRY(as_result(located));
  return located.path;
}

std::vector<Result<std::string>> LocalWheelStore::get_all(
    const std::vector<const lock::LockedFile*>& files) {
  std::vector<std::optional<Result<std::string>>> answers(files.size());
  std::vector<const lock::LockedFile*> remote;
  std::vector<std::size_t> remote_index;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (local_path(*files[i]).empty() && fallback_ != nullptr) {
      remote.push_back(files[i]);
      remote_index.push_back(i);
    } else {
      answers[i] = get(*files[i]);
    }
  }
  if (!remote.empty()) {
    std::vector<Result<std::string>> fetched = fallback_->get_all(remote);
    for (std::size_t j = 0; j < remote.size(); ++j) {
      answers[remote_index[j]] =
          j < fetched.size() ? std::move(fetched[j])
                             : Result<std::string>(make_error(
                                   ErrorCode::kIo, str_cat("no answer for ", in_backticks(remote[j]->name))));
    }
  }
  std::vector<Result<std::string>> results;
  results.reserve(files.size());
  for (auto& answer : answers) results.push_back(std::move(*answer));
  return results;
}

}  // namespace wv::install
