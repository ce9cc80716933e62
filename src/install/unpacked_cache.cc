// The unpacked-wheel cache: entries, their manifests, and the cache commands' sweeps.
#include "install/unpacked_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#include "base/log.h"
#include "base/sha256.h"
#include "base/str.h"
#include "pkg/name.h"

namespace wv::install {
namespace {

constexpr std::string_view kManifestMagic = "wvlock-unpacked 1";
constexpr std::int64_t kNanosPerDay = 86'400'000'000'000;
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

bool is_hex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
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

}  // namespace

Result<CacheLock> CacheLock::acquire(const std::string& cache_root, bool exclusive) {
  RealFileSystem file_system;
  WV_TRY(file_system.create_directories(cache_root));
  const std::string path = path_join(cache_root, ".lock");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return make_error(ErrorCode::kIo, str_cat("cannot open the cache lock ", in_backticks(path),
                                              ": ", std::strerror(errno)));
  }
  const int kind = exclusive ? LOCK_EX : LOCK_SH;
  if (::flock(fd, kind | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      log_info(str_cat("waiting for another wvlock using the cache ", in_backticks(cache_root)));
    }
    while (::flock(fd, kind) != 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      return make_error(ErrorCode::kIo,
                        str_cat("cannot lock ", in_backticks(path), ": ", std::strerror(saved)));
    }
  }
  return CacheLock(fd);
}

UnpackedCache::UnpackedCache(FileSystem& file_system, const std::string& cache_dir)
    : file_system_(file_system), root_(path_join(cache_dir, kUnpackedFolder)) {}

std::string UnpackedCache::entry_folder(std::string_view sha256) const {
  const std::string hex = to_lower(sha256);
  return path_join(path_join(root_, hex.substr(0, 2)), hex);
}

Result<void> UnpackedCache::discard(const std::string& folder) {
  // Renamed away first, so no reader ever sees half an entry.
  const std::string trash = path_join(root_, ".trash");
  WV_TRY(file_system_.create_directories(trash));
  const std::string gone = path_join(trash, unique_suffix());
  WV_TRY(file_system_.rename(folder, gone));
  return file_system_.remove_all(gone);
}

Result<CacheEntry> UnpackedCache::read_entry(std::string_view sha256, const std::string& folder,
                                             bool check_files, std::string* damage) const {
  const std::string manifest_path = path_join(folder, "manifest");
  WV_ASSIGN_OR_RETURN(std::string text, file_system_.read_file(manifest_path, Limit::kRecordBytes));
  WV_ASSIGN_OR_RETURN(Manifest manifest, parse_manifest(text, manifest_path));
  CacheEntry entry;
  entry.sha256 = std::string(sha256);
  entry.wheel = manifest.wheel;
  entry.tree = path_join(folder, "files");
  if (check_files) {
    for (std::size_t i = 0; i < manifest.contents.members.size(); ++i) {
      const ExtractedMember& member = manifest.contents.members[i];
      const std::string path = path_join(entry.tree, member.path);
      Result<FileInfo> info = file_system_.stat(path);
      if (!info || info->type != FileType::kRegular) {
        *damage = str_cat(in_backticks(member.path), " is missing");
        break;
      }
      if (info->size != member.size || info->modified_ns != manifest.modified_ns[i]) {
        *damage = str_cat(in_backticks(member.path), " was changed after it was extracted (",
                          info->size != member.size ? "its size" : "its mtime", " differs)");
        break;
      }
    }
  }
  entry.contents = std::move(manifest.contents);
  return entry;
}

void UnpackedCache::mark_used(const std::string& folder) {
  const std::string used = path_join(folder, "used");
  Result<FileInfo> info = file_system_.stat(used);
  if (info && now_ns() - info->modified_ns < kUsedResolutionNs) return;
  (void)file_system_.write_file_atomic(used, "", false);  // a hint for prune, never required
}

Result<std::optional<CacheEntry>> UnpackedCache::find(std::string_view sha256) {
  const std::string folder = entry_folder(sha256);
  if (!file_system_.exists(folder)) return std::optional<CacheEntry>();
  std::string damage;
  Result<CacheEntry> entry = read_entry(sha256, folder, true, &damage);
  if (!entry) damage = entry.error().message;
  if (!damage.empty()) {
    log_warning(str_cat("the cached unpacked wheel ", in_backticks(folder), " is damaged (",
                        damage, "); extracting it again"));
    WV_TRY(discard(folder));
    return std::optional<CacheEntry>();
  }
  mark_used(folder);
  return std::optional<CacheEntry>(std::move(*entry));
}

