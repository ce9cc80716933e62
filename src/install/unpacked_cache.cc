// The unpacked-wheel cache: entries, their manifests, and the cache commands' sweeps.
#include "src/install/unpacked_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>

#include "src/base/hex.h"
#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/slices.h"
#include "src/pkg/name.h"

namespace wv::install {
namespace {

constexpr std::string_view kManifestMagic = "wvlock-unpacked 1";
constexpr std::int64_t kNanosPerDay = 86'400'000'000'000;
// Fewer files than this per core are checked on one: a thread costs more than their stat()s.
constexpr std::size_t kFilesPerSlice = 2048;
// `used` is rewritten at most this often: a sync should not write for every entry it reads.
constexpr std::int64_t kUsedResolutionNs = kNanosPerDay / 24;

/// An entry's manifest: the wheel, and per member the size and mtime it had when extracted.
struct Manifest {
  std::string wheel;
  ExtractedWheel contents;
  std::vector<std::int64_t> modified_ns;  ///< per member
};

std::string serialize(const Manifest& manifest) {
  const ExtractedWheel& wheel = manifest.contents;
  std::string out = str_cat(kManifestMagic, "\nwheel ", manifest.wheel, "\nname ", wheel.name,
                            "\nversion ", wheel.version, "\ndist-info ", wheel.dist_info,
                            "\npurelib ", wheel.root_is_purelib ? 1 : 0, "\n");
  for (std::size_t i = 0; i < wheel.members.size(); ++i) {
    const ExtractedMember& member = wheel.members[i];
    out += str_cat("F ", member.size, " ", manifest.modified_ns[i], " ",
                   member.executable ? "x" : "-", " ", member.hash, " ", member.path, "\n");
  }
  return out;
}

Result<Manifest> parse_manifest(std::string_view text, const std::string& path) {
  auto bad = [&](std::size_t line, std::string_view why) {
    return make_error(ErrorCode::kParse, str_cat(path, ":", line, ": ", why));
  };
  std::vector<std::string_view> lines = split(text, '\n');
  if (lines.empty() || lines.front() != kManifestMagic) return bad(1, "not a wvlock cache manifest");
  Manifest manifest;
  ExtractedWheel& wheel = manifest.contents;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    std::size_t space = line.find(' ');
    if (space == std::string_view::npos) return bad(i + 1, "expected `KEY VALUE`");
    std::string_view key = line.substr(0, space);
    std::string_view value = line.substr(space + 1);
    if (key == "wheel") manifest.wheel = std::string(value);
    else if (key == "name") wheel.name = std::string(value);
    else if (key == "version") wheel.version = std::string(value);
    else if (key == "dist-info") wheel.dist_info = std::string(value);
    else if (key == "purelib") wheel.root_is_purelib = value == "1";
    else if (key == "F") {
      // F SIZE MTIME_NS x|- HASH PATH (the path last: it may hold spaces)
      std::vector<std::string_view> fields;
      std::string_view rest = value;
      for (int f = 0; f < 4; ++f) {
        std::size_t cut = rest.find(' ');
        if (cut == std::string_view::npos) return bad(i + 1, "expected `F SIZE MTIME x|- HASH PATH`");
        fields.push_back(rest.substr(0, cut));
        rest = rest.substr(cut + 1);
      }
      std::optional<std::uint64_t> size = parse_uint64(fields[0]);
      std::optional<std::uint64_t> modified = parse_uint64(fields[1]);
      if (!size || !modified || rest.empty() || !check_member_name(rest).empty()) {
        return bad(i + 1, "expected `F SIZE MTIME x|- HASH PATH`");
      }
      wheel.members.push_back(
          ExtractedMember{std::string(rest), std::string(fields[3]), *size, fields[2] == "x"});
      manifest.modified_ns.push_back(static_cast<std::int64_t>(*modified));
    } else {
      return bad(i + 1, str_cat("unknown key ", in_backticks(key)));
    }
  }
  if (manifest.wheel.empty() || wheel.name.empty() || wheel.dist_info.empty()) {
    return bad(lines.size(), "the manifest is incomplete");
  }
  return manifest;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  return str_cat(std::uint64_t(::getpid()), ".", counter.fetch_add(1));
}

// The one check before the cache writes in, links from or removes through `path`: it must be a
// `type` itself, not a symlink (lstat: a link may lead anywhere), on the cache folder's file
// system `device` (a folder mounted there is no more the cache's). kNotFound when absent; kIo,
// saying why, when it is not the cache's own, so a sync unpacks in the environment instead.
Result<FileInfo> check_own(const FileSystem& file_system, const std::string& path, FileType type,
                           std::uint64_t device) {
  WV_ASSIGN_OR_RETURN(FileInfo info, file_system.stat(path));
  std::string_view why;
  if (info.type == FileType::kSymlink) {
    why = "is a symbolic link";
  } else if (info.type != type) {
    why = type == FileType::kDirectory ? "is not a folder" : "is not a regular file";
  } else if (info.device != device) {
    why = "is on another file system";
  }
  if (why.empty()) return info;
  return make_error(ErrorCode::kIo, str_cat(in_backticks(path), " ", why, ", not the cache's own"));
}

// Removes `path` and what it holds. A symlink (or any non-folder) is unlinked, so what it
// points at is never reached; a folder must be the cache's own. std::filesystem::remove_all
// unlinks the symlinks it meets inside without following them (the `files/` symlink test in
// unpacked_cache_test checks).
Result<void> remove_own(FileSystem& file_system, const std::string& path, std::uint64_t device) {
  Result<FileInfo> info = file_system.stat(path);
  if (!info) {
    if (info.error().code == ErrorCode::kNotFound) return {};
    return std::move(info).error();
  }
  if (info->type != FileType::kDirectory) return file_system.remove(path);
  WV_TRY(check_own(file_system, path, FileType::kDirectory, device));
  return file_system.remove_all(path);
}

// Makes `path` a folder of the cache: created when absent; a symlink in its place is unlinked
// (what it points at is left alone) and a folder made; anything else is refused.
Result<void> ready_folder(FileSystem& file_system, const std::string& path, std::uint64_t device) {
  Result<FileInfo> own = check_own(file_system, path, FileType::kDirectory, device);
  if (own) return {};
  if (own.error().code != ErrorCode::kNotFound) {
    Result<FileInfo> info = file_system.stat(path);
    if (!info || info->type != FileType::kSymlink) return std::move(own).error();
    log_warning(str_cat(own.error().message, "; replacing it with a folder"));
    WV_TRY(file_system.remove(path));
  }
  WV_TRY(file_system.create_directory(path));
  WV_TRY(check_own(file_system, path, FileType::kDirectory, device));
  return {};
}

// The cache folder's device, once `unpacked-v1` (`root`) is a folder of the cache folder's file
// system: everything the cache uses must be on it. The user chose the cache folder, so it may
// be a symlink itself; nothing under it may.
Result<std::uint64_t> open_root(FileSystem& file_system, const std::string& root, bool create) {
  const std::string cache_dir = path_parent(root);
  if (create) WV_TRY(file_system.create_directories(cache_dir));
  WV_ASSIGN_OR_RETURN(FileInfo info, file_system.stat_followed(cache_dir));
  if (create) WV_TRY(ready_folder(file_system, root, info.device));
  else WV_TRY(check_own(file_system, root, FileType::kDirectory, info.device));
  return info.device;
}

// Why members [begin, end) under `tree` may not be linked from ("" when they may): each must
// be a regular file of the cache under folders of the cache (`files/pkg` swapped for a link
// would lead every path under it outside) and, with `modified_ns`, have the size and mtime it
// had when extracted.
std::string slice_damage(const FileSystem& file_system, const std::string& tree,
                         const ExtractedWheel& contents,
                         const std::vector<std::int64_t>* modified_ns, std::uint64_t device,
                         std::size_t begin, std::size_t end) {
  std::set<std::string> folders;  // each checked once, not once per file
  for (std::size_t i = begin; i < end; ++i) {
    const ExtractedMember& member = contents.members[i];
    for (std::size_t slash = member.path.find('/'); slash != std::string::npos;
         slash = member.path.find('/', slash + 1)) {
      const std::string folder = path_join(tree, member.path.substr(0, slash));
      if (!folders.insert(folder).second) continue;
      Result<FileInfo> own = check_own(file_system, folder, FileType::kDirectory, device);
      if (!own) return own.error().message;
    }
    const std::string path = path_join(tree, member.path);
    Result<FileInfo> info = check_own(file_system, path, FileType::kRegular, device);
    if (!info && info.error().code == ErrorCode::kNotFound) {
      return str_cat(in_backticks(member.path), " is missing");
    }
    if (!info) return info.error().message;
    if (modified_ns != nullptr &&
        (info->size != member.size || info->modified_ns != (*modified_ns)[i])) {
      return str_cat(in_backticks(member.path), " was changed after it was extracted (",
                     info->size != member.size ? "its size" : "its mtime", " differs)");
    }
  }
  return "";
}

// Why the members under `tree` may not be linked from: the first member's damage in member
// order, looked for in slices on every core (each slice checks the folders on its own way).
std::string member_damage(const FileSystem& file_system, const std::string& tree,
                          const ExtractedWheel& contents,
                          const std::vector<std::int64_t>* modified_ns, std::uint64_t device) {
  std::vector<std::string> damages = in_slices<std::string>(
      contents.members.size(), kFilesPerSlice, [&](std::size_t begin, std::size_t end) {
        return slice_damage(file_system, tree, contents, modified_ns, device, begin, end);
      });
  for (std::string& damage : damages) {
    if (!damage.empty()) return damage;
  }
  return "";
}

// Each member's mtime as extracted, for the manifest.
Result<std::vector<std::int64_t>> modified_times(const FileSystem& file_system,
                                                 const std::string& tree,
                                                 const ExtractedWheel& contents) {
  std::vector<std::int64_t> modified(contents.members.size());
  auto slice = [&](std::size_t begin, std::size_t end) -> std::optional<Error> {
    for (std::size_t i = begin; i < end; ++i) {
      Result<FileInfo> info = file_system.stat(path_join(tree, contents.members[i].path));
      if (!info) return std::move(info).error();
      modified[i] = info->modified_ns;
    }
    return std::nullopt;
  };
  for (std::optional<Error>& error :
       in_slices<std::optional<Error>>(modified.size(), kFilesPerSlice, slice)) {
    if (error) return std::move(*error);
  }
  return modified;
}

/// Takes the flock `kind` on the open lock file `fd` once it is checked to be the cache's own
/// (saying so when another process holds it); closes `fd` on failure.
Result<int> lock_checked(FileSystem& file_system, int fd, const std::string& path,
                         const std::string& cache_root, std::uint64_t device, int kind) {
  if (Result<FileInfo> own = check_own(file_system, path, FileType::kRegular, device); !own) {
    ::close(fd);
    return std::move(own).error();
  }
  if (::flock(fd, kind | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    log_info(str_cat("waiting for another wvlock using the cache ", in_backticks(cache_root)));
  }
  while (::flock(fd, kind) != 0) {
    if (errno == EINTR) continue;
    const int saved = errno;
    ::close(fd);
    return make_error(ErrorCode::kIo,
                      str_cat("cannot lock ", in_backticks(path), ": ", std::strerror(saved)));
  }
  return fd;
}

}  // namespace

Result<CacheLock> CacheLock::acquire(const std::string& cache_root, bool exclusive) {
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system, cache_root, true));
  const std::string path = path_join(cache_root, ".lock");
  // A symlink in the lock's place is unlinked, not opened: the lock is only ever the cache's file.
  if (Result<FileInfo> info = file_system.stat(path); info && info->type == FileType::kSymlink) {
    log_warning(
        str_cat(in_backticks(path), " is a symbolic link, not the cache's own; replacing it"));
    WV_TRY(file_system.remove(path));
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return make_error(ErrorCode::kIo, str_cat("cannot open the cache lock ", in_backticks(path),
                                              ": ", std::strerror(errno)));
  }
  WV_ASSIGN_OR_RETURN(const int locked, lock_checked(file_system, fd, path, cache_root, device,
                                                     exclusive ? LOCK_EX : LOCK_SH));
  return CacheLock(locked);
}

