// Reading one dist-info file of a remote wheel by HTTP range requests (wheel_zip.h): the zip
// records are parsed here (every offset bounds-checked against the bytes actually received) and
// the single entry is inflated with zlib, its size and CRC-32 checked against the central
// directory. A server that ignores ranges sends the whole wheel, read with libzip instead.
#include "src/index/wheel_zip.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "src/base/str.h"
#include "src/base/url.h"
#include "src/index/zip_corrupt.h"

namespace wv::index {
namespace {

constexpr std::uint32_t kEocdSignature = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kZip64EocdSignature = 0x06064b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::size_t kEocdSize = 22;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EocdSize = 56;
// EOCD (22) + the longest comment (65535): the tail that surely holds the EOCD record.
constexpr std::uint64_t kTailBytes = 65557;
// Slack read after an entry's compressed data when its local header's extra field is unknown.
constexpr std::uint64_t kLocalSlack = 1024;

std::uint16_t le16(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at]) |
                                    (static_cast<unsigned char>(bytes[at + 1]) << 8));
}
std::uint32_t le32(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint32_t>(le16(bytes, at)) |
         (static_cast<std::uint32_t>(le16(bytes, at + 2)) << 16);
}
std::uint64_t le64(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint64_t>(le32(bytes, at)) |
         (static_cast<std::uint64_t>(le32(bytes, at + 4)) << 32);
}

// Every offset, size and count below comes from the zip or from the server, so any of them may
// be near 2^64: bounds are checked as `length <= size - offset`, never as `offset + length <=
// size`, which wraps and passes.
bool within(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

// FetchRequest ranges are signed: a file larger than this cannot be asked for by range, and
// an offset above it would turn negative, which means "the last N bytes".
constexpr std::uint64_t kMaxRangeOffset =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

struct CentralEntry {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_offset = 0;
  std::uint16_t extra_length = 0;
};

struct Ranged {
  Fetcher& fetcher;
  const std::string& url;
  const SourceLimits& limits;
  RangeReadStats& stats;
  std::uint64_t total = 0;  ///< the file's size, once the tail has said it (<= kMaxRangeOffset)
};

/// `Content-Range: bytes first-last/total` of a 206 answer.
struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::optional<std::uint64_t> total;  ///< nullopt for `*`
};

// The answer's Content-Range, nullopt when it has none. One that does not parse, or whose
// numbers contradict each other or the body carried with it (a claim of more bytes than came),
// is a kIntegrity error: offsets computed from it would point at the wrong bytes.
Result<std::optional<ContentRange>> content_range(const FetchResponse& response,
                                                  const std::string& url) {
  auto found = response.headers.find("content-range");
  if (found == response.headers.end()) return std::optional<ContentRange>();
  std::string_view value = trim(found->second);
  std::string_view shown = value.size() > 100 ? value.substr(0, 100) : value;
  auto refuse = [&](std::string_view why) {
    return make_error(ErrorCode::kIntegrity, str_cat("range answer for ", in_backticks(url),
                                                     " has Content-Range ", in_backticks(shown),
                                                     ": ", why));
  };
  if (value.substr(0, 6) == "bytes ") value.remove_prefix(6);
  const std::size_t dash = value.find('-');
  const std::size_t slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) {
    return refuse("expected `bytes FIRST-LAST/TOTAL`");
  }
  std::optional<std::uint64_t> first = parse_uint64(trim(value.substr(0, dash)));
  std::optional<std::uint64_t> last = parse_uint64(trim(value.substr(dash + 1, slash - dash - 1)));
  std::string_view total_text = trim(value.substr(slash + 1));
  std::optional<std::uint64_t> total = parse_uint64(total_text);
  if (!first || !last || (!total && total_text != "*")) {
    return refuse("expected `bytes FIRST-LAST/TOTAL` with whole numbers");
  }
  if (*first > *last) return refuse("the range ends before it starts");
  if (total && *last >= *total) return refuse("the range ends past the file's size");
  // last - first + 1 bytes, compared without the + 1 (which wraps for 0-(2^64-1)).
  if (response.body.empty() || *last - *first != response.body.size() - 1) {
    return refuse(str_cat("it claims ", *last - *first, " + 1 bytes, the body has ",
                          response.body.size()));
  }
  return std::optional<ContentRange>(ContentRange{*first, *last, total});
}

