// Wheel extraction (the one .cc that reads wheel archives): PyPA binary distribution format,
// "Installing a wheel" step 1 (unpack), with every member checked against RECORD. Members
// inflate on several threads, each with its own archive handle (a libzip archive is not shared
// between threads), biggest first so one huge library does not finish last.
#include "src/install/wheel_extract.h"

#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <thread>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/piece_writer.h"
#include "src/install/write_back.h"
#include "src/install/zip_handle.h"
#include "src/pkg/name.h"
#include "src/pkg/version.h"
#include "src/pkg/wheel_filename.h"

namespace wv::install {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 18;
// A member handed to a PieceWriter: pieces of 1 MiB, four of them (one inflating, the rest
// queued or being hashed and written): 4 MiB per such member in flight.
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
constexpr std::size_t kPieces = 4;

/// One archive member.
struct Member {
  zip_uint64_t index = 0;
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t compressed_size = 0;
  bool deflated = false;
  bool executable = false;
  std::optional<std::uint32_t> crc;  ///< the directory's CRC-32; a deflated member is checked against it
};

/// What the archive's directory says, checked.
struct Listing {
  std::vector<Member> members;  ///< files only, archive order
  std::string dist_info;        ///< e.g. pkg-1.0.dist-info
};

std::string hex32(std::uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

/// One thread's inflate state and chunk buffers, reused for every member it extracts: new
/// ones per member cost a 512 KiB memset each, 6 GB over a 12,000-member wheel.
struct InflateBuffers {
  std::unique_ptr<inflate_state> state = std::make_unique<inflate_state>();
  std::unique_ptr<char[]> chunks = std::make_unique_for_overwrite<char[]>(2 * kChunk);
  std::span<char> input() { return {chunks.get(), kChunk}; }
  std::span<char> output() { return {chunks.get() + kChunk, kChunk}; }
};

/// Reads a member through libzip (which inflates and checks the CRC) into `buffer`, calling
/// `sink` per chunk; it must yield exactly its declared size.
template <class Sink>
Result<void> read_member(zip_t* archive, const Member& member, std::string_view wheel,
                         std::span<char> buffer, Sink&& sink) {
  ZipFilePtr file(zip_fopen_index(archive, member.index, 0));
  if (!file) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("cannot read ", in_backticks(member.name), " in ",
                              in_backticks(wheel), ": ", zip_error_text(zip_get_error(archive))));
  }
  std::uint64_t total = 0;
  while (true) {
    zip_int64_t got = zip_fread(file.get(), buffer.data(), buffer.size());
    if (got < 0) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("cannot read ", in_backticks(member.name), " in ",
                                in_backticks(wheel), ": ",
                                zip_error_text(zip_file_get_error(file.get()))));
    }
    if (got == 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > member.size) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                " expands past its declared size"));
    }
    WV_TRY(sink(std::string_view(buffer.data(), static_cast<std::size_t>(got))));
  }
  if (total != member.size) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(member.name), " in ", in_backticks(wheel), " is ",
                              total, " bytes, its zip header says ", member.size));
  }
  return {};
}

/// Where inflate_member() puts what it inflates: into the thread's own output buffer, handed
/// to `sink` piece by piece.
template <class Sink>
struct SinkOutput {
  std::span<char> buffer;
  Sink& sink;
  std::span<char> next() { return buffer; }
  Result<void> put(std::span<char> produced) {
    return sink(std::string_view(produced.data(), produced.size()));
  }
};

/// Or into a PieceWriter's buffers, consumed on its thread.
struct PieceOutput {
  PieceWriter& pieces;
  std::span<char> next() { return pieces.next(); }
  Result<void> put(std::span<char> produced) { return pieces.submit(produced.size()); }
};

