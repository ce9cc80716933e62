// Sdists read and unpacked: every member passes TreeCheck before anything of it is written,
// and the tree is written under a temporary name beside the destination. The one .cc of this
// layer that includes libzip.
//
// Links: a tar hard link is a copy of an earlier file member of the tree; a tar symlink must be
// relative and end inside the top-level folder once every link on its way is followed (chains
// that only together leave the tree are refused), and symlinks are made only after every file
// and folder, so nothing is ever written through one. Real sdists do hold in-tree links
// (a README linked into a package), so refusing them all would refuse real projects. Zip
// sdists may hold no links at all: a zip stores a link's target as its data, which no sdist
// tool writes.
#include "src/pep517/sdist_archive.h"
#include "src/install/zip_handle.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "src/base/str.h"
#include "src/pep517/tar_reader.h"
#include "src/install/wheel_unpack.h"

namespace wv::build {
namespace {

namespace fs = std::filesystem;

// Far more members than any sdist holds, few enough that the checks' table stays small.
constexpr std::uint64_t kMaxMembers = 1000000;

using DataSink = std::function<Result<void>(std::string_view)>;

Error io_error(std::string_view what, const std::string& path, int error_number);

using install::ZipFilePtr;
using install::ZipPtr;

/// A .zip sdist read as an ArchiveReader; sizes come from its central directory and each
/// member's data must match them (libzip checks the CRC).
class ZipReader final : public ArchiveReader {
 public:
  ZipReader(std::string path, ZipPtr archive, zip_int64_t count)
      : path_(std::move(path)), archive_(std::move(archive)), count_(count) {}

  Result<std::optional<ArchiveMember>> next() override {
    // A member's data is always read, as the tar reader always reads past it: its CRC-32 is
    // checked whether or not the caller wanted the bytes, so reading PKG-INFO and unpacking
    // accept the same archives.
    if (index_ >= 0 && !data_read_) {
      WV_TRY(read_data([](std::string_view) -> Result<void> { return {}; }));
    }
    if (++index_ >= count_) return std::optional<ArchiveMember>();
    data_read_ = false;
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive_.get(), index(), 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME) ||
        !(stat.valid & ZIP_STAT_SIZE)) {
      return make_error(ErrorCode::kIntegrity, str_cat("sdist ", in_backticks(path_),
                                                       ": cannot read zip entry ", index_));
    }
    ArchiveMember member;
    member.name = stat.name;
    member.size = stat.size;
    member.kind = member.name.ends_with('/') ? MemberKind::kDirectory : MemberKind::kFile;
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive_.get(), index(), 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      const mode_t mode = static_cast<mode_t>(attributes >> 16);
      member.executable = (mode & 0111) != 0;
      if (S_ISLNK(mode)) {
        member.kind = MemberKind::kOther;
        member.other = "a symlink (zip sdists may hold no links)";
      } else if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode)) {
        member.kind = MemberKind::kOther;
        member.other = "a special file";
      }
    }
    if (member.kind != MemberKind::kFile) member.size = 0;
    size_ = member.size;
    name_ = member.name;
    kind_ = member.kind;
    return std::optional<ArchiveMember>(std::move(member));
  }

  Result<void> read_data(const DataSink& sink) override {
    data_read_ = true;
    if (size_ == 0 && kind_ != MemberKind::kFile) return {};
    ZipFilePtr file(zip_fopen_index(archive_.get(), index(), 0));
    if (!file) return read_error(zip_error_strerror(zip_get_error(archive_.get())));
    char buffer[64 * 1024];
    std::uint64_t total = 0;
    while (true) {
      const zip_int64_t n = zip_fread(file.get(), buffer, sizeof buffer);
      if (n < 0) return read_error(zip_error_strerror(zip_file_get_error(file.get())));
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      if (total > size_) break;
      WV_TRY(sink(std::string_view(buffer, static_cast<std::size_t>(n))));
    }
    if (total != size_) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("sdist ", in_backticks(path_), ": member ", in_backticks(name_),
                                " does not hold the ", size_, " bytes its zip directory says"));
    }
    return {};
  }

 private:
  zip_uint64_t index() const { return static_cast<zip_uint64_t>(index_); }
  Error read_error(const char* why) const {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("sdist ", in_backticks(path_), ": cannot read member ",
                              in_backticks(name_), ": ", why == nullptr ? "libzip error" : why));
  }

  std::string path_;
  ZipPtr archive_;
  zip_int64_t count_ = 0;
  zip_int64_t index_ = -1;
  std::uint64_t size_ = 0;
  std::string name_;
  MemberKind kind_ = MemberKind::kOther;
  bool data_read_ = true;
};

