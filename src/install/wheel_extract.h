// Extracting a wheel into a folder exactly as its archive lays it out, every member checked
// against RECORD: what an unpacked-wheel cache entry holds (install/unpacked_cache.h) and what
// install/wheel_link.h places into an environment. The one .cc that reads wheel archives
// (libzip for the structure, ISA-L for inflation).
//
// What is checked, once per wheel: member names (relative, no `..`, no control characters),
// no links or special files, the entry count and unpacked size bounds, one .dist-info folder
// whose name, and METADATA's Name and Version, agree with the file name, WHEEL's version 1.x,
// and every member but RECORD listed in RECORD with a sha256 and size that match what it
// inflates to, and every deflated member's CRC-32 against the zip directory. The whole wheel's
// sha256 is the WheelStore's to check (at download, or when a local file is read).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/wheel_unpack.h"

namespace wv::install {

/// One extracted file: its archive path and what RECORD says of it (checked).
struct ExtractedMember {
  std::string path;  ///< the archive member name, e.g. pkg/__init__.py
  std::string hash;  ///< `sha256=<urlsafe-b64, no padding>`
  std::uint64_t size = 0;
  bool executable = false;
};

/// What an extracted wheel holds.
struct ExtractedWheel {
  std::string name;       ///< normalised distribution name
  std::string version;    ///< as the file name writes it
  std::string dist_info;  ///< the archive's folder, e.g. pkg-1.0.dist-info
  bool root_is_purelib = true;
  /// Every file but RECORD (and its signatures), in archive order.
  std::vector<ExtractedMember> members;
};

struct ExtractOptions {
  UnpackLimits limits;
  /// The wheel's file name, for the name checks and messages ("" = the path's last part).
  std::string wheel_name;
  /// Threads that inflate members at once (0: one per core).
  unsigned threads = 0;
  /// A deflated member of at least this many bytes is hashed and written on a thread of its
  /// own while it inflates (install/piece_writer.h); 0: none is.
  std::uint64_t separate_writer_bytes = std::uint64_t{16} << 20;
  /// When set, run on a thread of its own beside the extraction (sync: the archive's sha256
  /// against the lock, so that hashing a big wheel does not hold up inflating it). Its failure
  /// stops the extraction and is the result, whatever the extraction found.
  std::function<Result<void>()> check;
};

/// Extracts `wheel_path` into the existing empty folder `folder`. On error the folder holds
/// partial output; the caller discards it. With a `check`, success means it passed too.
Result<ExtractedWheel> extract_wheel(FileSystem& file_system, const std::string& wheel_path,
                                     const std::string& folder, const ExtractOptions& options);

}  // namespace wv::install