// One range request for `length` bytes at `offset`, which the caller has checked lie within the
// file; a 200 answer means the server sent the whole file, which is returned through `whole`.
Result<std::string> fetch_range(Ranged& ctx, std::uint64_t offset, std::uint64_t length,
                                std::optional<std::string>& whole) {
  const std::string what = url_filename(ctx.url);
  if (length == 0 || !within(offset, length, ctx.total)) {
    return corrupt(what, str_cat("byte range ", offset, " + ", length, " lies outside the file"));
  }
  // offset + length <= total <= kMaxRangeOffset: both ends fit the signed range.
  const std::uint64_t last = offset + (length - 1);
  FetchRequest request;
  request.url = ctx.url;
  request.range = std::make_pair(static_cast<std::int64_t>(offset), static_cast<std::int64_t>(last));
  // A server that ignores the range sends the whole wheel: bound it like a whole download.
  request.max_body_bytes = ctx.limits.max_wheel_bytes;
  WV_ASSIGN_OR_RETURN(FetchResponse response, ctx.fetcher.fetch(request));
  ++ctx.stats.requests;
  ctx.stats.bytes += response.body.size();
  if (response.body_cut) {
    return limit_error(Limit::kDownloadBytes, str_cat("wheel ", in_backticks(ctx.url)), std::nullopt,
                       ctx.limits.max_wheel_bytes);
  }
  if (response.status == 200) {
    whole = std::move(response.body);
    return std::string();
  }
  if (response.status != 206) {
    return make_error(ErrorCode::kNetwork, str_cat("fetching a byte range of ", in_backticks(ctx.url),
                                                   ": HTTP status ", response.status));
  }
  if (response.body.size() != length) {
    return make_error(ErrorCode::kNetwork,
                      str_cat("byte range of ", in_backticks(ctx.url), " is truncated: got ",
                              response.body.size(), " bytes of ", length));
  }
  WV_ASSIGN_OR_RETURN(std::optional<ContentRange> range, content_range(response, ctx.url));
  if (range && range->first != offset) {
    return make_error(ErrorCode::kNetwork, str_cat("server answered a different byte range for ",
                                                   in_backticks(ctx.url)));
  }
  if (range && range->total && *range->total != ctx.total) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("wheel ", in_backticks(ctx.url), " changed size between requests: ",
                              ctx.total, " bytes, then ", *range->total));
  }
  return std::move(response.body);
}

Result<std::vector<CentralEntry>> parse_central_directory(std::string_view cd, std::uint64_t count,
                                                          std::string_view what) {
  std::vector<CentralEntry> entries;
  std::size_t pos = 0;  // <= cd.size() throughout
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!within(pos, kCentralHeaderSize, cd.size()) || le32(cd, pos) != kCentralSignature) {
      return corrupt(what, str_cat("central directory entry ", i, " is malformed"));
    }
    CentralEntry entry;
    entry.flags = le16(cd, pos + 8);
    entry.method = le16(cd, pos + 10);
    entry.crc = le32(cd, pos + 16);
    entry.compressed_size = le32(cd, pos + 20);
    entry.uncompressed_size = le32(cd, pos + 24);
    const std::size_t name_length = le16(cd, pos + 28);
    const std::size_t extra_length = le16(cd, pos + 30);
    const std::size_t comment_length = le16(cd, pos + 32);
    entry.local_offset = le32(cd, pos + 42);
    entry.extra_length = static_cast<std::uint16_t>(extra_length);
    // Three 16-bit lengths: their sum cannot wrap, but it may overrun the directory.
    const std::size_t variable = name_length + extra_length + comment_length;
    if (!within(pos + kCentralHeaderSize, variable, cd.size())) {
      return corrupt(what, str_cat("central directory entry ", i, " overruns"));
    }
    const std::size_t end = pos + kCentralHeaderSize + variable;
    entry.name = std::string(cd.substr(pos + kCentralHeaderSize, name_length));
    // Extra fields (APPNOTE §4.5): id, length, data. A length that runs past the entry's extra
    // block is a lie (Python's zipfile refuses it too); fewer than 4 trailing bytes are padding.
    std::string_view extra = cd.substr(pos + kCentralHeaderSize + name_length, extra_length);
    std::size_t at = 0;
    while (extra.size() - at >= 4) {
      const std::uint16_t id = le16(extra, at);
      const std::size_t size = le16(extra, at + 2);
      if (size > extra.size() - at - 4) {
        return corrupt(what, str_cat("extra field ", id, " of ", in_backticks(entry.name),
                                     " claims ", size, " bytes, ", extra.size() - at - 4,
                                     " remain"));
      }
      if (id == 0x0001) {
        // ZIP64 extended information (APPNOTE §4.5.3): only the fields saturated above are
        // present, in this order. One that is saturated but missing here is corrupt: keeping
        // 0xFFFFFFFF would read the wrong bytes.
        std::string_view field = extra.substr(at + 4, size);
        std::size_t offset = 0;
        bool short_field = false;
        auto take = [&](std::uint64_t& target) {
          if (target != 0xFFFFFFFFu) return;
          if (field.size() - offset < 8) {
            short_field = true;
            return;
          }
          target = le64(field, offset);
          offset += 8;
        };
        take(entry.uncompressed_size);
        take(entry.compressed_size);
        take(entry.local_offset);
        if (short_field) {
          return corrupt(what, str_cat("the ZIP64 extra field of ", in_backticks(entry.name),
                                       " is too short for the sizes it must hold"));
        }
      }
      at += 4 + size;
    }
    entries.push_back(std::move(entry));
    pos = end;
  }
  return entries;
}

