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

int start_write_back(int fd, std::uint64_t offset, std::uint64_t length) {
  return ::sync_file_range(fd, static_cast<off_t>(offset), static_cast<off_t>(length),
                           SYNC_FILE_RANGE_WRITE);
}

bool has_write_back() { return true; }

int exchange_paths(const char* a, const char* b) {
  return ::renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

std::int64_t modified_ns(const struct ::stat& info) {
  return std::int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

std::int64_t changed_ns(const struct ::stat& info) {
  return std::int64_t(info.st_ctim.tv_sec) * 1'000'000'000 + info.st_ctim.tv_nsec;
}

std::vector<std::string> command_line() {
  std::vector<std::string> arguments;
  FILE* file = ::fopen("/proc/self/cmdline", "re");
  if (file == nullptr) return arguments;
  std::string text;
  char buffer[4096];
  for (std::size_t got; (got = ::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, got);
  ::fclose(file);
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    arguments.push_back(text.substr(start, end - start));
  }
  return arguments;
}

std::string hardware_epoch() {
  std::string epoch;
  if (FILE* file = ::fopen("/proc/sys/kernel/random/boot_id", "re")) {
    char buffer[64] = {};
    epoch = std::string(buffer, ::fread(buffer, 1, sizeof buffer, file));
    ::fclose(file);
  }
  // A driver reloaded without a reboot (an upgrade) makes its module folder anew.
  for (const char* module : {"/sys/module/nvidia", "/sys/module/amdgpu"}) {
    struct ::stat info {};
    if (::stat(module, &info) == 0) {
      epoch += " " + std::to_string(info.st_ino) + ":" + std::to_string(changed_ns(info));
    } else {
      epoch += " -";
    }
  }
  return epoch;
}

std::string executable_path() {
  char buffer[4096];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof buffer);
  return length > 0 && static_cast<std::size_t>(length) < sizeof buffer ? std::string(buffer, length) : "";
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