/// The same for a deflated member, inflated here with ISA-L from the raw stream (several times
/// zlib's speed) into `out` (SinkOutput or PieceOutput). ISA-L computes the CRC-32 while it
/// inflates, and it must match the zip directory's, as libzip's own reads and pip require: a
/// member whose CRC does not match is a damaged wheel even when RECORD's hash (which the
/// wheel's author computed) agrees.
template <class Output>
Result<void> inflate_member(zip_t* archive, const Member& member, std::string_view wheel,
                            InflateBuffers& buffers, Output&& out) {
  ZipFilePtr file(zip_fopen_index(archive, member.index, ZIP_FL_COMPRESSED));
  auto broken = [&](std::string_view why) {
    return make_error(ErrorCode::kIntegrity, str_cat("cannot inflate ", in_backticks(member.name),
                                                     " in ", in_backticks(wheel), ": ", why));
  };
  if (!file) return broken(zip_error_text(zip_get_error(archive)));
  inflate_state* state = buffers.state.get();
  isal_inflate_init(state);  // resets every field a stream uses: the state is reused
  state->crc_flag = ISAL_GZIP_NO_HDR;  // raw deflate, the gzip CRC-32 of the output kept
  std::span<char> input = buffers.input();
  std::uint64_t total = 0;
  bool input_done = false;
  while (state->block_state != ISAL_BLOCK_FINISH) {
    if (state->avail_in == 0 && !input_done) {
      zip_int64_t got = zip_fread(file.get(), input.data(), input.size());
      if (got < 0) return broken(zip_error_text(zip_file_get_error(file.get())));
      input_done = got == 0;
      state->next_in = reinterpret_cast<uint8_t*>(input.data());
      state->avail_in = static_cast<uint32_t>(got);
    }
    const std::span<char> output = out.next();
    state->next_out = reinterpret_cast<uint8_t*>(output.data());
    state->avail_out = static_cast<uint32_t>(output.size());
    const uint32_t input_before = state->avail_in;
    const int status = isal_inflate(state);
    if (status != ISAL_DECOMP_OK) return broken(str_cat("invalid deflate data (", status, ")"));
    const std::size_t produced = output.size() - state->avail_out;
    total += produced;
    if (total > member.size) {
      return make_error(ErrorCode::kIntegrity, str_cat(in_backticks(member.name), " in ",
                                                       in_backticks(wheel),
                                                       " expands past its declared size"));
    }
    if (produced > 0) WV_TRY(out.put(output.first(produced)));
    // No output and no input taken: more input cannot come, or the stream is stuck.
    if (produced == 0 && state->avail_in == input_before &&
        state->block_state != ISAL_BLOCK_FINISH && (input_done || state->avail_in > 0)) {
      return broken("the compressed data ends early");
    }
  }
  if (total != member.size) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(member.name), " in ", in_backticks(wheel), " is ",
                              total, " bytes, its zip header says ", member.size));
  }
  if (!member.crc) return broken("the zip directory gives no CRC-32");
  if (state->crc != *member.crc) {
    return broken(str_cat("its CRC-32 is ", hex32(state->crc), ", the zip directory says ",
                          hex32(*member.crc), " (a damaged wheel)"));
  }
  return {};
}

Result<std::string> read_member_text(zip_t* archive, const Member& member, std::string_view wheel,
                                     std::uint64_t limit) {
  if (member.size > limit) {
    return limit_error(Limit::kRecordBytes,
                       str_cat(in_backticks(member.name), " in ", in_backticks(wheel)),
                       member.size, limit);
  }
  std::string text;
  text.reserve(member.size);
  std::string buffer(std::size_t{1} << 16, '\0');
  WV_TRY(read_member(archive, member, wheel, buffer, [&](std::string_view chunk) -> Result<void> {
    text.append(chunk);
    return {};
  }));
  return text;
}

/// One entry's facts; refuses names that would escape, links, special files and encryption.
Result<std::optional<Member>> read_entry(zip_t* archive, zip_uint64_t index, std::string_view wheel) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME) ||
      !(stat.valid & ZIP_STAT_SIZE)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("wheel ", in_backticks(wheel), ": cannot read zip entry ", index));
  }
  Member member;
  member.index = index;
  member.name = stat.name;
  member.size = stat.size;
  member.compressed_size = (stat.valid & ZIP_STAT_COMP_SIZE) ? stat.comp_size : stat.size;
  member.deflated = (stat.valid & ZIP_STAT_COMP_METHOD) && stat.comp_method == ZIP_CM_DEFLATE;
  if (stat.valid & ZIP_STAT_CRC) member.crc = stat.crc;
  if (std::string why = check_member_name(member.name); !why.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), " has an entry ",
                              in_backticks(member.name), " with ", why,
                              "; refusing to write outside the environment"));
  }
  if ((stat.valid & ZIP_STAT_ENCRYPTION_METHOD) && stat.encryption_method != ZIP_EM_NONE) {
    return make_error(ErrorCode::kInvalidInput, str_cat("wheel ", in_backticks(wheel),
                                                        " has an encrypted entry ",
                                                        in_backticks(member.name)));
  }
  zip_uint8_t opsys = 0;
  zip_uint32_t attributes = 0;
  if (zip_file_get_external_attributes(archive, index, 0, &opsys, &attributes) == 0 &&
      opsys == ZIP_OPSYS_UNIX) {
    mode_t mode = static_cast<mode_t>(attributes >> 16);
    if (S_ISLNK(mode)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " has a symlink entry ",
                                in_backticks(member.name),
                                "; wheels may not contain links (they could point outside "
                                "the environment)"));
    }
    if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " has a special file entry ",
                                in_backticks(member.name)));
    }
    member.executable = (mode & 0111) != 0;
  }
  if (member.name.back() == '/') return std::optional<Member>();  // a folder
  return std::optional<Member>(std::move(member));
}

