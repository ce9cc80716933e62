// A file system that fails on purpose, for the all-or-nothing tests of sync: the rename after
// the first N fails, as a full disk or a yanked device would, and the ones after it work again
// (so a roll back can run). In the killed mode every operation fails from that rename on, as
// nothing more happens after a SIGKILL: no roll back runs, and the journal and the staging
// folder stay for the next sync to repair.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"

namespace wv::test {

class FaultyFileSystem : public ForwardingFileSystem {
 public:
  enum class Mode { kFailOnce, kKilled };

  /// `renames_before_failure` renames succeed; the next one fails (a negative count: none).
  FaultyFileSystem(FileSystem& inner, int renames_before_failure, Mode mode = Mode::kFailOnce);

  /// Renames asked for so far, the failed one included.
  int renames() const { return renames_; }
  /// The content of every write_file_atomic() so far, by path (the last one).
  const std::map<std::string, std::string>& written() const { return written_; }

  using FileSystem::read_file;
  Result<std::string> read_file(const std::string& path, Limit limit,
                                std::uint64_t max_bytes) const override;
  Result<void> write_file_atomic(const std::string& path, std::string_view content,
                                 bool durable = true) override;
  Result<FileInfo> stat(const std::string& path) const override;
  Result<FileInfo> stat_followed(const std::string& path) const override;
  Result<std::vector<DirectoryEntry>> list_directory(const std::string& path) const override;
  Result<void> create_directories(const std::string& path) override;
  Result<void> remove(const std::string& path) override;
  Result<void> remove_all(const std::string& path) override;
  Result<void> rename(const std::string& from, const std::string& to) override;
  Result<void> create_directory(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> create_file(const std::string& path,
                                                    bool executable) override;
  Result<LinkMode> link_file(const std::string& from, const std::string& to,
                             LinkMode mode) override;
  Result<std::string> real_path(const std::string& path) const override;
  Result<void> sync_file_system(const std::string& path) override;
  Result<std::string> content_sha256(const std::string& path) const override;

 private:
  /// Fails every operation once the killed mode's failure happened.
  Result<void> alive(const std::string& path) const;

  int renames_before_failure_;
  Mode mode_;
  int renames_ = 0;
  bool killed_ = false;
  std::map<std::string, std::string> written_;
};

}  // namespace wv::test
