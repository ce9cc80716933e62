// TarReader: zlib's gz* API underneath (the one .cc that includes zlib.h), 512-byte blocks on
// top. The format as POSIX pax and GNU tar write it; Python's tarfile is the reference for
// what sdists hold (setuptools, hatchling, flit and maturin all write through it or like it).
#include "src/pep517/tar_reader.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>

#include "src/base/limits.h"
#include "src/base/str.h"

namespace wv::build {
namespace {

constexpr std::size_t kBlock = 512;
// A GNU long name or a pax extended header holds a few names; more is not a real archive.
constexpr std::uint64_t kMaxExtendedHeader = 1 << 20;
constexpr std::size_t kChunk = 64 * 1024;

using Block = std::array<char, kBlock>;

/// A header field as text: up to its first NUL.
std::string_view field_text(const Block& block, std::size_t offset, std::size_t length) {
  std::string_view field(block.data() + offset, length);
  return field.substr(0, field.find('\0'));
}

/// A numeric header field: octal (space or NUL padded), or GNU base-256 when its high bit is set.
std::optional<std::uint64_t> field_number(const Block& block, std::size_t offset,
                                          std::size_t length) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(block.data() + offset);
  std::uint64_t value = 0;
  if (bytes[0] & 0x80) {
    if (bytes[0] != 0x80) return std::nullopt;  // negative or beyond 64 bits
    for (std::size_t i = 1; i < length; ++i) {
      if (value >> 56) return std::nullopt;
      value = (value << 8) | bytes[i];
    }
    return value;
  }
  std::string_view digits = trim(field_text(block, offset, length));
  if (digits.empty()) return 0;
  for (char c : digits) {
    if (c < '0' || c > '7' || (value >> 61)) return std::nullopt;
    value = value * 8 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

/// The header checksum: the sum of its bytes with the checksum field read as spaces. Old tars
/// summed signed chars; either sum is accepted, as GNU tar and Python's tarfile do.
bool checksum_matches(const Block& block) {
  const std::optional<std::uint64_t> stored = field_number(block, 148, 8);
  if (!stored) return false;
  std::int64_t unsigned_sum = 0;
  std::int64_t signed_sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    const bool in_field = i >= 148 && i < 156;
    unsigned_sum += in_field ? ' ' : static_cast<unsigned char>(block[i]);
    signed_sum += in_field ? ' ' : static_cast<signed char>(block[i]);
  }
  return static_cast<std::int64_t>(*stored) == unsigned_sum ||
         static_cast<std::int64_t>(*stored) == signed_sum;
}

bool is_zero_block(const Block& block) {
  for (char c : block) {
    if (c != 0) return false;
  }
  return true;
}

/// The records of a pax extended header: "LENGTH key=value\n", LENGTH counting the whole
/// record. nullopt when garbled.
std::optional<std::map<std::string, std::string>> parse_pax(std::string_view text) {
  std::map<std::string, std::string> records;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::optional<std::uint64_t> length = parse_uint64(text.substr(0, space));
    if (!length || *length <= space + 1 || *length > text.size() || text[*length - 1] != '\n') {
      return std::nullopt;
    }
    const std::string_view record = text.substr(space + 1, *length - space - 2);
    const std::size_t equals = record.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    records[std::string(record.substr(0, equals))] = std::string(record.substr(equals + 1));
    text.remove_prefix(*length);
  }
  return records;
}

MemberKind kind_of(char type) {
  switch (type) {
    case '0': case '\0': case '7': return MemberKind::kFile;  // '7': contiguous, a plain file
    case '5': return MemberKind::kDirectory;
    case '2': return MemberKind::kSymlink;
    case '1': return MemberKind::kHardlink;
    default: return MemberKind::kOther;
  }
}

/// A member of no kind an sdist may hold, for messages.
std::string describe_other(char type) {
  switch (type) {
    case '3': return "a character device";
    case '4': return "a block device";
    case '6': return "a FIFO";
    default: return str_cat("a member of tar type ", in_backticks(std::string(1, type)));
  }
}

/// What the extended headers before a member said of it.
struct Extended {
  std::optional<std::string> name;
  std::optional<std::string> link_target;
  std::optional<std::uint64_t> size;
};

class TarReader final : public ArchiveReader {
 public:
  TarReader(std::string path, gzFile file) : path_(std::move(path)), file_(file) {}
  ~TarReader() override {
    if (file_ != nullptr) gzclose(file_);
  }
  Result<std::optional<ArchiveMember>> next() override;
  Result<void> read_data(const std::function<Result<void>(std::string_view)>& sink) override;

