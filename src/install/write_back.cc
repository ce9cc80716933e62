// EarlyWriteBack: platform::start_write_back() (Linux: sync_file_range), which queues the
// pages for writing and waits for nothing; BackgroundFlush: sync_file_system() on a thread.
// Where the platform has no write-back hint neither does anything (the commit's flush writes
// everything).
#include "src/install/write_back.h"

#include <fcntl.h>
#include <unistd.h>

#include "src/base/platform.h"

namespace wv::install {
namespace {

// Smaller files are many and small: one call each would cost more than it saves.
constexpr std::uint64_t kMinBytes = std::uint64_t{1} << 18;
// Big enough for few calls, small enough that a 400 MB library is written as it inflates.
constexpr std::uint64_t kStepBytes = std::uint64_t{8} << 20;

}  // namespace

EarlyWriteBack::EarlyWriteBack(const std::string& path, std::uint64_t size) {
  // A descriptor of its own: the writer's is behind FileSystem's WritableFile.
  if (platform::has_write_back() && size >= kMinBytes) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  }
}

EarlyWriteBack::~EarlyWriteBack() {
  if (fd_ < 0) return;
  if (pending_ > 0) start(0);
  ::close(fd_);
}

void EarlyWriteBack::wrote(std::uint64_t bytes) {
  pending_ += bytes;
  if (fd_ >= 0 && pending_ >= kStepBytes) start(pending_);
}

void EarlyWriteBack::start(std::uint64_t length) {
  (void)platform::start_write_back(fd_, started_, length);
  started_ += pending_;
  pending_ = 0;
}

BackgroundFlush::BackgroundFlush(const std::string& folder) {
  if (!platform::has_write_back()) return;  // a whole-system sync(2) would cost more than it saves
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  thread_ = std::thread([fd] {
    (void)platform::sync_file_system(fd);
    ::close(fd);
  });
}

BackgroundFlush::~BackgroundFlush() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace wv::install