Result<std::unique_ptr<ArchiveReader>> open_zip_reader(const std::string& path) {
  WV_ASSIGN_OR_RETURN(ZipPtr archive, install::open_zip(path, str_cat("sdist ", in_backticks(path))));
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count < 0 || static_cast<std::uint64_t>(count) > kMaxMembers) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("sdist ", in_backticks(path), " lists ", count,
                              " members, more than the ", kMaxMembers, " any sdist holds"));
  }
  return std::unique_ptr<ArchiveReader>(
      std::make_unique<ZipReader>(path, std::move(archive), count));
}

enum class ArchiveKind { kTar, kZip, kUnknown };

/// What the file holds, by its first bytes: a downloaded file sits in the cache under its
/// sha256, with no suffix, and a name can lie, so the content decides. A gzip stream is taken
/// as a compressed tar (the tar reader checks the rest), `PK` records as a zip, `ustar` at
/// offset 257 as an uncompressed tar.
Result<ArchiveKind> archive_kind(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("open sdist", path, errno);
  char head[263] = {};
  std::size_t got = 0;
  while (got < sizeof head) {
    const ssize_t n = ::read(fd, head + got, sizeof head - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  const std::string_view bytes(head, got);
  if (bytes.starts_with("\x1f\x8b")) return ArchiveKind::kTar;
  if (bytes.starts_with("PK\x03\x04") || bytes.starts_with("PK\x05\x06")) return ArchiveKind::kZip;
  if (got == sizeof head && bytes.substr(257, 5) == "ustar") return ArchiveKind::kTar;
  return ArchiveKind::kUnknown;
}

Result<std::unique_ptr<ArchiveReader>> open_archive(const std::string& path) {
  WV_ASSIGN_OR_RETURN(const ArchiveKind kind, archive_kind(path));
  switch (kind) {
    case ArchiveKind::kTar: return open_tar_reader(path);
    case ArchiveKind::kZip: return open_zip_reader(path);
    case ArchiveKind::kUnknown: break;
  }
  return make_error(ErrorCode::kUnsupported,
                    str_cat("sdist ", in_backticks(path),
                            " holds neither a gzip-compressed tar nor a zip archive; wvlock "
                            "reads only those (.tar.gz and .zip sdists)"));
}

/// The member's name as a tree path: leading `./` and trailing `/` dropped; "" for the
/// archive's root entry.
std::string tree_path(std::string_view name) {
  while (name.starts_with("./")) name.remove_prefix(2);
  while (name.ends_with('/')) name.remove_suffix(1);
  return name == "." ? std::string() : std::string(name);
}

/// Where `path` ends up when every symlink of the tree on the way is followed, on the names
/// alone (the staging tree holds exactly these names, nothing else); nullopt when it leaves the
/// archive's root or loops.
std::optional<std::string> resolve_in_tree(const std::string& path,
                                           const std::map<std::string, std::string>& symlinks) {
  constexpr int kMaxHops = 40;  // as the kernel's ELOOP
  std::vector<std::string> done;
  std::deque<std::string> todo;
  for (std::string_view part : split(path, '/')) todo.emplace_back(part);
  int hops = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.front());
    todo.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (done.empty()) return std::nullopt;
      done.pop_back();
      continue;
    }
    done.push_back(std::move(part));
    auto link = symlinks.find(join(done, "/"));
    if (link == symlinks.end()) continue;
    if (++hops > kMaxHops) return std::nullopt;
    done.pop_back();
    const std::vector<std::string_view> target = split(link->second, '/');
    for (auto piece = target.rbegin(); piece != target.rend(); ++piece) todo.emplace_front(*piece);
  }
  return join(done, "/");
}