 private:
  std::string path_;
  gzFile file_ = nullptr;
  std::uint64_t offset_ = 0;     ///< uncompressed bytes consumed
  std::uint64_t data_left_ = 0;  ///< of the current member
  std::uint64_t padding_ = 0;    ///< after the current member's data
  std::string member_;           ///< the current member's name, for messages

  Error truncated(std::string_view where) const {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("sdist ", in_backticks(path_), " is truncated (", where,
                              "); download it again or use another file"));
  }

  Error garbled(std::string_view why) const {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("sdist ", in_backticks(path_), " is not a valid tar archive: ", why,
                              " at byte ", offset_, member_.empty() ? "" : " after member ",
                              member_.empty() ? "" : in_backticks(member_)));
  }

  /// Reads up to `length` bytes; fewer only at the end of the data. A gzip stream that stops
  /// early or fails its CRC is an error.
  Result<std::size_t> read(char* buffer, std::size_t length) {
    std::size_t got = 0;
    while (got < length) {
      const int n = gzread(file_, buffer + got, static_cast<unsigned>(length - got));
      if (n > 0) {
        got += static_cast<std::size_t>(n);
        continue;
      }
      int code = Z_OK;
      const char* message = gzerror(file_, &code);
      if (code == Z_BUF_ERROR) return truncated("its gzip stream ends early");
      if (n < 0 || code != Z_OK) {
        return make_error(ErrorCode::kIntegrity,
                          str_cat("sdist ", in_backticks(path_), " is not a valid gzip file: ",
                                  message == nullptr ? "unknown zlib error" : message));
      }
      break;  // the end of the data
    }
    offset_ += got;
    // Every byte of the tar stream counts, headers, extended headers, padding and skipped
    // data included: a stream of nothing but headers must not inflate for free.
    if (offset_ > limit_value(Limit::kSdistBytes)) {
      return limit_error(Limit::kSdistBytes,
                         str_cat("sdist ", in_backticks(path_), " (its tar stream, headers included)"),
                         std::nullopt);
    }
    return got;
  }

  Result<void> read_exact(char* buffer, std::size_t length, std::string_view where) {
    WV_ASSIGN_OR_RETURN(const std::size_t got, read(buffer, length));
    if (got != length) return truncated(where);
    return {};
  }

  Result<void> skip(std::uint64_t length, std::string_view where) {
    std::array<char, kChunk> buffer;
    while (length > 0) {
      const std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(length, kChunk));
      WV_TRY(read_exact(buffer.data(), step, where));
      length -= step;
    }
    return {};
  }

  /// The data of an extended header (a GNU long name, pax records), padding included.
  Result<std::string> read_extended(std::uint64_t size) {
    if (size > kMaxExtendedHeader) {
      return garbled(str_cat("an extended header of ", size, " bytes"));
    }
    std::string data(static_cast<std::size_t>(size), '\0');
    WV_TRY(read_exact(data.data(), data.size(), "in an extended header"));
    WV_TRY(skip((kBlock - size % kBlock) % kBlock, "in an extended header"));
    return data;
  }

  /// Reads one extended header's data into `extended`.
  Result<void> read_extended_header(char type, std::uint64_t size, Extended& extended) {
    WV_ASSIGN_OR_RETURN(std::string data, read_extended(size));
    if (type == 'L' || type == 'K') {
      std::string text(std::string_view(data).substr(0, data.find('\0')));
      (type == 'L' ? extended.name : extended.link_target) = std::move(text);
      return {};
    }
    if (type == 'g') return {};  // global pax records: defaults sdists have no use for
    std::optional<std::map<std::string, std::string>> records = parse_pax(data);
    if (!records) return garbled("a garbled pax extended header");
    if (auto path = records->find("path"); path != records->end()) extended.name = path->second;
    if (auto link = records->find("linkpath"); link != records->end()) {
      extended.link_target = link->second;
    }
    if (auto size_record = records->find("size"); size_record != records->end()) {
      extended.size = parse_uint64(size_record->second);
      if (!extended.size) return garbled("a pax `size` record that is not a number");
    }
    return {};
  }

  /// A member from its header and the extended headers before it.
  Result<ArchiveMember> member_of(const Block& block, const Extended& extended) {
    ArchiveMember result;
    const char type = block[156];
    result.kind = kind_of(type);
    if (result.kind == MemberKind::kOther) result.other = describe_other(type);
    const std::optional<std::uint64_t> header_size = field_number(block, 124, 12);
    const std::optional<std::uint64_t> mode = field_number(block, 100, 8);
    if (!header_size || !mode) return garbled("a header with a garbled size or mode");
    result.executable = (*mode & 0111) != 0;
    if (extended.name) {
      result.name = *extended.name;
    } else {
      result.name = std::string(field_text(block, 0, 100));
      const bool posix = std::memcmp(block.data() + 257, "ustar\0", 6) == 0;
      const std::string_view prefix = field_text(block, 345, 155);
      if (posix && !prefix.empty()) result.name = str_cat(prefix, "/", result.name);
    }
    result.link_target = extended.link_target.value_or(std::string(field_text(block, 157, 100)));
    // As Python's tarfile: only files (and unknown types) are followed by data.
    const bool has_data = result.kind == MemberKind::kFile || result.kind == MemberKind::kOther;
    result.size = has_data ? extended.size.value_or(*header_size) : 0;
    return result;
  }
};

