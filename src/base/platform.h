// The operating system calls that POSIX leaves to each system: file clones, swapping renames,
// durable flushes, stat times, the places interpreters are installed. platform_linux.cc and
// platform_macos.cc implement them (each compiles only on its own system); every other file
// stays POSIX, which tests/check_platform.sh checks. Cheap to include.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wv::platform {

/// Makes the new, empty regular file `to` (open for writing as `to_fd`) a clone of the file open
/// for reading as `from_fd`: the copy shares the data blocks until either side is written.
/// Linux: the FICLONE ioctl on `to_fd`. macOS: `to` is replaced by clonefile(2)'s copy (its
/// mode is the source's); `to_fd` then refers to the unlinked empty file. 0, or an errno value
/// (EXDEV, ENOTSUP, EOPNOTSUPP, ...: no clone here; the caller removes `to`).
int clone_file(int from_fd, int to_fd, const char* to);

/// Copies up to `max_bytes` from `from_fd` to `to_fd` inside the kernel, from and to the files'
/// offsets (Linux: copy_file_range). Bytes copied, 0 at the end of the input, or -1 with errno
/// set (ENOSYS on a system without such a call: the caller copies by hand).
long long copy_range(int from_fd, int to_fd, std::size_t max_bytes);

/// Flushes one file's data and metadata to stable storage before a rename publishes it. Linux:
/// fsync. macOS: fcntl(F_FULLFSYNC), which also empties the drive's write cache (its fsync does
/// not), falling back to fsync where the file system refuses it. 0 or -1 with errno set.
int sync_file(int fd);

/// Makes everything written to the file system that holds the open file `fd` durable. Linux:
/// syncfs. macOS (no per-file-system flush): sync(2), then F_FULLFSYNC on `fd` so the drive
/// empties its cache. 0 or -1 with errno set.
int sync_file_system(int fd);

/// Starts writing `length` bytes of the open file `fd` from `offset` (0: to its end) to disk and
/// waits for nothing (Linux: sync_file_range(SYNC_FILE_RANGE_WRITE)). A hint that makes a later
/// sync_file_system() quicker; 0 or -1 with errno set. Where has_write_back() is false it does
/// nothing (macOS has no such call).
int start_write_back(int fd, std::uint64_t offset, std::uint64_t length);
bool has_write_back();

/// Swaps the names of two existing paths in one atomic step (Linux: renameat2 with
/// RENAME_EXCHANGE; macOS: renamex_np with RENAME_SWAP). 0, or -1 with errno set: EINVAL,
/// ENOSYS or ENOTSUP where the file system cannot.
int exchange_paths(const char* a, const char* b);

/// The last modification time of `info`, in nanoseconds since the epoch (Linux st_mtim, macOS
/// st_mtimespec).
std::int64_t modified_ns(const struct ::stat& info);

/// The last status change time of `info` (Linux st_ctim, macOS st_ctimespec), in nanoseconds:
/// unlike the modification time, no user call can set it back.
std::int64_t changed_ns(const struct ::stat& info);

/// The arguments this process was started with, argv[0] first (Linux /proc/self/cmdline,
/// macOS _NSGetArgv); empty when they cannot be read.
std::vector<std::string> command_line();

/// A text that changes whenever the machine's hardware or GPU drivers may have changed: the
/// boot and the loading of the GPU kernel drivers (Linux: /proc/sys/kernel/random/boot_id and
/// the identity of /sys/module/{nvidia,amdgpu}; macOS: the boot time). What a record of
/// detection's outcome is keyed on.
std::string hardware_epoch();

/// The path of this process's executable (Linux /proc/self/exe, macOS _NSGetExecutablePath);
/// "" when unknown.
std::string executable_path();

/// Where Python interpreters are installed on this system, after PATH: `folders` are looked in
/// as they are; each of `installation_roots` holds one installation per subfolder, looked in at
/// `<root>/<version>/bin` (newest first). `home` is the home folder ("" when unknown: the roots
/// under it are left out). `described` names them all for an error message.
struct InterpreterPlaces {
  std::vector<std::string> folders;
  std::vector<std::string> installation_roots;
  std::string described;
};
InterpreterPlaces interpreter_places(const std::string& home);

}  // namespace wv::platform