/// Every member's checks, in archive order: what the tree would hold, so that no member can
/// turn an earlier file into a folder or link outside the tree.
class TreeCheck {
 public:
  explicit TreeCheck(std::string archive) : archive_(std::move(archive)) {}

  /// The member's tree path after its checks; "" for the root entry (nothing to do).
  Result<std::string> add(const ArchiveMember& member) {
    const std::string path = tree_path(member.name);
    if (path.empty() && member.kind == MemberKind::kDirectory) return path;
    if (++count_ > kMaxMembers) {
      return refuse(member.name, str_cat("comes after ", kMaxMembers, " others, more than any "
                                         "sdist holds"));
    }
    if (std::string why = install::check_member_name(path); !why.empty()) {
      return refuse(member.name, str_cat("has ", why));
    }
    WV_TRY(check_top(member, path));
    if (member.kind == MemberKind::kOther) return refuse(member.name, str_cat("is ", member.other));
    std::uint64_t size = member.size;
    if (member.kind == MemberKind::kHardlink) {
      WV_ASSIGN_OR_RETURN(size, check_hardlink(member));
    }
    WV_TRY(check_place(member, path));
    if (top_ == path) return path;
    if (member.kind == MemberKind::kSymlink) WV_TRY(check_symlink(member, path));
    total_ += size;
    if (total_ > limit_value(Limit::kSdistBytes)) {
      return limit_error(Limit::kSdistBytes,
                         str_cat("sdist ", in_backticks(archive_), " up to member ",
                                 in_backticks(member.name)),
                         std::nullopt);
    }
    if (member.kind == MemberKind::kFile || member.kind == MemberKind::kHardlink) {
      sizes_[path] = size;
    }
    return path;
  }

  /// Checks, once every member is known, that each symlink ends inside the top-level folder
  /// (links that leave it only together, or loop, are found here).
  Result<void> finish() const {
    for (const auto& [path, target] : symlinks_) {
      const std::optional<std::string> resolved = resolve_in_tree(path, symlinks_);
      if (!resolved || (*resolved != top_ && !resolved->starts_with(top_ + "/"))) {
        return refuse(path, str_cat("is a link to ", in_backticks(target),
                                    ", which leaves the top-level folder or loops"));
      }
    }
    return {};
  }

  /// The single top-level folder; "" while no member was seen.
  const std::string& top() const { return top_; }

