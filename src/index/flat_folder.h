// A find-links folder as a listing by project (docs/sources.md "find-links folders"). The
// folder is read once and its entries bucketed by the first word of their names, so a lookup
// classifies only the files that can belong to the project asked for; and the bucketed listing
// (the digest) is kept under the cache folder, keyed by the folder's identity and mtime, so a
// later run over an unchanged folder does not read the folder at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/pkg/name.h"

namespace wv::index {

/// The bucket of a folder entry: its name up to the first `-`, `_` or `.`, ASCII lower-cased.
/// Every wheel, sdist and variants file name starts with its project's name (which begins with
/// a letter or digit), spelled any way; the first word of that spelling, lower-cased, is the
/// first word of the normalised name, so a project's files all land in flat_project_bucket().
std::string flat_bucket(std::string_view filename);
/// The bucket of `project`'s files: its normalised name up to the first `-`.
std::string_view flat_project_bucket(const pkg::PackageName& project);

/// What a folder's listing is keyed by. Adding, removing or renaming an entry updates the
/// folder's own mtime, so an equal identity means the same entry names.
struct FolderIdentity {
  std::string path;
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t modified_ns = 0;
};

/// The digest of a folder: the names of its regular files and symlinks, grouped by bucket
/// (format in flat_folder.cc). Names keep the folder's (sorted) order inside a bucket.
std::string encode_flat_digest(const FolderIdentity& folder,
                               const std::vector<DirectoryEntry>& entries);

/// A digest read back: a view over its bytes; only the buckets asked for are checked and split.
class FlatDigest {
 public:
  /// nullopt when `bytes` is damaged, truncated, of another format or of another folder.
  static std::optional<FlatDigest> open(std::string bytes, const FolderIdentity& folder);
  /// The names of `bucket` (empty when no entry has it); nullopt when its bytes are damaged.
  std::optional<std::vector<std::string_view>> bucket(std::string_view key) const;
  std::size_t entry_count() const { return entries_; }

 private:
  FlatDigest() = default;
  std::string bytes_;
  std::size_t table_ = 0;    // offset of the bucket table
  std::size_t keys_ = 0;     // offset of the key bytes
  std::size_t names_ = 0;    // offset of the name bytes
  std::uint32_t buckets_ = 0;
  std::size_t entries_ = 0;
};

/// What the folders did, for figures and tests.
struct FlatFolderStats {
  int directory_reads = 0;  ///< folders listed (list_directory)
  int digests_reused = 0;   ///< folders answered from a kept digest
  int digests_stored = 0;   ///< digests written
};

/// One find-links folder. Not thread-safe (one per IndexSource location).
class FlatFolder {
 public:
  /// `digest_directory` "" or `writer` null: no digest is read or kept. `stats` outlives this.
  FlatFolder(const FileSystem& file_system, std::string folder, FileSystem* writer,
             std::string digest_directory, FlatFolderStats& stats);

  /// The names of the folder's files that classify (pkg::classify_filename) as a wheel, sdist
  /// or variants file of `project`, in name order; empty when there are none. An error (kIo)
  /// when the folder cannot be listed; it is kept, so each later call returns it too.
  Result<std::vector<std::string>> files_of(const pkg::PackageName& project);

  /// Where the digest of `folder` lives under `digest_directory`.
  static std::string digest_path(const std::string& digest_directory, const FolderIdentity& folder);

 private:
  /// The folder's identity now; nullopt when it is not a folder (listing it gives the error).
  std::optional<FolderIdentity> identify() const;
  /// Loads the kept digest, or lists the folder (and keeps its digest when it may).
  Result<void> load();
  Result<void> read_folder(const std::optional<FolderIdentity>& identity);

  const FileSystem& file_system_;
  std::string folder_;
  FileSystem* writer_;
  std::string digest_directory_;
  FlatFolderStats& stats_;
  std::optional<FlatDigest> digest_;
  bool from_disk_ = false;  // digest_ was read from the cache (a damaged bucket: list again)
  std::optional<Error> error_;
};

}  // namespace wv::index