Result<CacheLock> CacheLock::acquire_read_only(const std::string& cache_root) {
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system, cache_root, false));
  const std::string path = path_join(cache_root, ".lock");
  // O_NOFOLLOW: a symlink in the lock's place is refused (this user cannot replace it).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    const int saved = errno;
    return make_error(saved == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                      str_cat("cannot open the cache lock ", in_backticks(path), ": ",
                              std::strerror(saved)));
  }
  WV_ASSIGN_OR_RETURN(const int locked,
                      lock_checked(file_system, fd, path, cache_root, device, LOCK_SH));
  return CacheLock(locked);
}

bool cache_writable(const std::string& cache_dir) {
  std::string folder = path_join(cache_dir, kUnpackedFolder);
  // The nearest folder that exists is where a write would happen (entries, or creating them).
  while (::faccessat(AT_FDCWD, folder.c_str(), F_OK, AT_EACCESS) != 0) {
    std::string parent = path_parent(folder);
    if (parent.empty()) parent = ".";
    if (parent == folder) return false;
    folder = std::move(parent);
  }
  return ::faccessat(AT_FDCWD, folder.c_str(), W_OK, AT_EACCESS) == 0;
}

UnpackedCache::UnpackedCache(FileSystem& file_system, const std::string& cache_dir, bool read_only)
    : file_system_(file_system), root_(path_join(cache_dir, kUnpackedFolder)), read_only_(read_only) {}