 private:
  Error refuse(std::string_view member, std::string_view why) const {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("sdist ", in_backticks(archive_), " has a member ",
                              in_backticks(member), " that ", why,
                              "; wvlock refuses it (an sdist is one folder of files and links "
                              "inside it): use a wheel or another version"));
  }

  Result<void> check_top(const ArchiveMember& member, const std::string& path) {
    const std::string top = path.substr(0, path.find('/'));
    if (top_.empty()) top_ = top;
    if (top != top_) {
      return refuse(member.name, str_cat("is outside the top-level folder ", in_backticks(top_),
                                         " (an sdist has one)"));
    }
    if (path == top_ && member.kind != MemberKind::kDirectory) {
      return refuse(member.name, "is not inside a top-level folder");
    }
    return {};
  }

  /// No path is both a file and a folder, and no file comes twice.
  Result<void> check_place(const ArchiveMember& member, const std::string& path) {
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      auto [it, inserted] = kinds_.emplace(path.substr(0, slash), MemberKind::kDirectory);
      if (it->second != MemberKind::kDirectory) {
        return refuse(member.name, str_cat("is inside ", in_backticks(it->first),
                                           ", which an earlier member made a file or link"));
      }
    }
    // A hard link becomes a file (a copy), which a later hard link may name.
    const MemberKind kind = member.kind == MemberKind::kHardlink ? MemberKind::kFile : member.kind;
    auto [it, inserted] = kinds_.emplace(path, kind);
    if (!inserted && !(it->second == MemberKind::kDirectory && kind == MemberKind::kDirectory)) {
      return refuse(member.name, "comes twice, or as a file and a folder");
    }
    return {};
  }

  /// Where a link points is checked in finish(), when every link is known.
  Result<void> check_symlink(const ArchiveMember& member, const std::string& path) {
    const std::string& target = member.link_target;
    if (target.empty() || target.starts_with('/')) {
      return refuse(member.name, str_cat("is a link to ", in_backticks(target),
                                         ", an absolute or empty path"));
    }
    symlinks_[path] = target;
    return {};
  }

  /// A hard link names an earlier file member of the tree; it is unpacked as a copy of it.
  Result<std::uint64_t> check_hardlink(const ArchiveMember& member) const {
    auto size = sizes_.find(tree_path(member.link_target));
    if (size == sizes_.end()) {
      return refuse(member.name, str_cat("is a hard link to ", in_backticks(member.link_target),
                                         ", which is no earlier file of the tree"));
    }
    return size->second;
  }

  std::string archive_;
  std::string top_;
  std::map<std::string, MemberKind> kinds_;  ///< every path so far, folders above them too
  std::map<std::string, std::uint64_t> sizes_;  ///< every file (and hard link) so far
  std::map<std::string, std::string> symlinks_;  ///< path -> target
  std::uint64_t total_ = 0;
  std::uint64_t count_ = 0;
};

/// Calls `visit` with each member and its tree path (the root entry skipped) after TreeCheck
/// passed it; returns the top-level folder.
Result<std::string> walk_archive(
    const std::string& archive_path,
    const std::function<Result<void>(const std::string&, const ArchiveMember&, ArchiveReader&)>&
        visit) {
  WV_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, open_archive(archive_path));
  TreeCheck check(archive_path);
  while (true) {
    WV_ASSIGN_OR_RETURN(std::optional<ArchiveMember> member, reader->next());
    if (!member) break;
    WV_ASSIGN_OR_RETURN(const std::string path, check.add(*member));
    if (!path.empty()) WV_TRY(visit(path, *member, *reader));
  }
  WV_TRY(check.finish());
  if (check.top().empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("sdist ", in_backticks(archive_path),
                              " is empty; an sdist holds one top-level folder"));
  }
  return check.top();
}

Error io_error(std::string_view what, const std::string& path, int error_number) {
  return make_error(ErrorCode::kIo, str_cat("cannot ", what, " ", in_backticks(path), ": ",
                                            std::strerror(error_number)));
}

/// Writes the tree under `root`: folders and files as they come, links at the end.
class TreeWriter {
 public:
  explicit TreeWriter(std::string root) : root_(std::move(root)) {}

  Result<void> add(const std::string& path, const ArchiveMember& member, ArchiveReader& reader) {
    const std::string target = path_join(root_, path);
    switch (member.kind) {
      case MemberKind::kDirectory: return make_folder(target);
      case MemberKind::kFile: return write_file(target, member.executable, reader);
      case MemberKind::kHardlink: return copy_file(path_join(root_, tree_path(member.link_target)),
                                                   target);
      case MemberKind::kSymlink: symlinks_.push_back({path, member.link_target}); return {};
      case MemberKind::kOther: break;
    }
    return {};
  }

  /// Makes the symlinks, after every file and folder (TreeCheck::finish passed them).
  Result<void> finish() {
    for (const auto& [path, target] : symlinks_) {
      const std::string link = path_join(root_, path);
      WV_TRY(make_folder(path_parent(link)));
      if (::symlink(target.c_str(), link.c_str()) != 0) return io_error("create", link, errno);
    }
    return {};
  }

