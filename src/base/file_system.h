// The file system as an interface (ninja's DiskInterface): every read and write of wvlock goes
// through it, so tests can use a memory file system and failures become values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/limits.h"
#include "src/base/result.h"

namespace wv {

enum class FileType { kRegular, kDirectory, kSymlink, kOther };

struct FileInfo {
  FileType type = FileType::kOther;
  std::uint64_t size = 0;
  std::int64_t modified_unix_seconds = 0;  ///< the last write (mtime)
  std::int64_t modified_ns = 0;            ///< the same, in nanoseconds since the epoch
  std::uint64_t device = 0;                ///< with the inode, what the path is now
  std::uint64_t inode = 0;
  std::uint64_t links = 0;                 ///< hard links to the inode
  bool executable = false;                 ///< the owner may execute it
};

/// How link_file() places a copy of a file (uv's `--link-mode` names). kAuto: a clone where the
/// file system can (the copy shares blocks until either side is written), else a hard link
/// (the very same file), else a copy. kClone and kHardlink fall back to a copy; every fallback
/// is per file (across devices a hard link cannot be made).
enum class LinkMode { kAuto, kClone, kHardlink, kCopy };

/// "clone", "hardlink", "copy" ("auto" for kAuto).
std::string_view to_string(LinkMode mode);

/// A file being written (FileSystem::create_file). close() reports what a failed write-back
/// would; a file never closed is closed (unchecked) when the object goes.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Result<void> write(std::string_view bytes) = 0;
  virtual Result<void> close() = 0;
};

struct DirectoryEntry {
  std::string name;  ///< the entry's name, not its path
  FileType type = FileType::kOther;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Reads a whole file. Symlinks are followed, and what they end at must be a regular file: a
  /// FIFO, a device, a socket or a folder is refused naming the path and what it is, and never
  /// blocked on or read without end. The bound applies while reading (at most `max_bytes` + 1
  /// bytes are read), so a file that grows, or one behind a symlink that stat() measured as the
  /// link, cannot get past it: a longer file is a kLimit error naming `limit`.
  virtual Result<std::string> read_file(const std::string& path, Limit limit,
                                        std::uint64_t max_bytes) const = 0;
  /// As above, bounded by the process-wide value of `limit`.
  Result<std::string> read_file(const std::string& path, Limit limit) const {
    return read_file(path, limit, limit_value(limit));
  }
  /// As above, bounded by the input-file-bytes limit: every file a user, a tool or a server may
  /// have put there is outside input.
  Result<std::string> read_file(const std::string& path) const {
    return read_file(path, Limit::kInputFileBytes);
  }
  /// Writes through a temporary file in the same folder and renames it over `path`, so a reader
  /// sees the old content or the new one, never a half file. `durable` also syncs the file to
  /// disk before the rename, so a power loss cannot leave an empty file under the new name;
  /// callers that verify what they read (the download cache checks a hash) can skip it.
  virtual Result<void> write_file_atomic(const std::string& path, std::string_view content,
                                         bool durable = true) = 0;
  /// Information about `path` itself (symlinks are not followed); kNotFound when absent.
  virtual Result<FileInfo> stat(const std::string& path) const = 0;
  /// The same about what `path` ends at, symlinks followed (a dangling one is kNotFound).
  virtual Result<FileInfo> stat_followed(const std::string& path) const = 0;
  /// Entries of a folder, sorted by name.
  virtual Result<std::vector<DirectoryEntry>> list_directory(const std::string& path) const = 0;
  virtual Result<void> create_directories(const std::string& path) = 0;
  /// Removes a file or an empty folder; removing an absent path succeeds.
  virtual Result<void> remove(const std::string& path) = 0;
  /// Removes a folder and everything under it.
  virtual Result<void> remove_all(const std::string& path) = 0;
  virtual Result<void> rename(const std::string& from, const std::string& to) = 0;
  /// Creates one folder (its parent must exist); a folder already there is fine.
  virtual Result<void> create_directory(const std::string& path) = 0;
  /// Creates `path` for writing, mode 0644 (0755 when `executable`), never through a symlink
  /// at `path`; a file already there is replaced. The parent must exist.
  virtual Result<std::unique_ptr<WritableFile>> create_file(const std::string& path,
                                                            bool executable) = 0;
  /// Places a copy of the regular file `from` at the absent path `to` as `mode` asks (see
  /// LinkMode), and says how it was placed. A copy keeps the executable bit.
  virtual Result<LinkMode> link_file(const std::string& from, const std::string& to,
                                     LinkMode mode) = 0;
  /// `path` with every symlink resolved, absolute.
  virtual Result<std::string> real_path(const std::string& path) const = 0;
  /// Makes everything written to the file system that holds `path` durable
  /// (platform::sync_file_system).
  virtual Result<void> sync_file_system(const std::string& path) = 0;
  /// The SHA-256 of the content of the file `path` ends at, 64 hex digits, read in pieces (no
  /// whole-file buffer).
  virtual Result<std::string> content_sha256(const std::string& path) const = 0;

