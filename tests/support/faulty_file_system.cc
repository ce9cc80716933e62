#include "tests/support/faulty_file_system.h"

#include "src/base/str.h"

namespace wv::test {

FaultyFileSystem::FaultyFileSystem(FileSystem& inner, int renames_before_failure, Mode mode)
    : ForwardingFileSystem(inner), renames_before_failure_(renames_before_failure), mode_(mode) {}

Result<void> FaultyFileSystem::alive(const std::string& path) const {
  if (!killed_) return {};
  return make_error(ErrorCode::kIo, str_cat("simulated: the process was killed before it reached ",
                                            in_backticks(path)));
}

Result<void> FaultyFileSystem::rename(const std::string& from, const std::string& to) {
  WV_TRY(alive(from));
  if (renames_++ == renames_before_failure_) {
    killed_ = mode_ == Mode::kKilled;
    return make_error(ErrorCode::kIo,
                      str_cat("simulated failure after ", renames_before_failure_, " renames"));
  }
  return ForwardingFileSystem::rename(from, to);
}

Result<void> FaultyFileSystem::write_file_atomic(const std::string& path,
                                                 std::string_view content, bool durable) {
  WV_TRY(alive(path));
  written_[path] = std::string(content);
  return ForwardingFileSystem::write_file_atomic(path, content, durable);
}

Result<std::string> FaultyFileSystem::read_file(const std::string& path, Limit limit,
                                                std::uint64_t max_bytes) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::read_file(path, limit, max_bytes);
}

Result<FileInfo> FaultyFileSystem::stat(const std::string& path) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::stat(path);
}

Result<FileInfo> FaultyFileSystem::stat_followed(const std::string& path) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::stat_followed(path);
}

Result<std::vector<DirectoryEntry>> FaultyFileSystem::list_directory(
    const std::string& path) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::list_directory(path);
}

Result<void> FaultyFileSystem::create_directories(const std::string& path) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::create_directories(path);
}

Result<void> FaultyFileSystem::remove(const std::string& path) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::remove(path);
}

Result<void> FaultyFileSystem::remove_all(const std::string& path) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::remove_all(path);
}

Result<void> FaultyFileSystem::create_directory(const std::string& path) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::create_directory(path);
}

Result<std::unique_ptr<WritableFile>> FaultyFileSystem::create_file(const std::string& path,
                                                                    bool executable) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::create_file(path, executable);
}

Result<LinkMode> FaultyFileSystem::link_file(const std::string& from, const std::string& to,
                                             LinkMode mode) {
  WV_TRY(alive(to));
  return ForwardingFileSystem::link_file(from, to, mode);
}

Result<std::string> FaultyFileSystem::real_path(const std::string& path) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::real_path(path);
}

Result<void> FaultyFileSystem::sync_file_system(const std::string& path) {
  WV_TRY(alive(path));
  return ForwardingFileSystem::sync_file_system(path);
}

Result<std::string> FaultyFileSystem::content_sha256(const std::string& path) const {
  WV_TRY(alive(path));
  return ForwardingFileSystem::content_sha256(path);
}

}  // namespace wv::test