/// Pass 1: every entry's facts, the bounds, and the one .dist-info folder of `name`.
Result<Listing> list_members(zip_t* archive, std::string_view wheel, std::string_view name,
                             const pkg::WheelFilename& filename, const UnpackLimits& limits) {
  zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0 || static_cast<std::uint64_t>(count) > limits.max_entries) {
    return limit_error(Limit::kWheelEntries, str_cat("the entry count of wheel ", in_backticks(wheel)),
                       count < 0 ? std::nullopt : std::optional<std::uint64_t>(count),
                       limits.max_entries);
  }
  Listing listing;
  listing.members.reserve(static_cast<std::size_t>(count));
  std::uint64_t total = 0;
  std::set<std::string> dist_infos;
  std::set<std::string_view> names;
  for (zip_int64_t i = 0; i < count; ++i) {
    WV_ASSIGN_OR_RETURN(std::optional<Member> member,
                        read_entry(archive, static_cast<zip_uint64_t>(i), wheel));
    if (!member) continue;
    total += member->size;
    if (total > limits.max_total_size) {
      return limit_error(Limit::kUnpackedBytes,
                         str_cat("the unpacked size of wheel ", in_backticks(wheel)), std::nullopt,
                         limits.max_total_size);
    }
    std::string_view top = std::string_view(member->name).substr(0, member->name.find('/'));
    if (top.size() > 10 && top.substr(top.size() - 10) == ".dist-info" &&
        member->name.find('/') != std::string::npos) {
      dist_infos.insert(std::string(top));
    }
    listing.members.push_back(std::move(*member));
  }
  for (const Member& member : listing.members) {
    if (!names.insert(member.name).second) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("wheel ", in_backticks(wheel), " lists ",
                                in_backticks(member.name), " twice"));
    }
  }
  for (const std::string& candidate : dist_infos) {
    std::string_view stem = std::string_view(candidate).substr(0, candidate.size() - 10);
    std::size_t dash = stem.rfind('-');
    if (dash == std::string_view::npos) continue;
    // A folder whose stem is no valid name is no distribution's (nor this wheel's).
    Result<pkg::PackageName> stem_name = pkg::parse_package_name(stem.substr(0, dash));
    if (stem_name && stem_name->str() == name) {
      if (!listing.dist_info.empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("wheel ", in_backticks(wheel), " has two .dist-info folders"));
      }
      listing.dist_info = candidate;
    }
  }
  if (listing.dist_info.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), " has no ",
                              in_backticks(str_cat(name, "-", filename.version.to_string(),
                                                   ".dist-info/")),
                              " folder"));
  }
  return listing;
}

const Member* find_member(const Listing& listing, const std::string& name) {
  for (const Member& member : listing.members) {
    if (member.name == name) return &member;
  }
  return nullptr;
}

/// One of the dist-info folder's own files (METADATA, WHEEL, RECORD), which a wheel must have,
/// and its text, bounded by the metadata limit.
struct MetadataFile {
  const Member* member = nullptr;
  std::string text;
};

Result<MetadataFile> read_metadata_file(zip_t* archive, const Listing& listing,
                                        std::string_view leaf, std::string_view wheel,
                                        const UnpackLimits& limits) {
  MetadataFile file;
  file.member = find_member(listing, str_cat(listing.dist_info, "/", leaf));
  if (file.member == nullptr) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), " has no ", leaf, " file in ",
                              in_backticks(listing.dist_info)));
  }
  WV_ASSIGN_OR_RETURN(file.text,
                      read_member_text(archive, *file.member, wheel, limits.max_metadata_size));
  return file;
}

