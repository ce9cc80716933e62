// The macOS side of src/base/platform.h. Compiled and checked by scripts/check-macos.sh; not yet
// linked or run on a Mac (docs/macos.md).
#if defined(__APPLE__)

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <crt_externs.h>
#include <mach-o/dyld.h>
#include <sys/clonefile.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "src/base/platform.h"

namespace wv::platform {

int clone_file(int from_fd, int to_fd, const char* to) {
  (void)to_fd;
  // clonefile makes its destination itself: the empty file the caller created (its checks
  // done: no symlink there, the folder writable) gives way to the clone.
  if (::unlink(to) != 0) return errno;
  return ::fclonefileat(from_fd, AT_FDCWD, to, CLONE_NOFOLLOW) == 0 ? 0 : errno;
}

long long copy_range(int from_fd, int to_fd, std::size_t max_bytes) {
  (void)from_fd;
  (void)to_fd;
  (void)max_bytes;
  errno = ENOSYS;  // the caller copies with read and write
  return -1;
}

int sync_file(int fd) {
  if (::fcntl(fd, F_FULLFSYNC) == 0) return 0;
  return ::fsync(fd);  // a file system without F_FULLFSYNC (a network share)
}

int sync_file_system(int fd) {
  ::sync();
  return sync_file(fd);
}

int start_write_back(int, std::uint64_t, std::uint64_t) { return 0; }

bool has_write_back() { return false; }

int exchange_paths(const char* a, const char* b) { return ::renamex_np(a, b, RENAME_SWAP); }

std::int64_t modified_ns(const struct ::stat& info) {
  return std::int64_t(info.st_mtimespec.tv_sec) * 1'000'000'000 + info.st_mtimespec.tv_nsec;
}

std::int64_t changed_ns(const struct ::stat& info) {
  return std::int64_t(info.st_ctimespec.tv_sec) * 1'000'000'000 + info.st_ctimespec.tv_nsec;
}

std::vector<std::string> command_line() {
  std::vector<std::string> arguments;
  char** argv = *::_NSGetArgv();
  for (int i = 0, n = *::_NSGetArgc(); i < n && argv != nullptr && argv[i] != nullptr; ++i) {
    arguments.emplace_back(argv[i]);
  }
  return arguments;
}

std::string hardware_epoch() {
  struct timeval boot {};
  std::size_t size = sizeof boot;
  if (::sysctlbyname("kern.boottime", &boot, &size, nullptr, 0) != 0) return "";
  return std::to_string(boot.tv_sec) + "." + std::to_string(boot.tv_usec);
}

std::string executable_path() {
  char buffer[4096];
  uint32_t size = sizeof buffer;
  return ::_NSGetExecutablePath(buffer, &size) == 0 ? std::string(buffer) : "";
}

InterpreterPlaces interpreter_places(const std::string& home) {
  InterpreterPlaces places;
  // Homebrew on Apple silicon, then Homebrew on Intel and python.org's links, then the system.
  places.folders = {"/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"};
  places.installation_roots = {"/Library/Frameworks/Python.framework/Versions"};
  if (!home.empty()) {
    places.installation_roots.push_back(home + "/.pyenv/versions");
    places.installation_roots.push_back(home + "/.local/share/uv/python");
  }
  places.described =
      "/opt/homebrew/bin, /usr/local/bin, /usr/bin, "
      "/Library/Frameworks/Python.framework/Versions/*/bin, ~/.pyenv/versions/*/bin and "
      "~/.local/share/uv/python/*/bin";
  return places;
}

}  // namespace wv::platform

#endif  // __APPLE__
