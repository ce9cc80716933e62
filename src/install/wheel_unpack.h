// Native wheel installation (PyPA binary distribution format, "Installing a wheel"): unpacks
// one wheel (install/wheel_extract.h, then install/wheel_link.h) into a staging tree that mirrors the environment, verifying every file against
// the wheel's RECORD, mapping `.data/` scheme folders, rewriting `#!python` shebangs,
// generating console/gui script launchers from entry_points.txt, and writing the installed
// RECORD, INSTALLER, REQUESTED and direct_url.json. Refuses entries that would escape the
// environment (absolute paths, `..`, symlinks, control characters), wheels whose .dist-info
// folder or METADATA name another distribution or version than the file name, and bounds what a
// zip may expand to.
// libzip is used only in wheel_extract.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/base/limits.h"
#include "src/base/result.h"

namespace wv::install {

/// Where a wheel's parts go: folders relative to the environment root (sysconfig's venv
/// scheme as the interpreter reports it).
struct InstallScheme {
  std::string root;     ///< the environment's absolute path
  std::string purelib;  ///< e.g. lib/python3.12/site-packages
  std::string platlib;
  std::string scripts;  ///< bin
  std::string headers;  ///< include/site/python3.12 (the distribution name is appended)
  std::string data;     ///< "" (the environment root)
  std::string python;   ///< absolute path of the environment's python, for shebangs
};

/// Bounds on what one wheel may expand to (zip bombs); errors name the limit.
struct UnpackLimits {
  std::uint64_t max_total_size = limit_value(Limit::kUnpackedBytes);  ///< uncompressed bytes
  std::uint64_t max_entries = limit_value(Limit::kWheelEntries);
  std::uint64_t max_metadata_size = limit_value(Limit::kRecordBytes);  ///< RECORD, WHEEL, entry points
};

struct UnpackOptions {
  InstallScheme scheme;
  /// Absolute staging folder; files land at `staging/<path relative to scheme.root>`.
  std::string staging;
  UnpackLimits limits;
  /// The content of direct_url.json (PEP 610), "" for none (install/direct_url.h).
  std::string direct_url_json;
  /// Write an empty `REQUESTED`: a direct requirement of what is installed (install/requested.h).
  bool requested = false;
  /// The wheel's file name and sha256, recorded in `*.dist-info/WVLOCK` so a later sync knows
  /// which build (variant) is installed.
  std::string wheel_name;
  std::string wheel_sha256;
  /// A wheel built at sync records its source instead (SourceIdentity): WVLOCK then holds
  /// these as `wheel` and `sha256`.
  std::string recorded_source;
  std::string recorded_digest;
  /// Threads that inflate members at once (0: one per core).
  unsigned threads = 0;
};

/// What one unpacked wheel installs.
struct UnpackedWheel {
  std::string name;       ///< normalised distribution name
  std::string version;
  std::string dist_info;  ///< relative to the root, e.g. lib/python3.12/site-packages/x-1.dist-info
  /// Every installed file relative to the root (RECORD included), in archive order.
  std::vector<std::string> files;
  /// For each of `files`, the archive member it comes from (`entry_points.txt` for a
  /// launcher), "" for the files wvlock writes itself (INSTALLER, WVLOCK, RECORD, ...).
  std::vector<std::string> members;
};

/// Unpacks `wheel_path` into `options.staging`. On error the staging folder holds partial
/// output; the caller discards it.
Result<UnpackedWheel> unpack_wheel(const std::string& wheel_path, const UnpackOptions& options);

/// One RECORD row.
struct RecordRow {
  std::string path;
  std::string hash;  ///< `sha256=<urlsafe-b64>` or ""
  std::string size;  ///< decimal or ""
};

/// Parses RECORD (CSV, RFC 4180 quoting). Errors name the line.
Result<std::vector<RecordRow>> parse_record(std::string_view text, std::string_view what);

/// Checks one archive member name: relative, `/`-separated, no `.`/`..` parts, no
/// backslash, drive letter or control character. "" when fine, else why not.
std::string check_member_name(std::string_view name);

}  // namespace wv::install