/// The file name, the dist-info folder and METADATA must name one distribution and version
/// (pip refuses the same, "inconsistent name/version"): otherwise the lock, the plan and what
/// the next sync reads back from the environment would each describe a different package.
Result<void> check_metadata(zip_t* archive, const Listing& listing, std::string_view wheel,
                            std::string_view name, const pkg::WheelFilename& filename,
                            const UnpackLimits& limits) {
  const std::string& dist_info = listing.dist_info;
  const std::string written_version = filename.version.to_string();
  std::string_view stem = std::string_view(dist_info).substr(0, dist_info.size() - 10);
  std::string_view folder_version = stem.substr(stem.rfind('-') + 1);
  if (Result<pkg::Version> parsed = pkg::parse_version(folder_version);
      !parsed || !(*parsed == filename.version)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("wheel ", in_backticks(wheel), " has inconsistent version: the "
                              "file name says ", in_backticks(written_version), ", its folder ",
                              in_backticks(dist_info), " says ", in_backticks(folder_version)));
  }
  WV_ASSIGN_OR_RETURN(MetadataFile metadata,
                      read_metadata_file(archive, listing, "METADATA", wheel, limits));
  const Member* metadata_member = metadata.member;
  const std::string& metadata_text = metadata.text;
  // Only the two header fields are read: a full parse would refuse wheels for fields that
  // installing never uses.
  std::optional<std::string> metadata_name;
  std::optional<std::string> metadata_version;
  for (std::string_view line : split(metadata_text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body starts
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string value(trim(line.substr(colon + 1)));
    if (iequals(key, "Name") && !metadata_name) metadata_name = value;
    if (iequals(key, "Version") && !metadata_version) metadata_version = value;
  }
  if (!metadata_name || !metadata_version) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(wheel), ": ", in_backticks(metadata_member->name),
                              " has no ", metadata_name ? "Version" : "Name", " field"));
  }
  if (Result<pkg::PackageName> named = pkg::parse_package_name(*metadata_name);
      !named || *named != filename.name) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("wheel ", in_backticks(wheel), " has inconsistent name: the file "
                              "name says ", in_backticks(name), ", METADATA says ",
                              in_backticks(*metadata_name)));
  }
  if (Result<pkg::Version> parsed = pkg::parse_version(*metadata_version);
      !parsed || !(*parsed == filename.version)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("wheel ", in_backticks(wheel), " has inconsistent version: the "
                              "file name says ", in_backticks(written_version), ", METADATA says ",
                              in_backticks(*metadata_version)));
  }
  return {};
}

/// WHEEL: Root-Is-Purelib, and a Wheel-Version of 1.x.
Result<bool> read_root_is_purelib(zip_t* archive, const Listing& listing, std::string_view wheel,
                                  const UnpackLimits& limits) {
  WV_ASSIGN_OR_RETURN(MetadataFile wheel_file,
                      read_metadata_file(archive, listing, "WHEEL", wheel, limits));
  bool root_is_purelib = true;
  for (std::string_view line : split(wheel_file.text, '\n')) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (iequals(key, "Root-Is-Purelib")) root_is_purelib = iequals(value, "true");
    if (iequals(key, "Wheel-Version") && !(value.size() >= 2 && value.substr(0, 2) == "1.")) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat("wheel ", in_backticks(wheel), " has Wheel-Version ",
                                in_backticks(value), "; wvlock installs 1.x"));
    }
  }
  return root_is_purelib;
}

std::string strip_padding(std::string_view digest) {
  while (!digest.empty() && digest.back() == '=') digest.remove_suffix(1);
  return std::string(digest);
}

bool is_record_or_signature(const Listing& listing, const std::string& name) {
  const std::string& dist_info = listing.dist_info;
  return name == dist_info + "/RECORD" || name == dist_info + "/RECORD.jws" ||
         name == dist_info + "/RECORD.p7s";
}