 private:
  Result<void> make_folder(const std::string& path) {
    std::error_code error;
    fs::create_directories(path, error);
    if (error) return io_error("create folder", path, error.value());
    return {};
  }

  // Only the execute bits of a member survive (no setuid, no odd permissions).
  Result<void> write_file(const std::string& path, bool executable, ArchiveReader& reader) {
    WV_TRY(make_folder(path_parent(path)));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          executable ? 0755 : 0644);
    if (fd < 0) return io_error("create", path, errno);
    Result<void> written = reader.read_data([&](std::string_view chunk) -> Result<void> {
      while (!chunk.empty()) {
        const ssize_t n = ::write(fd, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return io_error("write", path, errno);
        chunk.remove_prefix(static_cast<std::size_t>(n));
      }
      return {};
    });
    if (::close(fd) != 0 && written) return io_error("write", path, errno);
    return written;
  }

  Result<void> copy_file(const std::string& from, const std::string& to) {
    WV_TRY(make_folder(path_parent(to)));
    std::error_code error;
    fs::copy_file(from, to, error);
    if (error) return io_error("copy a hard-linked file to", to, error.value());
    return {};
  }

  std::string root_;
  std::vector<std::pair<std::string, std::string>> symlinks_;  ///< path, target
};

/// A fresh folder beside `destination` for the tree before it is complete.
Result<std::string> make_staging_folder(const std::string& destination) {
  std::error_code error;
  fs::create_directories(path_parent(destination), error);
  if (error) return io_error("create folder", path_parent(destination), error.value());
  std::string pattern = destination + ".partial-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return io_error("create", pattern, errno);
  return pattern;
}

}  // namespace

Result<std::string> read_sdist_pkg_info(const std::string& archive_path) {
  // The whole archive is walked, not just up to PKG-INFO: "the single top-level folder" is
  // only known at the end, and an sdist unpack_sdist would refuse has no metadata to trust.
  std::optional<std::string> pkg_info;
  std::string top;
  auto visit = [&](const std::string& path, const ArchiveMember& member,
                   ArchiveReader& reader) -> Result<void> {
    // TreeCheck made `path` start with the top-level folder.
    if (member.kind != MemberKind::kFile || path.substr(path.find('/')) != "/PKG-INFO") return {};
    const std::uint64_t limit = limit_value(Limit::kMetadataBytes);
    if (member.size > limit) {
      return limit_error(Limit::kMetadataBytes,
                         str_cat(in_backticks(path), " in sdist ", in_backticks(archive_path)),
                         member.size, limit);
    }
    pkg_info.emplace();
    return reader.read_data([&](std::string_view chunk) -> Result<void> {
      pkg_info->append(chunk);
      return {};
    });
  };
  WV_ASSIGN_OR_RETURN(top, walk_archive(archive_path, visit));
  if (!pkg_info) {
    return make_error(ErrorCode::kNotFound,
                      str_cat("sdist ", in_backticks(archive_path), " has no ",
                              in_backticks(top + "/PKG-INFO"),
                              "; it is not a valid sdist (build it again with a current backend)"));
  }
  return std::move(*pkg_info);
}

Result<std::string> unpack_sdist(const std::string& archive_path, const std::string& destination) {
  RealFileSystem files;
  if (files.exists(destination)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot unpack sdist ", in_backticks(archive_path), " into ",
                              in_backticks(destination), ": it already exists; remove it first"));
  }
  WV_ASSIGN_OR_RETURN(const std::string staging, make_staging_folder(destination));
  TreeWriter writer(staging);
  auto visit = [&](const std::string& path, const ArchiveMember& member, ArchiveReader& reader) {
    return writer.add(path, member, reader);
  };
  Result<std::string> top = walk_archive(archive_path, visit);
  Result<void> done = top ? writer.finish() : Result<void>();
  if (done && top) done = files.rename(staging, destination);
  if (!top || !done) {
    (void)files.remove_all(staging);
    return top ? std::move(done).error() : std::move(top).error();
  }
  return path_join(destination, *top);
}

}  // namespace wv::build