std::string UnpackedCache::entry_folder(std::string_view sha256) const {
  const std::string hex = to_lower(sha256);
  return path_join(path_join(root_, hex.substr(0, 2)), hex);
}

Result<void> UnpackedCache::discard(const std::string& folder, std::uint64_t device) {
  // A symlink is unlinked where it is; a folder on another file system is refused.
  if (!check_own(file_system_, folder, FileType::kDirectory, device)) {
    return remove_own(file_system_, folder, device);
  }
  // Renamed away first, so no reader ever sees half an entry.
  const std::string trash = path_join(root_, ".trash");
  WV_TRY(ready_folder(file_system_, trash, device));
  const std::string gone = path_join(trash, unique_suffix());
  WV_TRY(file_system_.rename(folder, gone));
  return remove_own(file_system_, gone, device);
}

Result<CacheEntry> UnpackedCache::read_entry(std::string_view sha256, const std::string& folder,
                                             std::uint64_t device, bool check_files,
                                             std::string* damage) const {
  // What is read or linked from must be the cache's own: through a link it could be anyone's.
  for (const std::string& own : {path_parent(folder), folder, path_join(folder, "files")}) {
    WV_TRY(check_own(file_system_, own, FileType::kDirectory, device));
  }
  const std::string manifest_path = path_join(folder, "manifest");
  WV_TRY(check_own(file_system_, manifest_path, FileType::kRegular, device));
  WV_ASSIGN_OR_RETURN(std::string text, file_system_.read_file(manifest_path, Limit::kRecordBytes));
  WV_ASSIGN_OR_RETURN(Manifest manifest, parse_manifest(text, manifest_path));
  CacheEntry entry;
  entry.sha256 = std::string(sha256);
  entry.wheel = manifest.wheel;
  entry.tree = path_join(folder, "files");
  if (check_files) {
    *damage =
        member_damage(file_system_, entry.tree, manifest.contents, &manifest.modified_ns, device);
  }
  entry.contents = std::move(manifest.contents);
  return entry;
}

