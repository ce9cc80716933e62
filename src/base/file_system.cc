#include "src/base/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <system_error>

#include "src/base/platform.h"
#include "src/base/sha256.h"
#include "src/base/str.h"

namespace wv {
namespace fs = std::filesystem;

namespace {

ErrorCode kind_of(const std::error_code& code) {
  return code == std::errc::no_such_file_or_directory ? ErrorCode::kNotFound : ErrorCode::kIo;
}

Error io_error(std::string_view action, const std::string& path, const std::error_code& code) {
  return make_error(kind_of(code),
                    str_cat("cannot ", action, " ", in_backticks(path), ": ", code.message()));
}

Error errno_error(std::string_view action, const std::string& path) {
  return io_error(action, path, std::error_code(errno, std::generic_category()));
}

// The same for an action from one path to another: "cannot rename `a` to `b`: ...".
Error errno_error(std::string_view action, const std::string& from, const std::string& to) {
  const std::error_code code(errno, std::generic_category());
  return make_error(kind_of(code), str_cat("cannot ", action, " ", in_backticks(from), " to ",
                                           in_backticks(to), ": ", code.message()));
}

FileType type_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::regular: return FileType::kRegular;
    case fs::file_type::directory: return FileType::kDirectory;
    case fs::file_type::symlink: return FileType::kSymlink;
    default: return FileType::kOther;
  }
}

// What a file that read_file refuses is, for its message.
const char* describe_file_mode(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

Result<std::string> RealFileSystem::read_file(const std::string& path, Limit limit,
                                              std::uint64_t max_bytes) const {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; fstat
  // below refuses it before any read. O_NOCTTY: a terminal device never becomes ours.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int open_errno = errno;
    struct ::stat link {};
    if (open_errno == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      return make_error(ErrorCode::kNotFound,
                        str_cat("cannot read ", in_backticks(path),
                                ": it is a symbolic link to a path that does not exist"));
    }
    if (open_errno == ENXIO) {  // a socket, or a FIFO opened for writing elsewhere
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("cannot read ", in_backticks(path), ": it is not a regular file"));
    }
    errno = open_errno;
    return errno_error("read", path);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct ::stat info {};
  if (::fstat(fd, &info) != 0) return errno_error("read", path);
  if (!S_ISREG(info.st_mode)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot read ", in_backticks(path), ": it is ",
                              describe_file_mode(info.st_mode), ", not a regular file"));
  }
  const std::string what = str_cat("file ", in_backticks(path));
  // The size stat gives is a hint, not a bound (the file may grow, /proc files say 0): refuse
  // early when it is already over, and still count what the reads return.
  const std::uint64_t stated = info.st_size > 0 ? std::uint64_t(info.st_size) : 0;
  if (stated > max_bytes) return limit_error(limit, what, stated, max_bytes);
  std::string content;
  char buffer[1 << 16];
  // The only exceptions here are the string's own (a raised limit over the memory there is):
  // they become an error like any other failed read.
  try {
    content.reserve(static_cast<std::size_t>(stated));
    while (true) {
      // At most max_bytes + 1 in all: one byte over is enough to know the file is too long.
      const std::uint64_t room = max_bytes - content.size();  // content.size() <= max_bytes
      const std::size_t want =
          room >= sizeof buffer ? sizeof buffer : static_cast<std::size_t>(room) + 1;
      ssize_t got = ::read(fd, buffer, want);
      if (got < 0) {
        if (errno == EINTR) continue;
        return errno_error("read", path);
      }
      if (got == 0) break;
      if (std::uint64_t(got) > room) return limit_error(limit, what, std::nullopt, max_bytes);
      content.append(buffer, std::size_t(got));
    }
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::kIo, str_cat("cannot read ", in_backticks(path), ": out of memory"));
  } catch (const std::length_error&) {
    return make_error(ErrorCode::kIo, str_cat("cannot read ", in_backticks(path), ": out of memory"));
  }
  return content;
}

Result<void> RealFileSystem::write_file_atomic(const std::string& path, std::string_view content,
                                               bool durable) {
  static std::atomic<unsigned> counter{0};
  std::string temporary =
      str_cat(path, ".tmp.", std::uint64_t(::getpid()), ".", counter.fetch_add(1));
  // Errors name `path`, not the temporary: that is the file the user knows of.
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_error("write", path);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t wrote = ::write(fd, data, left);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      Error error = errno_error("write", path);
      ::close(fd);
      ::unlink(temporary.c_str());
      return error;
    }
    data += wrote;
    left -= std::size_t(wrote);
  }
  // fsync before rename: after a crash the new name never points at an empty file.
  if ((durable && platform::sync_file(fd) != 0) || ::close(fd) != 0) {
    Error error = errno_error("write", path);
    ::unlink(temporary.c_str());
    return error;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Error error = errno_error("replace", path);
    ::unlink(temporary.c_str());
    return error;
  }
  return {};
}

namespace {

// The fields of FileInfo that come from `raw` (the type is already set).
FileInfo with_stat(FileInfo info, const struct ::stat& raw) {
  if (info.type == FileType::kRegular) info.size = std::uint64_t(raw.st_size);
  info.modified_unix_seconds = std::int64_t(raw.st_mtime);
  info.modified_ns = platform::modified_ns(raw);
  info.device = std::uint64_t(raw.st_dev);
  info.inode = std::uint64_t(raw.st_ino);
  info.links = std::uint64_t(raw.st_nlink);
  info.executable = (raw.st_mode & S_IXUSR) != 0;
  return info;
}

}  // namespace