/// RECORD, parsed and matched to the archive: every row names a member, and every member but
/// RECORD and its signatures has a row with a sha256 (the checked hash and size go into
/// `wheel.members`, in archive order).
Result<void> read_record(zip_t* archive, const Listing& listing, std::string_view wheel,
                         const UnpackLimits& limits, ExtractedWheel& extracted,
                         std::vector<std::string>& sizes) {
  WV_ASSIGN_OR_RETURN(MetadataFile record_file,
                      read_metadata_file(archive, listing, "RECORD", wheel, limits));
  const Member* record_member = record_file.member;
  const std::string& text = record_file.text;
  const std::string what = str_cat(wheel, "!", listing.dist_info, "/RECORD");
  WV_ASSIGN_OR_RETURN(std::vector<RecordRow> rows, parse_record(text, what));
  std::map<std::string_view, const RecordRow*> record;
  for (const RecordRow& row : rows) record[row.path] = &row;
  std::set<std::string_view> names;
  for (const Member& member : listing.members) names.insert(member.name);
  for (const RecordRow& row : rows) {
    if (row.path.empty() || row.path.back() == '/' || row.path == record_member->name) continue;
    if (names.count(row.path) == 0) {
      return make_error(ErrorCode::kIntegrity, str_cat(what, " lists ", in_backticks(row.path),
                                                       ", which the wheel does not contain"));
    }
  }
  for (const Member& member : listing.members) {
    if (is_record_or_signature(listing, member.name)) continue;
    auto row = record.find(member.name);
    if (row == record.end() || row->second->hash.empty()) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(in_backticks(member.name), " in ", in_backticks(wheel),
                                row == record.end() ? " is not listed in RECORD"
                                                    : " has no hash in RECORD"));
    }
    const std::string& hash = row->second->hash;
    if (hash.compare(0, 7, "sha256=") != 0) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(what, ": ", in_backticks(member.name), " has hash ",
                                in_backticks(hash), "; wvlock checks sha256 only"));
    }
    extracted.members.push_back(
        ExtractedMember{member.name, strip_padding(hash), member.size, member.executable});
    sizes.push_back(row->second->size);
  }
  return {};
}

/// Inflates one member into `path`, checking its sha256 and size against RECORD.
Result<void> extract_member(FileSystem& file_system, zip_t* archive, const Member& member,
                            const ExtractedMember& expected, const std::string& recorded_size,
                            const std::string& path, std::string_view wheel,
                            InflateBuffers& buffers, std::uint64_t separate_writer_bytes,
                            const std::atomic<bool>& stop) {
  WV_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                      file_system.create_file(path, member.executable));
  Sha256 digest;
  EarlyWriteBack write_back(path, member.size);
  auto sink = [&](std::string_view chunk) -> Result<void> {
    if (stop) return make_error(ErrorCode::kIntegrity, "the extraction was stopped");
    digest.update(chunk);
    WV_TRY(file->write(chunk));
    write_back.wrote(chunk.size());
    return {};
  };
  if (!member.deflated) {
    WV_TRY(read_member(archive, member, wheel, buffers.output(), sink));
  } else if (separate_writer_bytes == 0 || member.size < separate_writer_bytes) {
    WV_TRY(inflate_member(archive, member, wheel, buffers,
                          SinkOutput<decltype(sink)>{buffers.output(), sink}));
  } else {
    // Hashed and written on the writer's thread while this one inflates; `digest` and
    // `file` are this thread's again once finish() has returned.
    PieceWriter pieces(kPieces, kPieceBytes, sink);
    Result<void> inflated = inflate_member(archive, member, wheel, buffers, PieceOutput{pieces});
    Result<void> written = pieces.finish();
    WV_TRY(inflated);
    WV_TRY(written);
  }
  WV_TRY(file->close());
  std::string actual = str_cat("sha256=", hex_to_urlsafe_base64_nopad(digest.finish_hex()));
  if (actual != expected.hash) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("hash mismatch for ", in_backticks(member.name), " in ",
                              in_backticks(wheel), ": RECORD says ", expected.hash,
                              ", the content is ", actual));
  }
  if (!recorded_size.empty() && recorded_size != std::to_string(member.size)) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("size mismatch for ", in_backticks(member.name), " in ",
                              in_backticks(wheel), ": RECORD says ", recorded_size,
                              ", the content is ", member.size, " bytes"));
  }
  return {};
}

/// Every folder the members need, parents first, created once before the threads start.
Result<void> create_folders(FileSystem& file_system, const std::string& folder,
                            const std::vector<ExtractedMember>& members) {
  std::set<std::string> made;
  for (const ExtractedMember& member : members) {
    std::vector<std::string_view> parts = split(member.path, '/');
    std::string rel;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      rel = rel.empty() ? std::string(parts[i]) : str_cat(rel, "/", parts[i]);
      if (made.insert(rel).second) WV_TRY(file_system.create_directory(path_join(folder, rel)));
    }
  }
  return {};
}