void UnpackedCache::mark_used(const std::string& folder, std::uint64_t device) {
  // Written only into a folder of the cache; the rename of write_file_atomic replaces a
  // symlink `used` itself, never what it points at.
  if (!check_own(file_system_, folder, FileType::kDirectory, device)) return;
  const std::string used = path_join(folder, "used");
  Result<FileInfo> info = file_system_.stat(used);
  if (info && now_ns() - info->modified_ns < kUsedResolutionNs) return;
  (void)file_system_.write_file_atomic(used, "", false);  // a hint for prune, never required
}

// Warns about an entry that may not be used and removes it (a symlink only unlinked). One that
// cannot be removed safely (on another file system) is an error: it stays, unused.
Result<void> UnpackedCache::drop(const std::string& folder, std::uint64_t device,
                                 std::string_view damage) {
  log_warning(str_cat("the cached unpacked wheel ", in_backticks(folder), " is damaged (", damage,
                      "); extracting it again"));
  return discard(folder, device);
}

Result<std::optional<CacheEntry>> UnpackedCache::find(std::string_view sha256) {
  Result<std::uint64_t> device_of = open_root(file_system_, root_, !read_only_);
  if (read_only_ && !device_of) return std::optional<CacheEntry>();  // nothing to read here
  WV_ASSIGN_OR_RETURN(std::uint64_t device, std::move(device_of));
  const std::string folder = entry_folder(sha256);
  // A bucket that is not the cache's own is not looked into: add() replaces a symlink there.
  const std::string bucket_path = path_parent(folder);
  if (Result<FileInfo> bucket = check_own(file_system_, bucket_path, FileType::kDirectory, device);
      !bucket) {
    if (bucket.error().code != ErrorCode::kNotFound) {
      log_warning(str_cat(bucket.error().message, "; the cached wheels in it are not used"));
    }
    return std::optional<CacheEntry>();
  }
  if (!file_system_.exists(folder)) return std::optional<CacheEntry>();
  std::string damage;
  Result<CacheEntry> entry = read_entry(sha256, folder, device, true, &damage);
  if (!entry) damage = entry.error().message;
  if (!damage.empty() && read_only_) {
    // Another user's entry: theirs to repair; this sync unpacks the wheel itself.
    log_debug(str_cat("cache: not using ", in_backticks(folder), " (", damage, ")"));
    return std::optional<CacheEntry>();
  }
  if (!damage.empty()) {
    // Not removable: add() fails over to unpacking in the environment.
    if (Result<void> gone = drop(folder, device, damage); !gone) {
      log_warning(str_cat(gone.error().message, "; it is left as it is, unused"));
    }
    return std::optional<CacheEntry>();
  }
  if (!read_only_) mark_used(folder, device);
  return std::optional<CacheEntry>(std::move(*entry));
}

