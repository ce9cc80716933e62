// FlatFolder: a find-links folder's listing, bucketed, and its digest kept across runs.
//
// Digest format (little-endian; every offset and length is checked on open):
//
//   0   8   magic "wvflat1\n"
//   8   32  SHA-256 of bytes [40, start of the names): the header, path, table and keys
//   40  8   device      48  8  inode      56  8  mtime (ns)
//   64  4   path bytes P            68  4  bucket count B
//   72  8   entry count             80  8  key bytes K          88  8  name bytes N
//   96  P   the folder's path
//   ... B × 64-byte entries, by key: u32 key offset, u32 key length, u64 names offset,
//           u64 names length, u32 name count, u32 zero, SHA-256 of the bucket's name bytes
//   ... K   the keys, concatenated
//   ... N   the names, each followed by a NUL, bucket after bucket
//
// Opening checks the small part (header, table, keys: tens of bytes per bucket) and a lookup
// checks and splits one bucket, so a 500k-entry digest costs one read and a binary search,
// never a map of every entry. Any mismatch is a miss: the folder is listed again.
#include "src/index/flat_folder.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "src/base/hash.h"
#include "src/base/hex.h"
#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/wheel_filename.h"

namespace wv::index {
namespace {

constexpr std::string_view kMagic = "wvflat1\n";
constexpr std::size_t kHeaderBytes = 96;
constexpr std::size_t kEntryBytes = 64;
// A folder changed less than this long before it was listed is not kept: a change in the same
// timestamp tick as that change, made after the listing, would leave the mtime as it was
// (racy git's problem). Two seconds covers coarse clocks and 2 s-granular file systems.
constexpr std::int64_t kSettleNs = 2'000'000'000;

void put_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
std::uint64_t get_le(std::string_view bytes, std::size_t at, int width) {
  std::uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return value;
}

// The 32 raw bytes of a SHA-256 given in hex.
std::string raw_digest(const std::string& hex) {
  return hex_decode(hex).value_or(std::string(32, '\0'));
}

std::string sha256_raw(std::string_view bytes) { return raw_digest(sha256_hex(bytes)); }

bool keeps_entry(const DirectoryEntry& entry) {
  return entry.type == FileType::kRegular || entry.type == FileType::kSymlink;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The project a file name classifies as, or nullptr.
const pkg::PackageName* classified_project(const pkg::ClassifiedFile& classified) {
  if (classified.wheel) return &classified.wheel->name;
  if (classified.sdist) return &classified.sdist->name;
  if (classified.variants_json) return &classified.variants_json->name;
  return nullptr;
}

}  // namespace

std::string flat_bucket(std::string_view filename) {
  std::string key(filename.substr(0, filename.find_first_of("-_.")));
  for (char& c : key) c = to_ascii_lower(c);
  return key;
}

std::string_view flat_project_bucket(const pkg::PackageName& project) {
  std::string_view name = project.str();
  return name.substr(0, name.find('-'));
}

std::string encode_flat_digest(const FolderIdentity& folder,
                               const std::vector<DirectoryEntry>& entries) {
  struct Keyed {
    std::string key;
    std::uint32_t index;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (keeps_entry(entries[i])) {
      keyed.push_back({flat_bucket(entries[i].name), static_cast<std::uint32_t>(i)});
    }
  }
  // Stable: a bucket keeps the folder's name order, which is the order listings had before.
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  // The table and keys first; the names are appended to the output afterwards, straight
  // from `entries`, so all of them are never held twice (one bucket at a time is).
  std::string table;
  std::string keys;
  std::string bucket_names;
  std::uint64_t names_size = 0;
  std::uint32_t buckets = 0;
  for (std::size_t start = 0; start < keyed.size();) {
    std::size_t end = start;
    bucket_names.clear();
    while (end < keyed.size() && keyed[end].key == keyed[start].key) {
      bucket_names += entries[keyed[end].index].name;
      bucket_names.push_back('\0');
      ++end;
    }
    const std::uint64_t bucket_bytes = bucket_names.size();
    put_u32(table, static_cast<std::uint32_t>(keys.size()));
    put_u32(table, static_cast<std::uint32_t>(keyed[start].key.size()));
    put_u64(table, names_size);
    put_u64(table, bucket_bytes);
    put_u32(table, static_cast<std::uint32_t>(end - start));
    put_u32(table, 0);
    table += sha256_raw(bucket_names);
    keys += keyed[start].key;
    names_size += bucket_bytes;
    ++buckets;
    start = end;
  }
  std::string out(kMagic);
  out.append(32, '\0');  // the checksum, filled below
  put_u64(out, folder.device);
  put_u64(out, folder.inode);
  put_u64(out, static_cast<std::uint64_t>(folder.modified_ns));
  put_u32(out, static_cast<std::uint32_t>(folder.path.size()));
  put_u32(out, buckets);
  put_u64(out, keyed.size());
  put_u64(out, keys.size());
  put_u64(out, names_size);
  out += folder.path;
  out += table;
  out += keys;
  const std::string checksum = sha256_raw(std::string_view(out).substr(40));
  out.replace(8, 32, checksum);
  out.reserve(out.size() + names_size);
  for (const Keyed& entry : keyed) {
    out += entries[entry.index].name;
    out.push_back('\0');
  }
  return out;
}

std::optional<FlatDigest> FlatDigest::open(std::string bytes, const FolderIdentity& folder) {
  const std::string_view view = bytes;
  if (view.size() < kHeaderBytes || view.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  const std::uint64_t path_bytes = get_le(view, 64, 4);
  const std::uint64_t buckets = get_le(view, 68, 4);
  const std::uint64_t entries = get_le(view, 72, 8);
  const std::uint64_t key_bytes = get_le(view, 80, 8);
  const std::uint64_t name_bytes = get_le(view, 88, 8);
  // Each part fits in what is left, so the sums below cannot overflow.
  std::uint64_t left = view.size() - kHeaderBytes;
  if (path_bytes > left) return std::nullopt;
  left -= path_bytes;
  if (buckets > left / kEntryBytes) return std::nullopt;
  left -= buckets * kEntryBytes;
  if (key_bytes > left) return std::nullopt;
  left -= key_bytes;
  if (name_bytes != left) return std::nullopt;
  FlatDigest digest;
  digest.table_ = kHeaderBytes + path_bytes;
  digest.keys_ = digest.table_ + buckets * kEntryBytes;
  digest.names_ = digest.keys_ + key_bytes;
  if (sha256_raw(view.substr(40, digest.names_ - 40)) != view.substr(8, 32)) return std::nullopt;
  if (view.substr(kHeaderBytes, path_bytes) != folder.path || get_le(view, 40, 8) != folder.device ||
      get_le(view, 48, 8) != folder.inode ||
      get_le(view, 56, 8) != static_cast<std::uint64_t>(folder.modified_ns)) {
    return std::nullopt;
  }
  // The checksum held, but a digest is outside input all the same: check every entry's ranges
  // and the key order once, so lookups need no checks of their own.
  std::uint64_t counted = 0;
  std::string_view previous;
  for (std::uint64_t i = 0; i < buckets; ++i) {
    const std::size_t at = digest.table_ + i * kEntryBytes;
    const std::uint64_t key_offset = get_le(view, at, 4);
    const std::uint64_t key_length = get_le(view, at + 4, 4);
    const std::uint64_t names_offset = get_le(view, at + 8, 8);
    const std::uint64_t names_length = get_le(view, at + 16, 8);
    if (key_offset > key_bytes || key_length > key_bytes - key_offset) return std::nullopt;
    if (names_offset > name_bytes || names_length > name_bytes - names_offset) return std::nullopt;
    const std::string_view key = view.substr(digest.keys_ + key_offset, key_length);
    if (i > 0 && !(previous < key)) return std::nullopt;
    previous = key;
    counted += get_le(view, at + 24, 4);
  }
  if (counted != entries) return std::nullopt;
  digest.buckets_ = static_cast<std::uint32_t>(buckets);
  digest.entries_ = static_cast<std::size_t>(entries);
  digest.bytes_ = std::move(bytes);
  return digest;
}

std::optional<std::vector<std::string_view>> FlatDigest::bucket(std::string_view key) const {
  const std::string_view view = bytes_;
  auto key_at = [&](std::uint32_t i) {
    const std::size_t at = table_ + std::size_t(i) * kEntryBytes;
    return view.substr(keys_ + get_le(view, at, 4), get_le(view, at + 4, 4));
  };
  std::uint32_t low = 0;
  std::uint32_t high = buckets_;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (key_at(middle) < key) low = middle + 1;
    else high = middle;
  }
  std::vector<std::string_view> names;
  if (low == buckets_ || key_at(low) != key) return names;
  const std::size_t at = table_ + std::size_t(low) * kEntryBytes;
  const std::string_view bytes =
      view.substr(names_ + get_le(view, at + 8, 8), get_le(view, at + 16, 8));
  const std::uint64_t count = get_le(view, at + 24, 4);
  if (sha256_raw(bytes) != view.substr(at + 32, 32)) return std::nullopt;
  for (std::size_t start = 0; start < bytes.size();) {
    const std::size_t end = bytes.find('\0', start);
    if (end == std::string_view::npos || end == start) return std::nullopt;
    names.push_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  if (names.size() != count) return std::nullopt;
  return names;
}

FlatFolder::FlatFolder(const FileSystem& file_system, std::string folder, FileSystem* writer,
                       std::string digest_directory, FlatFolderStats& stats)
    : file_system_(file_system),
      folder_(std::move(folder)),
      writer_(writer),
      digest_directory_(writer == nullptr ? std::string() : std::move(digest_directory)),
      stats_(stats) {}

std::string FlatFolder::digest_path(const std::string& digest_directory,
                                    const FolderIdentity& folder) {
  // One file per folder (not per mtime): a changed folder's digest replaces the old one.
  Fingerprint key;
  key.add("find-links-v1").add(folder.path).add(std::to_string(folder.device))
      .add(std::to_string(folder.inode));
  return path_join(digest_directory, key.finish().to_hex() + ".digest");
}

std::optional<FolderIdentity> FlatFolder::identify() const {
  // The folder itself (through a symlink too): its mtime changes with its entries.
  Result<FileInfo> info = file_system_.stat_followed(folder_);
  if (!info || info->type != FileType::kDirectory) return std::nullopt;
  return FolderIdentity{folder_, info->device, info->inode, info->modified_ns};
}

Result<void> FlatFolder::load() {
  const std::optional<FolderIdentity> identity = identify();
  if (identity && !digest_directory_.empty()) {
    const std::string path = digest_path(digest_directory_, *identity);
    if (Result<std::string> bytes = file_system_.read_file(path, Limit::kInputFileBytes)) {
      digest_ = FlatDigest::open(std::move(*bytes), *identity);
      if (digest_) {
        from_disk_ = true;
        ++stats_.digests_reused;
        return {};
      }
      log_debug(str_cat("find-links digest ", in_backticks(path),
                        " is damaged or out of date; listing the folder"));
    }
  }
  return read_folder(identity);
}

Result<void> FlatFolder::read_folder(const std::optional<FolderIdentity>& identity) {
  const std::int64_t listed_at = now_ns();
  ++stats_.directory_reads;
  Result<std::vector<DirectoryEntry>> entries = file_system_.list_directory(folder_);
  if (!entries) {
    Error error = std::move(entries).error().with_context(
        str_cat("reading find-links folder ", in_backticks(folder_)));
    // A missing folder is a configuration error, not "project absent".
    if (error.code == ErrorCode::kNotFound) error.code = ErrorCode::kIo;
    return error;
  }
  const FolderIdentity folder = identity.value_or(FolderIdentity{folder_});
  std::string bytes = encode_flat_digest(folder, *entries);
  const bool settled = identity && identity->modified_ns + kSettleNs < listed_at;
  if (settled && !digest_directory_.empty() &&
      bytes.size() <= limit_value(Limit::kInputFileBytes)) {
    // Best effort, and not synced: a digest a crash left short fails its checksum (a miss).
    const std::string path = digest_path(digest_directory_, folder);
    Result<void> written = writer_->create_directories(digest_directory_);
    if (written) written = writer_->write_file_atomic(path, bytes, /*durable=*/false);
    if (written) ++stats_.digests_stored;
    else log_debug(str_cat("cannot keep the find-links digest: ", written.error().message));
  }
  digest_ = FlatDigest::open(std::move(bytes), folder);
  from_disk_ = false;
  if (!digest_) {
    return make_error(ErrorCode::kIo, str_cat("find-links folder ", in_backticks(folder_),
                                              ": its listing does not fit a digest"));
  }
  return {};
}

Result<std::vector<std::string>> FlatFolder::files_of(const pkg::PackageName& project) {
  if (error_) return *error_;
  if (!digest_) {
    if (Result<void> loaded = load(); !loaded) {
      error_ = loaded.error();
      return *error_;
    }
  }
  std::optional<std::vector<std::string_view>> names =
      digest_->bucket(flat_project_bucket(project));
  if (!names && from_disk_) {
    // A damaged bucket in a kept digest: list the folder after all (and keep a good digest).
    log_debug(str_cat("find-links digest of ", in_backticks(folder_), " is damaged; listing the folder"));
    if (Result<void> read = read_folder(identify()); !read) {
      error_ = read.error();
      return *error_;
    }
    names = digest_->bucket(flat_project_bucket(project));
  }
  if (!names) {
    return make_error(ErrorCode::kIo, str_cat("find-links folder ", in_backticks(folder_),
                                              ": its listing is damaged"));
  }
  std::vector<std::string> files;
  for (std::string_view name : *names) {
    // The filter the whole-folder parse applied: the name the file parses to.
    const pkg::ClassifiedFile classified = pkg::classify_filename(name);
    const pkg::PackageName* owner = classified_project(classified);
    if (owner != nullptr && *owner == project) files.emplace_back(name);
  }
  return files;
}

}  // namespace wv::index