  bool exists(const std::string& path) const { return stat(path).has_value(); }
};

/// The real file system (std::filesystem with error codes; never throws).
class RealFileSystem final : public FileSystem {
 public:
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
};

/// Forwards every call to another file system: tests derive from it and change one behaviour
/// (count listings, fail the Nth rename).
class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(FileSystem& inner) : inner_(inner) {}
  using FileSystem::read_file;
  Result<std::string> read_file(const std::string& path, Limit limit,
                                std::uint64_t max_bytes) const override {
    return inner_.read_file(path, limit, max_bytes);
  }
  Result<void> write_file_atomic(const std::string& path, std::string_view content,
                                 bool durable = true) override {
    return inner_.write_file_atomic(path, content, durable);
  }
  Result<FileInfo> stat(const std::string& path) const override { return inner_.stat(path); }
  Result<FileInfo> stat_followed(const std::string& path) const override {
    return inner_.stat_followed(path);
  }
  Result<std::vector<DirectoryEntry>> list_directory(const std::string& path) const override {
    return inner_.list_directory(path);
  }
  Result<void> create_directories(const std::string& path) override {
    return inner_.create_directories(path);
  }
  Result<void> remove(const std::string& path) override { return inner_.remove(path); }
  Result<void> remove_all(const std::string& path) override { return inner_.remove_all(path); }
  Result<void> rename(const std::string& from, const std::string& to) override {
    return inner_.rename(from, to);
  }
  Result<void> create_directory(const std::string& path) override {
    return inner_.create_directory(path);
  }
  Result<std::unique_ptr<WritableFile>> create_file(const std::string& path,
                                                    bool executable) override {
    return inner_.create_file(path, executable);
  }
  Result<LinkMode> link_file(const std::string& from, const std::string& to,
                             LinkMode mode) override {
    return inner_.link_file(from, to, mode);
  }
  Result<std::string> real_path(const std::string& path) const override {
    return inner_.real_path(path);
  }
  Result<void> sync_file_system(const std::string& path) override {
    return inner_.sync_file_system(path);
  }
  Result<std::string> content_sha256(const std::string& path) const override {
    return inner_.content_sha256(path);
  }

 private:
  FileSystem& inner_;
};

/// Removes a temporary folder (or file) and everything under it when the object goes: the
/// partial output of a step that failed midway never stays.
class ScopedRemoval {
 public:
  ScopedRemoval(FileSystem& file_system, std::string path)
      : file_system_(file_system), path_(std::move(path)) {}
  ScopedRemoval(const ScopedRemoval&) = delete;
  ScopedRemoval& operator=(const ScopedRemoval&) = delete;
  ~ScopedRemoval() { (void)file_system_.remove_all(path_); }

 private:
  FileSystem& file_system_;
  std::string path_;
};

/// Joins two path pieces with one '/'.
std::string path_join(std::string_view base, std::string_view leaf);
/// The folder part of a path ("a/b/c" -> "a/b"; "c" -> ".").
std::string path_parent(std::string_view path);
/// The last piece of a path.
std::string_view path_filename(std::string_view path);
/// `path` made absolute against the working folder and lexically normal (`a/./b/../c` ->
/// `/cwd/a/c`), without a trailing `/`; only normalised when the working folder is unreadable.
std::string absolute_path(std::string_view path);
/// `path` relative to `base`, both made absolute_path() first (`../lib/pyproject.toml`).
std::string relative_path(std::string_view path, std::string_view base);

}  // namespace wv