Result<void> UnpackedCache::publish(const std::string& temporary, const std::string& folder,
                                    std::uint64_t device) {
  Result<void> moved = file_system_.rename(temporary, folder);
  if (moved || !file_system_.exists(folder)) return moved;
  // Another process published this entry first: use it when it is whole and the cache's own.
  std::string damage;
  Result<CacheEntry> there = read_entry("", folder, device, true, &damage);
  if (there && damage.empty()) {
    log_debug(str_cat("cache: ", in_backticks(folder), " was added by another process"));
    return {};
  }
  WV_TRY(drop(folder, device, there ? damage : there.error().message));
  return file_system_.rename(temporary, folder);
}

Result<CacheEntry> UnpackedCache::add(std::string_view sha256, const std::string& wheel_path,
                                      const ExtractOptions& options, bool replace) {
  const std::string hex = to_lower(sha256);
  if (!is_hex64(hex)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("invalid sha256 ", in_backticks(sha256), ": expected 64 hex digits"));
  }
  if (read_only_) {
    return make_error(ErrorCode::kIo, str_cat("the cache ", in_backticks(root_), " is read-only here"));
  }
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system_, root_, true));
  const std::string staging = path_join(root_, ".tmp");
  WV_TRY(ready_folder(file_system_, staging, device));
  const std::string temporary = path_join(staging, str_cat(hex, ".", unique_suffix()));
  WV_TRY(file_system_.create_directory(temporary));
  const ScopedRemoval removal(file_system_, temporary);
  const std::string tree = path_join(temporary, "files");
  WV_TRY(file_system_.create_directory(tree));  // refuses a symlink put in its place
  Manifest manifest;
  manifest.wheel = options.wheel_name.empty() ? std::string(path_filename(wheel_path))
                                              : options.wheel_name;
  WV_ASSIGN_OR_RETURN(manifest.contents, extract_wheel(file_system_, wheel_path, tree, options));
  WV_ASSIGN_OR_RETURN(manifest.modified_ns, modified_times(file_system_, tree, manifest.contents));
  WV_TRY(file_system_.write_file_atomic(path_join(temporary, "manifest"), serialize(manifest), false));
  const std::string folder = entry_folder(hex);
  WV_TRY(ready_folder(file_system_, path_parent(folder), device));
  if (replace) WV_TRY(discard(folder, device));
  WV_TRY(publish(temporary, folder, device));
  mark_used(folder, device);
  std::string damage;
  WV_ASSIGN_OR_RETURN(CacheEntry entry, read_entry(hex, folder, device, true, &damage));
  if (!damage.empty()) {
    return make_error(ErrorCode::kIo, str_cat("the cached unpacked wheel ", in_backticks(folder),
                                              " changed as it was added (", damage, ")"));
  }
  return entry;
}

Result<std::vector<CacheEntryInfo>> UnpackedCache::list() const {
  std::vector<CacheEntryInfo> entries;
  Result<std::uint64_t> device = open_root(file_system_, root_, false);
  if (!device && device.error().code == ErrorCode::kNotFound) return entries;
  WV_TRY(device);
  WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> buckets, file_system_.list_directory(root_));
  for (const DirectoryEntry& bucket : buckets) {
    if (bucket.type != FileType::kDirectory || bucket.name.size() != 2) continue;
    const std::string bucket_path = path_join(root_, bucket.name);
    if (!check_own(file_system_, bucket_path, FileType::kDirectory, *device)) continue;
    WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> names, file_system_.list_directory(bucket_path));
    for (const DirectoryEntry& name : names) {
      CacheEntryInfo info;
      info.sha256 = name.name;
      info.folder = path_join(bucket_path, name.name);
      std::string damage;
      // One that is not the cache's own is listed (prune and clean remove it) but not read.
      if (Result<CacheEntry> entry = read_entry(name.name, info.folder, *device, false, &damage)) {
        info.wheel = entry->wheel;
        for (const ExtractedMember& member : entry->contents.members) info.bytes += member.size;
        if (Result<FileInfo> used = file_system_.stat(path_join(info.folder, "used"))) {
          info.last_used_ns = used->modified_ns;
        }
      }
      entries.push_back(std::move(info));
    }
  }
  return entries;
}

