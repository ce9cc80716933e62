// Starting a file's write-back while it is still being written: the cold sync extracts a
// wheel's 1.5 GB into the cache, and the commit's syncfs() (docs/install.md, "Power loss")
// would otherwise write all of it only then, with the cores idle. Started early, the disk
// works while the cores inflate, and the flush finds little left. Only a hint, never an error:
// what it does not start, syncfs() writes.
#pragma once

#include <cstdint>
#include <string>
#include <thread>

namespace wv::install {

/// For one file being written at `path` (declared `size` bytes): `wrote(n)` after each write
/// starts the write-back of every full step written; the rest starts when it is destroyed. A
/// small file is left to syncfs(), which writes it with its neighbours.
class EarlyWriteBack {
 public:
  EarlyWriteBack(const std::string& path, std::uint64_t size);
  ~EarlyWriteBack();
  EarlyWriteBack(const EarlyWriteBack&) = delete;
  EarlyWriteBack& operator=(const EarlyWriteBack&) = delete;
  void wrote(std::uint64_t bytes);

 private:
  void start(std::uint64_t length);  // 0: to the end of the file
  int fd_ = -1;
  std::uint64_t started_ = 0;  ///< bytes whose write-back has started
  std::uint64_t pending_ = 0;  ///< bytes written since
};

/// A flush of the file system holding `folder` (syncfs), started on a thread of its own when
/// made and waited for when destroyed: once a sync has extracted wheels into the cache, their
/// small files and folders (which EarlyWriteBack leaves) go to disk while the sync links them
/// into staging, and the commit's own flush finds them written. Only a hint, never an error.
class BackgroundFlush {
 public:
  explicit BackgroundFlush(const std::string& folder);
  ~BackgroundFlush();
  BackgroundFlush(const BackgroundFlush&) = delete;
  BackgroundFlush& operator=(const BackgroundFlush&) = delete;

 private:
  std::thread thread_;
};

}  // namespace wv::install