Result<CacheEntry> UnpackedCache::add(std::string_view sha256, const std::string& wheel_path,
                                      const ExtractOptions& options, bool replace) {
  const std::string hex = to_lower(sha256);
  if (!is_hex64(hex)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("invalid sha256 ", in_backticks(sha256), ": expected 64 hex digits"));
  }
  const std::string temporary = path_join(path_join(root_, ".tmp"), str_cat(hex, ".", unique_suffix()));
  const std::string tree = path_join(temporary, "files");
  WV_TRY(file_system_.create_directories(tree));
  const ScopedRemoval removal(file_system_, temporary);
  Manifest manifest;
  manifest.wheel = options.wheel_name.empty() ? std::string(path_filename(wheel_path))
                                              : options.wheel_name;
  WV_ASSIGN_OR_RETURN(manifest.contents, extract_wheel(file_system_, wheel_path, tree, options));
  for (const ExtractedMember& member : manifest.contents.members) {
    WV_ASSIGN_OR_RETURN(FileInfo info, file_system_.stat(path_join(tree, member.path)));
    manifest.modified_ns.push_back(info.modified_ns);
  }
  WV_TRY(file_system_.write_file_atomic(path_join(temporary, "manifest"), serialize(manifest), false));
  const std::string folder = entry_folder(hex);
  WV_TRY(file_system_.create_directories(path_parent(folder)));
  if (replace && file_system_.exists(folder)) WV_TRY(discard(folder));
  if (Result<void> moved = file_system_.rename(temporary, folder); !moved) {
    // Another process published this entry first: use it (it was checked the same way).
    if (!file_system_.exists(path_join(folder, "manifest"))) return std::move(moved).error();
    log_debug(str_cat("cache: ", in_backticks(folder), " was added by another process"));
  }
  mark_used(folder);
  std::string damage;
  WV_ASSIGN_OR_RETURN(CacheEntry entry, read_entry(hex, folder, false, &damage));
  return entry;
}

Result<std::vector<CacheEntryInfo>> UnpackedCache::list() const {
  std::vector<CacheEntryInfo> entries;
  if (!file_system_.exists(root_)) return entries;
  WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> buckets, file_system_.list_directory(root_));
  for (const DirectoryEntry& bucket : buckets) {
    if (bucket.type != FileType::kDirectory || bucket.name.size() != 2) continue;
    const std::string bucket_path = path_join(root_, bucket.name);
    WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> names, file_system_.list_directory(bucket_path));
    for (const DirectoryEntry& name : names) {
      CacheEntryInfo info;
      info.sha256 = name.name;
      info.folder = path_join(bucket_path, name.name);
      std::string damage;
      if (Result<CacheEntry> entry = read_entry(name.name, info.folder, false, &damage)) {
        info.wheel = entry->wheel;
        for (const ExtractedMember& member : entry->contents.members) info.bytes += member.size;
      }
      if (Result<FileInfo> used = file_system_.stat(path_join(info.folder, "used"))) {
        info.last_used_ns = used->modified_ns;
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
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    std::string damage;
    Result<CacheEntry> entry = read_entry(info.sha256, info.folder, false, &damage);
    if (!entry) damage = entry.error().message;
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
    WV_TRY(discard(info.folder));
    record_removal(sweep, std::move(info), str_cat("damaged: ", damage));
  }
  return sweep;
}

Result<CacheSweep> UnpackedCache::prune(std::int64_t max_age_days) {
  CacheSweep sweep;
  for (std::string_view leftover : {".tmp", ".trash"}) {
    const std::string path = path_join(root_, leftover);
    if (!file_system_.exists(path)) continue;
    WV_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> names, file_system_.list_directory(path));
    for (const DirectoryEntry& name : names) {
      CacheEntryInfo info;
      info.folder = path_join(path, name.name);
      WV_TRY(file_system_.remove_all(info.folder));
      record_removal(sweep, std::move(info), "left by an interrupted write");
    }
  }
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  const std::int64_t now = now_ns();
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    std::string damage;
    Result<CacheEntry> entry = read_entry(info.sha256, info.folder, true, &damage);
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
    WV_TRY(discard(info.folder));
    record_removal(sweep, std::move(info), std::move(reason));
  }
  return sweep;
}

Result<CacheSweep> UnpackedCache::clean(const std::vector<std::string>& names) {
  CacheSweep sweep;
  std::set<std::string> wanted;
  for (const std::string& name : names) wanted.insert(pkg::normalize_name(name));
  WV_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list());
  for (CacheEntryInfo& info : entries) {
    ++sweep.checked;
    if (!wanted.empty()) {
      std::string damage;
      Result<CacheEntry> entry = read_entry(info.sha256, info.folder, false, &damage);
      if (!entry || wanted.count(entry->contents.name) == 0) continue;
    }
    WV_TRY(discard(info.folder));
    record_removal(sweep, std::move(info), "asked");
  }
  return sweep;
}

}  // namespace wv::install