Result<std::optional<ArchiveMember>> TarReader::next() {
  WV_TRY(skip(data_left_ + padding_, str_cat("in member ", in_backticks(member_))));
  data_left_ = padding_ = 0;
  Extended extended;
  while (true) {
    Block block;
    WV_ASSIGN_OR_RETURN(const std::size_t got, read(block.data(), kBlock));
    // The end: a zero block, or (as Python's tarfile accepts) the data ending between members.
    if (got == 0 && !extended.name && !extended.link_target) {
      return std::optional<ArchiveMember>();
    }
    if (got != kBlock) return truncated("in a member header");
    if (is_zero_block(block)) return std::optional<ArchiveMember>();
    if (!checksum_matches(block)) return garbled("a header with a bad checksum");
    const char type = block[156];
    if (type == 'L' || type == 'K' || type == 'x' || type == 'g') {
      const std::optional<std::uint64_t> size = field_number(block, 124, 12);
      if (!size) return garbled("an extended header with a garbled size");
      WV_TRY(read_extended_header(type, *size, extended));
      continue;
    }
    WV_ASSIGN_OR_RETURN(ArchiveMember result, member_of(block, extended));
    member_ = result.name;
    data_left_ = result.size;
    padding_ = (kBlock - result.size % kBlock) % kBlock;
    return std::optional<ArchiveMember>(std::move(result));
  }
}

Result<void> TarReader::read_data(const std::function<Result<void>(std::string_view)>& sink) {
  std::array<char, kChunk> buffer;
  while (data_left_ > 0) {
    const std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(data_left_, kChunk));
    WV_TRY(read_exact(buffer.data(), step, str_cat("in member ", in_backticks(member_))));
    data_left_ -= step;
    WV_TRY(sink(std::string_view(buffer.data(), step)));
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<ArchiveReader>> open_tar_reader(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return make_error(ErrorCode::kIo, str_cat("cannot open sdist ", in_backticks(path), ": ",
                                              std::strerror(errno)));
  }
  gzbuffer(file, 128 * 1024);
  return std::unique_ptr<ArchiveReader>(std::make_unique<TarReader>(path, file));
}

}  // namespace wv::build