Result<std::string> inflate_entry(std::string_view data, const CentralEntry& entry,
                                  std::string_view what) {
  // zlib counts in 32-bit uInt: larger sizes (only with a raised metadata limit) would wrap.
  if (data.size() > std::numeric_limits<uInt>::max() ||
      entry.uncompressed_size > std::numeric_limits<uInt>::max()) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("wheel ", in_backticks(what), ": ", in_backticks(entry.name),
                              " is over 4 GiB, which wvlock does not read in one piece"));
  }
  std::string out;
  if (entry.method == 0) {
    out = std::string(data);
  } else if (entry.method == 8) {
    out.resize(static_cast<std::size_t>(entry.uncompressed_size));
    z_stream stream;
    std::memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
      return corrupt(what, "cannot start inflating");
    }
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    int status = inflate(&stream, Z_FINISH);
    std::uint64_t produced = stream.total_out;
    inflateEnd(&stream);
    if (status != Z_STREAM_END || produced != entry.uncompressed_size) {
      return corrupt(what, str_cat(in_backticks(entry.name), " does not inflate to its recorded size"));
    }
  } else {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("wheel ", in_backticks(what), ": ", in_backticks(entry.name),
                              " uses zip compression method ", entry.method,
                              " (wvlock reads stored and deflated entries)"));
  }
  if (out.size() != entry.uncompressed_size) {
    return corrupt(what, str_cat(in_backticks(entry.name), " has the wrong size"));
  }
  std::uint32_t crc = static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data()),
            static_cast<uInt>(out.size())));
  if (crc != entry.crc) {
    return make_error(ErrorCode::kIntegrity, str_cat("wheel ", in_backticks(what), ": ",
                                                     in_backticks(entry.name), " fails its CRC-32 check"));
  }
  return out;
}

// The end of the wheel as the first request got it.
struct Tail {
  std::string bytes;
  std::uint64_t start = 0;  ///< its offset in the file
};

// Where the central directory lies, as the EOCD (or ZIP64 EOCD) record says.
struct DirectoryPlace {
  std::uint64_t entry_count = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
};

