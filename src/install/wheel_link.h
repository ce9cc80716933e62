// Placing an extracted wheel (install/wheel_extract.h) into an environment's staging tree
// (PyPA binary distribution format, "Installing a wheel" step 2, spread): `.data/` scheme
// folders mapped, files linked from the extracted tree (LinkMode), `#!python` scripts
// rewritten for this environment's interpreter, console/gui launchers generated from
// entry_points.txt, and INSTALLER, REQUESTED, direct_url.json, WVLOCK and RECORD written. Only
// those and the rewritten scripts are written per environment; every other file is a link to
// (or a clone or copy of) the extracted one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/install/wheel_extract.h"
#include "src/install/wheel_unpack.h"

namespace wv::install {

/// Where one member goes, relative to the environment root, and whether it is a script
/// (`.data/scripts/`, whose `#!python` line is rewritten).
struct MemberDestination {
  std::string rel;
  bool script = false;
};

/// Maps an archive member to its place under `scheme` (the wheel's root goes to purelib or
/// platlib, `.data/<key>/` to that scheme folder). An unknown key, or a member directly in
/// `.data/`, is an error naming the wheel.
Result<MemberDestination> member_destination(const ExtractedWheel& wheel,
                                             const InstallScheme& scheme,
                                             const std::string& member, std::string_view wheel_name);

/// Checks that every member of `wheel` has a destination (run before a cache entry is kept, so
/// an entry always installs).
Result<void> check_layout(const ExtractedWheel& wheel, std::string_view wheel_name);

/// How the files of one wheel got into the staging tree.
struct LinkCounts {
  std::size_t cloned = 0;
  std::size_t hardlinked = 0;
  std::size_t copied = 0;
  std::size_t written = 0;  ///< rewritten scripts, launchers and metadata
  void add(const LinkCounts& other);
};

/// A wheel placed in staging, RECORD not yet written (bytecode may still join it).
struct LinkedWheel {
  UnpackedWheel unpacked;  ///< files and members; RECORD is appended by write_record()
  /// RECORD's rows so far: per file relative to the root, its hash and size.
  std::vector<RecordRow> rows;
  LinkCounts counts;
  std::string site;  ///< the site folder RECORD's paths are relative to
  /// The mode the next file should start from: the first file settles what this file system
  /// pair supports, so later files do not try a clone that cannot work.
  LinkMode next_mode = LinkMode::kAuto;
};

/// Places the extracted wheel at `tree` into `options.staging` (files at
/// `staging/<path relative to scheme.root>`), linking with `mode`.
Result<LinkedWheel> link_wheel(FileSystem& file_system, const ExtractedWheel& wheel,
                               const std::string& tree, const UnpackOptions& options,
                               LinkMode mode);

/// Extracts `wheel_path` into a private tree beside `options.staging` and links from it (what
/// a built wheel and a sync without a cache use); the tree is gone when this returns.
Result<LinkedWheel> unpack_linked(FileSystem& file_system, const std::string& wheel_path,
                                  const UnpackOptions& options);

/// Adds a file the installer made in staging (a compiled `.pyc`) to the wheel's RECORD rows.
void add_record_row(LinkedWheel& wheel, std::string rel, std::string hash, std::uint64_t size);

/// Writes RECORD (paths relative to the wheel's site folder, itself listed without a hash)
/// into the wheel's staging folder (`UnpackOptions::staging`) and lists it in `wheel.unpacked.files`.
Result<void> write_record(FileSystem& file_system, LinkedWheel& wheel, const std::string& staging);

}  // namespace wv::install