/// Pass 2: every member inflated and checked, on `threads` threads, biggest first, until the
/// end or until `stop` is set.
Result<void> extract_members(FileSystem& file_system, const std::string& wheel_path,
                             const std::string& folder, const Listing& listing,
                             const ExtractedWheel& extracted, const std::vector<std::string>& sizes,
                             std::string_view wheel, const ExtractOptions& options,
                             const std::atomic<bool>& stop) {
  std::map<std::string_view, const Member*> by_name;
  for (const Member& member : listing.members) by_name[member.name] = &member;
  std::vector<const Member*> archived(extracted.members.size());  // per extracted member
  for (std::size_t i = 0; i < archived.size(); ++i) archived[i] = by_name[extracted.members[i].path];
  std::vector<std::size_t> order(extracted.members.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return archived[a]->compressed_size > archived[b]->compressed_size;
  });
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::optional<Error> first_error;
  auto fail = [&](Error error) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (!first_error) first_error = std::move(error);
    failed = true;
  };
  auto work = [&]() {
    // The listing's handle made the consistency checks of this same file.
    Result<ZipPtr> archive = open_zip(wheel_path, str_cat("wheel ", in_backticks(wheel)), true);
    if (!archive) return fail(std::move(archive).error());
    InflateBuffers buffers;
    for (std::size_t k; !failed && !stop && (k = next.fetch_add(1)) < order.size();) {
      const ExtractedMember& expected = extracted.members[order[k]];
      Result<void> done =
          extract_member(file_system, archive->get(), *archived[order[k]], expected,
                         sizes[order[k]], path_join(folder, expected.path), wheel, buffers,
                         options.separate_writer_bytes, stop);
      if (!done) return fail(std::move(done).error());
    }
  };
  std::size_t workers = std::max<std::size_t>(
      1, std::min<std::size_t>(order.size(),
                               options.threads != 0 ? options.threads
                                                    : std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (first_error) return std::move(*first_error);
  if (stop) return make_error(ErrorCode::kIntegrity, str_cat("the extraction of ", wheel, " was stopped"));
  return {};
}

Result<ExtractedWheel> extract_unchecked(FileSystem& file_system, const std::string& wheel_path,
                                         const std::string& folder, const ExtractOptions& options,
                                         const std::atomic<bool>& stop) {
  const std::string wheel = options.wheel_name.empty()
                                ? std::string(path_filename(wheel_path))
                                : options.wheel_name;
  WV_ASSIGN_OR_RETURN(pkg::WheelFilename filename, pkg::parse_wheel_filename(wheel));
  ExtractedWheel extracted;
  extracted.name = filename.name.str();
  extracted.version = filename.version.to_string();
  WV_ASSIGN_OR_RETURN(ZipPtr archive, open_zip(wheel_path, str_cat("wheel ", in_backticks(wheel))));
  WV_ASSIGN_OR_RETURN(Listing listing, list_members(archive.get(), wheel, extracted.name, filename,
                                                    options.limits));
  extracted.dist_info = listing.dist_info;
  WV_TRY(check_metadata(archive.get(), listing, wheel, extracted.name, filename, options.limits));
  WV_ASSIGN_OR_RETURN(extracted.root_is_purelib,
                      read_root_is_purelib(archive.get(), listing, wheel, options.limits));
  std::vector<std::string> sizes;
  WV_TRY(read_record(archive.get(), listing, wheel, options.limits, extracted, sizes));
  archive.reset();
  WV_TRY(create_folders(file_system, folder, extracted.members));
  WV_TRY(extract_members(file_system, wheel_path, folder, listing, extracted, sizes, wheel,
                         options, stop));
  return extracted;
}

}  // namespace

Result<ExtractedWheel> extract_wheel(FileSystem& file_system, const std::string& wheel_path,
                                     const std::string& folder, const ExtractOptions& options) {
  std::atomic<bool> refused{false};
  if (!options.check) return extract_unchecked(file_system, wheel_path, folder, options, refused);
  Result<void> checked;
  std::thread checker([&] {
    checked = options.check();
    if (!checked) refused = true;
  });
  Result<ExtractedWheel> extracted =
      extract_unchecked(file_system, wheel_path, folder, options, refused);
  checker.join();
  WV_TRY(checked);
  return extracted;
}

}  // namespace wv::install