// 1. The tail, which holds the end-of-central-directory record; sets ctx.total. A 200 answer
// (the whole file) is returned through `whole`.
Result<Tail> fetch_tail(Ranged& ctx, std::optional<std::uint64_t> size,
                        std::optional<std::string>& whole) {
  const std::string& url = ctx.url;
  const std::string what = url_filename(url);
  if (size && *size > kMaxRangeOffset) {
    return make_error(ErrorCode::kParse, str_cat("the index gives wheel ", in_backticks(url),
                                                 " a size of ", *size,
                                                 " bytes, more than a file can have"));
  }
  FetchRequest request;
  request.url = url;
  if (size) {
    std::uint64_t first = *size > kTailBytes ? *size - kTailBytes : 0;
    request.range = std::make_pair(static_cast<std::int64_t>(first),
                                   static_cast<std::int64_t>(*size == 0 ? 0 : *size - 1));
  } else {
    request.range = std::make_pair(-static_cast<std::int64_t>(kTailBytes), std::int64_t{-1});
  }
  request.max_body_bytes = ctx.limits.max_wheel_bytes;
  WV_ASSIGN_OR_RETURN(FetchResponse tail_response, ctx.fetcher.fetch(request));
  ++ctx.stats.requests;
  ctx.stats.bytes += tail_response.body.size();
  if (tail_response.body_cut) {
    return limit_error(Limit::kDownloadBytes, str_cat("wheel ", in_backticks(url)), std::nullopt,
                       ctx.limits.max_wheel_bytes);
  }
  if (tail_response.status == 200) {
    whole = std::move(tail_response.body);
    return Tail{};
  }
  if (tail_response.status != 206) {
    return make_error(ErrorCode::kNetwork, str_cat("fetching the end of wheel ", in_backticks(url),
                                                   ": HTTP status ", tail_response.status));
  }
  WV_ASSIGN_OR_RETURN(std::optional<ContentRange> tail_range, content_range(tail_response, url));
  std::optional<std::uint64_t> total = tail_range ? tail_range->total : std::nullopt;
  if (!total) total = size;
  if (!total) {
    return make_error(ErrorCode::kNetwork, str_cat("range answer for ", in_backticks(url),
                                                   " has no usable Content-Range"));
  }
  if (*total > kMaxRangeOffset) {
    return make_error(ErrorCode::kIntegrity, str_cat("range answer for ", in_backticks(url),
                                                     " claims a file of ", *total,
                                                     " bytes, more than a file can have"));
  }
  ctx.total = *total;
  if (tail_range && tail_range->total) ctx.stats.file_size = *tail_range->total;
  Tail tail{std::move(tail_response.body), 0};
  if (tail.bytes.size() > *total) return corrupt(what, "range answer longer than the file");
  tail.start = *total - tail.bytes.size();
  // The tail was asked for up to the end: one that stops short (or starts elsewhere than its
  // length says) would put the EOCD's offsets at the wrong bytes.
  if (tail_range && (tail_range->first != tail.start || tail_range->last != *total - 1)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("range answer for the end of ", in_backticks(url), " covers bytes ",
                              tail_range->first, "-", tail_range->last, " of ", *total,
                              ", not the end of the file"));
  }
  return tail;
}

