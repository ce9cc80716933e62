// RealFileSystem's file creation and link_file(): clones, hard links and copies (in the kernel,
// read/write where it cannot), each falling back per file. The clone and the kernel copy are
// the system's own calls (src/base/platform.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/platform.h"
#include "src/base/str.h"

namespace wv {
namespace {

Error errno_error(std::string_view action, const std::string& path, int code) {
  return make_error(code == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                    str_cat("cannot ", action, " ", in_backticks(path), ": ", std::strerror(code)));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

class RealWritableFile final : public WritableFile {
 public:
  RealWritableFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Result<void> write(std::string_view bytes) override {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(fd_.get(), bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        return errno_error("write", path_, errno);
      }
      bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return {};
  }
  Result<void> close() override {
    if (::close(fd_.release()) != 0) return errno_error("write", path_, errno);
    return {};
  }

 private:
  Fd fd_;
  std::string path_;
};

// Opens `path` for writing with `mode`: exclusive, never through a symlink; an existing entry
// is unlinked first (a later wheel's file replaces an earlier one's in a staging tree).
Result<Fd> open_new(const std::string& path, mode_t mode) {
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(path.c_str(), flags, mode);
  if (fd < 0 && errno == EEXIST) {
    ::unlink(path.c_str());
    fd = ::open(path.c_str(), flags, mode);
  }
  if (fd < 0) return errno_error("create", path, errno);
  // The umask may have taken bits the caller asked for (0755 for a script).
  if (::fchmod(fd, mode) != 0) {
    const int code = errno;
    ::close(fd);
    return errno_error("create", path, code);
  }
  return Fd(fd);
}

// Errors that mean "this way cannot place the file here", not "the file system failed".
bool unsupported(int code) {
  return code == EXDEV || code == EOPNOTSUPP || code == ENOTTY || code == EINVAL ||
         code == ENOSYS || code == EPERM || code == EMLINK || code == ENOTSUP;
}

Result<void> copy_contents(int from, int to, const std::string& from_path,
                           const std::string& to_path) {
  bool kernel_copy = true;
  char buffer[1 << 16];
  while (true) {
    if (kernel_copy) {
      const long long copied = platform::copy_range(from, to, std::size_t{1} << 30);
      if (copied > 0) continue;
      if (copied == 0) return {};
      if (errno == EINTR) continue;
      if (!unsupported(errno)) return errno_error("copy", from_path, errno);
      kernel_copy = false;  // older kernels refuse across file systems: copy by hand
    }
    ssize_t got = ::read(from, buffer, sizeof buffer);
    if (got == 0) return {};
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno_error("read", from_path, errno);
    }
    for (ssize_t done = 0; done < got;) {
      ssize_t wrote = ::write(to, buffer + done, static_cast<std::size_t>(got - done));
      if (wrote < 0) {
        if (errno == EINTR) continue;
        return errno_error("write", to_path, errno);
      }
      done += wrote;
    }
  }
}

// A clone (kClone) or a copy (kCopy) of `from` at `to`; Ok(false) when a clone is not possible
// here (nothing is left at `to`).
Result<bool> clone_or_copy(const std::string& from, const std::string& to, bool clone) {
  Fd source(::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (source.get() < 0) return errno_error("read", from, errno);
  struct ::stat info {};
  if (::fstat(source.get(), &info) != 0) return errno_error("read", from, errno);
  if (!S_ISREG(info.st_mode)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot copy ", in_backticks(from), ": not a regular file"));
  }
  WV_ASSIGN_OR_RETURN(Fd target, open_new(to, info.st_mode & 0777));
  if (clone) {
    const int code = platform::clone_file(source.get(), target.get(), to.c_str());
    if (code == 0) {
      if (::close(target.release()) != 0) return errno_error("write", to, errno);
      return true;
    }
    ::unlink(to.c_str());
    if (unsupported(code)) return false;
    return errno_error("clone", from, code);
  }
  Result<void> copied = copy_contents(source.get(), target.get(), from, to);
  if (copied && ::close(target.release()) != 0) copied = errno_error("write", to, errno);
  if (!copied) ::unlink(to.c_str());
  WV_TRY(copied);
  return true;
}

}  // namespace

std::string_view to_string(LinkMode mode) {
  switch (mode) {
    case LinkMode::kAuto: return "auto";
    case LinkMode::kClone: return "clone";
    case LinkMode::kHardlink: return "hardlink";
    case LinkMode::kCopy: return "copy";
  }
  return "auto";
}

Result<void> RealFileSystem::create_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0) return {};
  const int code = errno;
  struct ::stat info {};
  if (code == EEXIST && ::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return {};
  return errno_error("create folder", path, code);
}

Result<std::unique_ptr<WritableFile>> RealFileSystem::create_file(const std::string& path,
                                                                  bool executable) {
  WV_ASSIGN_OR_RETURN(Fd fd, open_new(path, executable ? 0755 : 0644));
  return std::unique_ptr<WritableFile>(std::make_unique<RealWritableFile>(fd.release(), path));
}

Result<LinkMode> RealFileSystem::link_file(const std::string& from, const std::string& to,
                                           LinkMode mode) {
  if (mode == LinkMode::kAuto || mode == LinkMode::kClone) {
    WV_ASSIGN_OR_RETURN(bool cloned, clone_or_copy(from, to, true));
    if (cloned) return LinkMode::kClone;
  }
  if (mode == LinkMode::kAuto || mode == LinkMode::kHardlink) {
    if (::link(from.c_str(), to.c_str()) == 0) return LinkMode::kHardlink;
    const int code = errno;
    if (code == EEXIST) {
      ::unlink(to.c_str());
      if (::link(from.c_str(), to.c_str()) == 0) return LinkMode::kHardlink;
    }
    if (!unsupported(errno)) return errno_error("link", from, errno);
  }
  WV_TRY(clone_or_copy(from, to, false));
  return LinkMode::kCopy;
}

Result<std::string> RealFileSystem::real_path(const std::string& path) const {
  std::error_code code;
  std::filesystem::path resolved = std::filesystem::canonical(path, code);
  if (code) return errno_error("resolve", path, code.value());
  return resolved.string();
}

Result<void> RealFileSystem::sync_file_system(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0 || platform::sync_file_system(fd.get()) != 0) {
    return make_error(ErrorCode::kIo, str_cat("cannot flush ", in_backticks(path), " to disk: ",
                                              std::strerror(errno)));
  }
  return {};
}

}  // namespace wv
