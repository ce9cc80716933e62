// Reading archives member by member (the shape sdist_archive.cc checks and unpacks), and the
// reader of gzip-compressed tar archives: POSIX ustar, GNU long names, pax extended headers,
// each header's checksum checked, data streamed in chunks. Readers only read; whether a member
// is acceptable is sdist_archive.cc's business.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::build {

enum class MemberKind { kFile, kDirectory, kSymlink, kHardlink, kOther };

/// One member as its archive describes it.
struct ArchiveMember {
  std::string name;         ///< as stored (tar: the pax `path`, a GNU long name, prefix/name)
  MemberKind kind = MemberKind::kOther;
  std::string other;        ///< kOther: what it is, for messages ("a FIFO")
  std::string link_target;  ///< symlinks and hard links
  std::uint64_t size = 0;   ///< data bytes (files only)
  bool executable = false;  ///< any execute bit set
};

/// An archive read member after member.
class ArchiveReader {
 public:
  virtual ~ArchiveReader() = default;
  /// The next member, nullopt at the end. Skips what is left of the previous member's data.
  /// Errors (truncation, a bad checksum, a garbled field) name the archive.
  virtual Result<std::optional<ArchiveMember>> next() = 0;
  /// Streams the current member's data to `sink`, in chunks; exactly `size` bytes.
  virtual Result<void> read_data(const std::function<Result<void>(std::string_view)>& sink) = 0;
};

/// Opens a .tar.gz (zlib's gz* API, which also reads an uncompressed tar as it is).
Result<std::unique_ptr<ArchiveReader>> open_tar_reader(const std::string& path);

}  // namespace wv::build
