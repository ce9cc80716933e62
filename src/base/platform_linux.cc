// The Linux side of src/base/platform.h.
#if defined(__linux__)

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "src/base/platform.h"

namespace wv::platform {

int clone_file(int from_fd, int to_fd, const char* to) {
  (void)to;
  return ::ioctl(to_fd, FICLONE, from_fd) == 0 ? 0 : errno;
}

long long copy_range(int from_fd, int to_fd, std::size_t max_bytes) {
  return ::copy_file_range(from_fd, nullptr, to_fd, nullptr, max_bytes, 0);
}

int sync_file(int fd) { return ::fsync(fd); }

int sync_file_system(int fd) { return ::syncfs(fd); }

int exchange_paths(const char* a, const char* b) {
  return ::renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

std::int64_t modified_ns(const struct ::stat& info) {
  return std::int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

InterpreterPlaces interpreter_places(const std::string& home) {
  InterpreterPlaces places;
  places.folders = {"/usr/bin", "/usr/local/bin"};
  if (!home.empty()) {
    places.installation_roots = {home + "/.pyenv/versions", home + "/.local/share/uv/python"};
  }
  places.described =
      "/usr/bin, /usr/local/bin, ~/.pyenv/versions/*/bin and ~/.local/share/uv/python/*/bin";
  return places;
}

}  // namespace wv::platform

#endif  // __linux__