// 2. The EOCD record, searched backwards (a comment may follow it), and the ZIP64 record it
// may point at; the place they give is checked against the file and the limits.
Result<DirectoryPlace> find_central_directory(Ranged& ctx, const Tail& tail_bytes,
                                              std::optional<std::string>& whole) {
  const std::string& url = ctx.url;
  const std::string what = url_filename(url);
  const std::string& tail = tail_bytes.bytes;
  const std::uint64_t tail_start = tail_bytes.start;
  const std::uint64_t total = ctx.total;
  if (tail.size() < kEocdSize) return corrupt(what, "too short for a zip");
  std::optional<std::size_t> eocd;
  for (std::size_t at = tail.size() - kEocdSize + 1; at-- > 0;) {
    if (le32(tail, at) == kEocdSignature && within(at + kEocdSize, le16(tail, at + 20), tail.size())) {
      eocd = at;
      break;
    }
  }
  if (!eocd) return corrupt(what, "no end-of-central-directory record");
  std::uint64_t entry_count = le16(tail, *eocd + 10);
  std::uint64_t cd_size = le32(tail, *eocd + 12);
  std::uint64_t cd_offset = le32(tail, *eocd + 16);
  if (entry_count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu) {
    // ZIP64: the locator sits right before the EOCD and points at the ZIP64 EOCD record.
    if (*eocd < kZip64LocatorSize || le32(tail, *eocd - kZip64LocatorSize) != kZip64LocatorSignature) {
      return corrupt(what, "ZIP64 end-of-central-directory locator missing");
    }
    const std::uint64_t record_offset = le64(tail, *eocd - kZip64LocatorSize + 8);
    if (!within(record_offset, kZip64EocdSize, total)) {
      return corrupt(what, str_cat("ZIP64 end-of-central-directory record at ", record_offset,
                                   " lies outside the file of ", total, " bytes"));
    }
    std::string record;
    if (record_offset >= tail_start && within(record_offset - tail_start, kZip64EocdSize, tail.size())) {
      record = tail.substr(static_cast<std::size_t>(record_offset - tail_start), kZip64EocdSize);
    } else {
      WV_ASSIGN_OR_RETURN(record, fetch_range(ctx, record_offset, kZip64EocdSize, whole));
      if (whole) return DirectoryPlace{};
    }
    if (le32(record, 0) != kZip64EocdSignature) return corrupt(what, "bad ZIP64 record");
    entry_count = le64(record, 32);
    cd_size = le64(record, 40);
    cd_offset = le64(record, 48);
  }
  if (!within(cd_offset, cd_size, total)) {
    return corrupt(what, str_cat("central directory (", cd_size, " bytes at ", cd_offset,
                                 ") lies outside the file of ", total, " bytes"));
  }
  if (cd_size > ctx.limits.max_central_directory_bytes) {
    return limit_error(Limit::kCentralDirectoryBytes, str_cat("central directory of ", in_backticks(url)),
                       cd_size, ctx.limits.max_central_directory_bytes);
  }
  // Each entry takes at least 46 bytes: a larger count is a lie we must not allocate for.
  if (entry_count > cd_size / kCentralHeaderSize) {
    return corrupt(what, str_cat("impossible entry count ", entry_count, " for a central directory of ",
                                 cd_size, " bytes"));
  }
  return DirectoryPlace{entry_count, cd_size, cd_offset};
}

// 3. The central directory, from the tail when it is there, and the wanted entry in it,
// checked against the limits and the file.
Result<CentralEntry> read_central_entry(Ranged& ctx, const Tail& tail_bytes,
                                        const DirectoryPlace& place, const DistInfoEntry& wanted,
                                        std::optional<std::string>& whole) {
  const std::string& url = ctx.url;
  const std::string what = url_filename(url);
  const std::string& tail = tail_bytes.bytes;
  const std::uint64_t tail_start = tail_bytes.start;
  const std::uint64_t total = ctx.total;
  const SourceLimits& limits = ctx.limits;
  std::string cd;
  if (place.offset >= tail_start) {
    if (!within(place.offset - tail_start, place.size, tail.size())) {
      return corrupt(what, "central directory overruns the file");
    }
    cd = tail.substr(static_cast<std::size_t>(place.offset - tail_start),
                     static_cast<std::size_t>(place.size));
  } else if (place.size > 0) {
    WV_ASSIGN_OR_RETURN(cd, fetch_range(ctx, place.offset, place.size, whole));
    if (whole) return CentralEntry{};
  }
  WV_ASSIGN_OR_RETURN(std::vector<CentralEntry> entries,
                      parse_central_directory(cd, place.entry_count, what));
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const CentralEntry& entry : entries) names.push_back(entry.name);
  WV_ASSIGN_OR_RETURN(std::size_t index, find_dist_info_entry(names, wanted, what));
  const CentralEntry& entry = entries[index];
  if (entry.uncompressed_size > limits.max_metadata_bytes) {
    return limit_error(Limit::kMetadataBytes, str_cat(in_backticks(entry.name), " in ", in_backticks(url)),
                       entry.uncompressed_size, limits.max_metadata_bytes);
  }
  // Deflate never expands data much: a compressed size far above the limit is corrupt input.
  // (Checked as `size - 1024 > limit` so that a raised limit near 2^64 cannot wrap.)
  if (entry.compressed_size > 1024 && entry.compressed_size - 1024 > limits.max_metadata_bytes) {
    return corrupt(what, str_cat(in_backticks(entry.name), " has an implausible compressed size"));
  }
  if (!within(entry.local_offset, kLocalHeaderSize, total)) {
    return corrupt(what, str_cat("local header of ", in_backticks(entry.name), " at ",
                                 entry.local_offset, " lies outside the file of ", total, " bytes"));
  }
  // With the check above the compressed size is at most the metadata limit + 1024; this bound
  // also holds for a limit set near 2^64, so the sums below (names and extras are 16-bit) cannot
  // wrap.
  if (entry.compressed_size > kMaxRangeOffset) {
    return corrupt(what, str_cat(in_backticks(entry.name), " has an implausible compressed size"));
  }
  return entry;
}