Result<FileInfo> RealFileSystem::stat(const std::string& path) const {
  std::error_code code;
  fs::file_status status = fs::symlink_status(path, code);
  if (code) return io_error("inspect", path, code);
  if (status.type() == fs::file_type::not_found) {
    return make_error(ErrorCode::kNotFound, str_cat(in_backticks(path), " does not exist"));
  }
  FileInfo info;
  info.type = type_of(status.type());
  struct ::stat raw {};
  if (::lstat(path.c_str(), &raw) != 0) return errno_error("inspect", path);
  return with_stat(info, raw);
}

Result<FileInfo> RealFileSystem::stat_followed(const std::string& path) const {
  struct ::stat raw {};
  if (::stat(path.c_str(), &raw) != 0) {
    if (errno == ENOENT) {
      return make_error(ErrorCode::kNotFound, str_cat(in_backticks(path), " does not exist"));
    }
    return errno_error("inspect", path);
  }
  FileInfo info;
  info.type = S_ISREG(raw.st_mode)   ? FileType::kRegular
              : S_ISDIR(raw.st_mode) ? FileType::kDirectory
                                     : FileType::kOther;
  return with_stat(info, raw);
}

Result<std::vector<DirectoryEntry>> RealFileSystem::list_directory(const std::string& path) const {
  // readdir's d_type gives each entry's type; only a file system that leaves it unknown costs
  // an lstat per entry (a find-links folder of 500k files: 500k lstat calls otherwise).
  DIR* folder = ::opendir(path.c_str());
  if (folder == nullptr) return errno_error("list", path);
  struct DirCloser {
    DIR* folder;
    ~DirCloser() { ::closedir(folder); }
  } closer{folder};
  std::vector<DirectoryEntry> entries;
  while (true) {
    errno = 0;
    const struct ::dirent* entry = ::readdir(folder);
    if (entry == nullptr) {
      if (errno != 0) return errno_error("list", path);
      break;
    }
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    FileType type = FileType::kOther;
    switch (entry->d_type) {
      case DT_REG: type = FileType::kRegular; break;
      case DT_DIR: type = FileType::kDirectory; break;
      case DT_LNK: type = FileType::kSymlink; break;
      case DT_UNKNOWN: {
        struct ::stat raw {};
        if (::fstatat(::dirfd(folder), entry->d_name, &raw, AT_SYMLINK_NOFOLLOW) == 0) {
          type = S_ISREG(raw.st_mode)   ? FileType::kRegular
                 : S_ISDIR(raw.st_mode) ? FileType::kDirectory
                 : S_ISLNK(raw.st_mode) ? FileType::kSymlink
                                        : FileType::kOther;
        }
        break;
      }
      default: break;
    }
    entries.push_back({std::string(name), type});
  }
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

Result<void> RealFileSystem::create_directories(const std::string& path) {
  std::error_code code;
  fs::create_directories(path, code);
  if (code) return io_error("create folder", path, code);
  return {};
}

Result<void> RealFileSystem::remove(const std::string& path) {
  std::error_code code;
  fs::remove(path, code);
  if (code) return io_error("remove", path, code);
  return {};
}

Result<void> RealFileSystem::remove_all(const std::string& path) {
  std::error_code code;
  fs::remove_all(path, code);
  if (code) return io_error("remove", path, code);
  return {};
}

Result<void> RealFileSystem::rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return errno_error("rename", from, to);
  return {};
}

Result<std::string> RealFileSystem::content_sha256(const std::string& path) const {
  return sha256_file_hex(path);
}

std::string path_join(std::string_view base, std::string_view leaf) {
  // `./` adds nothing but noise to a path shown to the user (`./../generated/simple`).
  while (leaf.size() > 2 && leaf.substr(0, 2) == "./") leaf.remove_prefix(2);
  if (base == "." && !leaf.empty()) return std::string(leaf);
  if (base.empty()) return std::string(leaf);
  if (leaf.empty()) return std::string(base);
  if (leaf.front() == '/') return std::string(leaf);
  std::string out(base);
  if (out.back() != '/') out.push_back('/');
  out.append(leaf);
  return out;
}

namespace {

// Absolute, and with no empty, `.` or `..` segment (a trailing `/` aside): what
// lexically_normal() would give back unchanged, so the common case skips std::filesystem.
bool is_normal_absolute(std::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  for (std::size_t start = 1; start < path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == ".." || (segment.empty() && end != path.size())) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string absolute_path(std::string_view path) {
  // The common cases skip std::filesystem: a path already absolute and normal, or a plain
  // relative one (`.venv`) joined to a normal working folder, as std::filesystem::absolute()
  // would (it asks getcwd() too) and lexically_normal() keeps.
  std::string text;
  char folder[4096];
  if (path.empty() || path[0] == '/') {
    text = path;
  } else if (::getcwd(folder, sizeof folder) != nullptr) {
    text = str_cat(folder, "/", path);
  }
  if (!is_normal_absolute(text)) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(std::filesystem::path(path), ec);
    if (ec) absolute = std::filesystem::path(path);
    text = absolute.lexically_normal().generic_string();
  }
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::string relative_path(std::string_view path, std::string_view base) {
  return std::filesystem::path(absolute_path(path))
      .lexically_relative(absolute_path(base))
      .generic_string();
}

std::string path_parent(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string_view path_filename(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace wv