namespace {

void record_removal(CacheSweep& sweep, CacheEntryInfo entry, std::string reason) {
  sweep.bytes_freed += entry.bytes;
  sweep.removed.push_back(CacheSweep::Removed{std::move(entry), std::move(reason)});
}

}  // namespace

Result<CacheSweep> UnpackedCache::verify() {
  CacheSweep sweep;
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system_, root_, true));
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    std::string damage;
    Result<CacheEntry> entry = read_entry(info.sha256, info.folder, device, false, &damage);
    if (!entry) damage = entry.error().message;
    // Only the cache's own files are hashed: a link's target could hash the same.
    if (damage.empty()) {
      damage = member_damage(file_system_, entry->tree, entry->contents, nullptr, device);
    }
    for (std::size_t i = 0; entry && damage.empty() && i < entry->contents.members.size(); ++i) {
      const ExtractedMember& member = entry->contents.members[i];
      const std::string path = path_join(entry->tree, member.path);
      Result<std::string> digest = sha256_file_hex(path);
      if (!digest) {
        damage = digest.error().message;
      } else if (str_cat("sha256=", hex_to_urlsafe_base64_nopad(*digest)) != member.hash) {
        damage = str_cat(in_backticks(member.path), " no longer has its RECORD hash");
      }
    }
    if (damage.empty()) continue;
    WV_TRY(discard(info.folder, device));
    record_removal(sweep, std::move(info), str_cat("damaged: ", damage));
  }
  return sweep;
}

Result<CacheSweep> UnpackedCache::prune(std::int64_t max_age_days) {
  CacheSweep sweep;
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system_, root_, true));
  for (std::string_view leftover : {".tmp", ".trash"}) {
    const std::string path = path_join(root_, leftover);
    if (!file_system_.exists(path)) continue;
    WV_TRY(ready_folder(file_system_, path, device));  // a symlink there is unlinked, not listed
    WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> names, file_system_.list_directory(path));
    for (const DirectoryEntry& name : names) {
      CacheEntryInfo info;
      info.folder = path_join(path, name.name);
      WV_TRY(remove_own(file_system_, info.folder, device));
      record_removal(sweep, std::move(info), "left by an interrupted write");
    }
  }
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  const std::int64_t now = now_ns();
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    std::string damage;
    Result<CacheEntry> entry = read_entry(info.sha256, info.folder, device, true, &damage);
    if (!entry) damage = entry.error().message;
    std::string reason;
    if (!damage.empty()) {
      reason = str_cat("damaged: ", damage);
    } else if (now - info.last_used_ns > max_age_days * kNanosPerDay) {
      reason = info.last_used_ns == 0 ? std::string("never used")
                                      : str_cat("unused for ", (now - info.last_used_ns) / kNanosPerDay,
                                                " days");
    } else {
      continue;
    }
    WV_TRY(discard(info.folder, device));
    record_removal(sweep, std::move(info), std::move(reason));
  }
  return sweep;
}

Result<CacheSweep> UnpackedCache::clean(const std::vector<pkg::PackageName>& names) {
  CacheSweep sweep;
  const std::set<pkg::PackageName> wanted(names.begin(), names.end());
  WV_ASSIGN_OR_RETURN(std::uint64_t device, open_root(file_system_, root_, true));
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    if (!wanted.empty()) {
      std::string damage;
      Result<CacheEntry> entry = read_entry(info.sha256, info.folder, device, false, &damage);
      if (!entry) continue;
      // The entry records the name its wheel's file name gave, in normal form.
      Result<pkg::PackageName> name = pkg::parse_normalized_name(entry->contents.name);
      if (!name || wanted.count(*name) == 0) continue;
    }
    WV_TRY(discard(info.folder, device));
    record_removal(sweep, std::move(info), "asked");
  }
  return sweep;
}

}  // namespace wv::install