// 4. The local header and the data, inflated. The local extra field may differ from the
// central one, so read some slack and fetch again in the rare case it was not enough.
Result<std::string> read_entry_data(Ranged& ctx, const Tail& tail_bytes, const CentralEntry& entry,
                                    std::optional<std::string>& whole) {
  const std::string what = url_filename(ctx.url);
  const std::string& tail = tail_bytes.bytes;
  const std::uint64_t tail_start = tail_bytes.start;
  const std::uint64_t total = ctx.total;
  const std::uint64_t want = kLocalHeaderSize + entry.name.size() + entry.extra_length +
                             entry.compressed_size + kLocalSlack;
  const std::uint64_t length = std::min(want, total - entry.local_offset);
  std::string local;
  if (entry.local_offset >= tail_start && within(entry.local_offset - tail_start, length, tail.size())) {
    // Already in the tail (small wheels): no request at all.
    local = tail.substr(static_cast<std::size_t>(entry.local_offset - tail_start),
                        static_cast<std::size_t>(length));
  } else {
    WV_ASSIGN_OR_RETURN(local, fetch_range(ctx, entry.local_offset, length, whole));
    if (whole) return std::string();
  }
  if (local.size() < kLocalHeaderSize || le32(local, 0) != kLocalSignature) {
    return corrupt(what, str_cat("local header of ", in_backticks(entry.name), " is malformed"));
  }
  const std::uint64_t data_start = kLocalHeaderSize + le16(local, 26) + le16(local, 28);
  const std::uint64_t data_length = data_start + entry.compressed_size;  // small terms: no wrap
  if (data_length > local.size()) {
    if (!within(entry.local_offset, data_length, total)) {
      return corrupt(what, str_cat(in_backticks(entry.name), " overruns the file"));
    }
    WV_ASSIGN_OR_RETURN(local, fetch_range(ctx, entry.local_offset, data_length, whole));
    if (whole) return std::string();
  }
  std::string_view data = std::string_view(local).substr(static_cast<std::size_t>(data_start),
                                                         static_cast<std::size_t>(entry.compressed_size));
  return inflate_entry(data, entry, what);
}

}  // namespace

Result<std::string> fetch_dist_info_file(Fetcher& fetcher, const std::string& url,
                                         std::optional<std::uint64_t> size,
                                         const DistInfoEntry& wanted, const SourceLimits& limits,
                                         RangeReadStats* stats) {
  RangeReadStats local_stats;
  Ranged ctx{fetcher, url, limits, stats != nullptr ? *stats : local_stats};
  const std::string what = url_filename(url);
  auto whole_file = [&](std::string bytes) -> Result<std::string> {
    ctx.stats.whole_file = true;
    ctx.stats.file_size = bytes.size();
    if (bytes.size() > limits.max_wheel_bytes) {
      return limit_error(Limit::kDownloadBytes, str_cat("wheel ", in_backticks(url)), bytes.size(),
                         limits.max_wheel_bytes);
    }
    return read_dist_info_from_buffer(bytes, wanted, what, limits);
  };
  // Each step returns at once when a server ignored the range and sent the whole file.
  std::optional<std::string> whole;
  WV_ASSIGN_OR_RETURN(Tail tail, fetch_tail(ctx, size, whole));
  if (whole) return whole_file(std::move(*whole));
  WV_ASSIGN_OR_RETURN(DirectoryPlace place, find_central_directory(ctx, tail, whole));
  if (whole) return whole_file(std::move(*whole));
  WV_ASSIGN_OR_RETURN(CentralEntry entry, read_central_entry(ctx, tail, place, wanted, whole));
  if (whole) return whole_file(std::move(*whole));
  WV_ASSIGN_OR_RETURN(std::string data, read_entry_data(ctx, tail, entry, whole));
  if (whole) return whole_file(std::move(*whole));
  return data;
}

}  // namespace wv::index
