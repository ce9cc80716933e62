// Local wheel files checked against the lock.
#include "install/wheel_store.h"

#include <filesystem>

#include "base/file_system.h"
#include "base/sha256.h"
#include "base/str.h"

namespace wv::install {

Result<void> verify_file(const std::string& path, std::string_view sha256,
                         std::optional<std::uint64_t> size, std::string_view what) {
  std::error_code ec;
  std::uint64_t actual_size = std::filesystem::file_size(path, ec);
  if (ec) {
    return make_error(ErrorCode::kNotFound,
                      str_cat("cannot read ", in_backticks(what), " at ", in_backticks(path), ": ",
                              ec.message()));
  }
  if (size && *size != actual_size) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(what), " is ", actual_size, " bytes, the lock says ",
                              *size, " (truncated or replaced file)"));
  }
  WV_ASSIGN_OR_RETURN(std::string digest, sha256_file_hex(path));
  if (digest != to_lower(sha256)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("hash mismatch for ", in_backticks(what), ": the lock expects sha256 ",
                              to_lower(sha256), ", the file has ", digest));
  }
  return {};
}

std::string LocalWheelStore::local_path(const lock::LockedFile& file) const {
  if (!file.path.empty()) {
    if (file.path.front() == '/') return file.path;
    return path_join(lock_dir_.empty() ? std::string(".") : lock_dir_, file.path);
  }
  constexpr std::string_view kFileScheme = "file://";
  if (file.url.compare(0, kFileScheme.size(), kFileScheme) == 0) {
    return file.url.substr(kFileScheme.size());
  }
  return "";
}

Result<std::string> LocalWheelStore::get(const lock::LockedFile& file) {
  std::string path = local_path(file);
  if (path.empty()) {
    if (fallback_ != nullptr) return fallback_->get(file);
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(file.name), " must be downloaded from ",
                              in_backticks(file.url), " and no network store was given"));
  }
  WV_TRY(verify_file(path, file.sha256, file.size, file.name));
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
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
