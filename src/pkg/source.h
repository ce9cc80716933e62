// PackageSource: how the lock layer reads packages without knowing where they come from (a
// find-links folder, a PEP 503 HTML or PEP 691 JSON simple index over file:// or http(s)://).
// Declared in pkg so that lock/ (the consumer) and src/index (the implementation) meet here
// without knowing each other (DESIGN.md §5). The listing follows the simple repository API
// (PEP 503, PEP 592 yanking, PEP 658/714 core metadata, PEP 691 JSON, PEP 700 sizes) and the
// variant metadata file `{name}-{version}-variants.json` (PEP 817/825, reference/variants.md §2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/direct_source.h"
#include "src/pkg/name.h"
#include "src/pkg/variant.h"
#include "src/pkg/version.h"

namespace wv::pkg {

/// What a listed file is, from its name alone.
enum class DistributionKind : std::uint8_t {
  kWheel,         ///< `*.whl` whose name parses (with or without a variant label)
  kSdist,         ///< `*.tar.gz` / `*.zip` source distribution whose name parses
  kVariantsJson,  ///< `{name}-{version}-variants.json` (index-level variant metadata)
  kSourceTree,    ///< a folder to build (a path source, a git checkout); `url` is its path
};

/// Whether the index serves the file's core metadata on its own (PEP 658/714 `.metadata`).
enum class CoreMetadataAvailability : std::uint8_t {
  kUnknown,    ///< the listing said nothing (flat folders, old indexes)
  kAbsent,     ///< the listing said `false`
  kAvailable,  ///< `<file url>.metadata` exists; its hashes may be known
};

/// One file of one project as a source lists it. A plain value: copyable, comparable by
/// content, no handle into the source that produced it.
struct Distribution {
  PackageName name;             ///< the project the file belongs to (normalised)
  Version version;              ///< from the file name
  DistributionKind kind = DistributionKind::kWheel;
  std::string filename;         ///< as listed, e.g. "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl"
  std::string variant_label;    ///< wheels only: the PEP 825 label, "" for a non-variant wheel
  /// Where to get it: an absolute http(s):// or file:// URL, or a local path (flat folders and
  /// plain-path indexes). Fragments (`#sha256=...`) are removed.
  std::string url;
  /// Hashes by lower-case algorithm name ("sha256" -> 64 lower-case hex digits); may be empty.
  std::map<std::string, std::string> hashes;
  std::optional<std::uint64_t> size;  ///< bytes, when the listing (PEP 700) or the disk says
  /// PEP 700 `upload-time` as pkg::normalize_upload_time() spells it; "" when not listed.
  std::string upload_time;
  /// The `Requires-Python` specifier text (HTML entities decoded), "" when not given. Kept as
  /// text: the consumer evaluates it with its own specifier parser.
  std::string requires_python;
  bool yanked = false;            ///< PEP 592
  std::string yanked_reason;      ///< "" when yanked without a reason or not yanked
  CoreMetadataAvailability core_metadata = CoreMetadataAvailability::kUnknown;
  /// Hashes of the `.metadata` file (PEP 658/714), by algorithm; empty when unknown.
  std::map<std::string, std::string> core_metadata_hashes;
  /// The source that listed it: the index URL (as configured) or the find-links folder. The
  /// lockfile records it as the package's `index`.
  std::string index;
  /// The name of the configured index that listed it (`[[tool.wvlock.index]]`); "" for a
  /// find-links folder or an unnamed location.
  std::string index_name;
  /// Set for a file or tree of a path, URL or git source (never for index files): what the
  /// lockfile records as directory, vcs or archive.
  std::optional<DirectSource> direct;
  /// The git commit a kSourceTree checkout is at (40 hex digits), "" otherwise.
  std::string commit_id;

  /// The sha256 hex digest, or "" when the listing gave none.
  std::string sha256() const {
    auto it = hashes.find("sha256");
    return it == hashes.end() ? std::string() : it->second;
  }

  friend bool operator==(const Distribution&, const Distribution&) = default;
};

/// A source of packages: one index or folder, or an ordered set of them. Implementations
/// cache what they read, so asking twice costs nothing; all methods are called from one
/// thread (implementations parallelise inside the batch method). Errors are values:
///   kNotFound     the project (or file) does not exist in this source
///   kNetwork/kIo  the transfer or read failed
///   kParse        a page, JSON file or METADATA is malformed (the message says where)
///   kIntegrity    a hash did not match
///   kLimit        a page or file exceeded a configured size bound (the message names it)
class PackageSource {
 public:
  virtual ~PackageSource() = default;

  /// Every usable file of project `name`: wheels, sdists and `*-variants.json` files, in the
  /// order the source lists them. Files whose names do not parse are left out (they cannot be
  /// installed). With several indexes, the first index that knows the project answers alone;
  /// one project's files never mix across indexes. kNotFound when no index knows it.
  virtual Result<std::vector<Distribution>> distributions(const PackageName& name) = 0;

  /// Hints that distributions(), variants_metadata() or wheel_metadata() will soon be asked
  /// for these items: a remote source may fetch them now, in parallel. A hint never changes
  /// what a later call answers and keeps no failure: a transfer that fails is tried again, one
  /// by one, by the call itself, so a resolution does not depend on the order or the luck of
  /// arrivals. Each returns, per item, whether the call will now answer without the network
  /// (the default: false, nothing fetched).
  virtual std::vector<bool> prefetch_listings(const std::vector<PackageName>& names) {
    return std::vector<bool>(names.size(), false);
  }
  virtual std::vector<bool> prefetch_variants(
      const std::vector<std::pair<PackageName, Version>>& versions) {
    return std::vector<bool>(versions.size(), false);
  }
  virtual std::vector<bool> prefetch_metadata(const std::vector<Distribution>& wheels) {
    return std::vector<bool>(wheels.size(), false);
  }

  /// The core METADATA text of a wheel (`*.dist-info/METADATA`), the cheapest way first: the
  /// PEP 658 `.metadata` file (checked against its hash when given), else the wheel's own zip
  /// entry (HTTP range requests for a remote wheel, whole file as a fallback).
  virtual Result<std::string> wheel_metadata(const Distribution& wheel) = 0;

  /// wheel_metadata() of several wheels, fetched in parallel where the source can; results
  /// keep the order of `wheels`. Use this to prefetch the candidates of a resolution step.
  virtual std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<Distribution>& wheels) = 0;

  /// The variant metadata of one package version: every `*-variants.json` file the source
  /// lists for it, parsed (any published schema) and merged per PEP 825 §Metadata consistency.
  /// kNotFound when the version has none; kParse/kInvalidInput when a file is malformed,
  /// inconsistent or of an unsupported schema major — the version's variant wheels are then
  /// unusable and the message is the reason to show.
  virtual Result<VariantsMetadata> variants_metadata(const PackageName& name,
                                                     const Version& version) = 0;

  /// The sha256 (64 lower-case hex digits) of a file, for the lockfile: the listed hash when
  /// the source gave one, else computed from the file (read from disk, or downloaded — flat
  /// folders list no hashes). Cached.
  virtual Result<std::string> file_sha256(const Distribution& file) = 0;

  /// The size in bytes of a file, for the lockfile: the listed one, else what the source has
  /// learned since listing it (a local file's size, a remote wheel's from the range requests or
  /// the download that read it); nullopt when nothing said it.
  virtual std::optional<std::uint64_t> file_size(const Distribution& file) { return file.size; }

  /// The in-wheel variant metadata (`*.dist-info/variant.json`, reference/variants.md §3) of a
  /// variant wheel, read like wheel_metadata(); PEP 825 allows it as a fallback when the index
  /// file is missing. kNotFound when the wheel has none.
  virtual Result<VariantsMetadata> wheel_variant_metadata(const Distribution& wheel) = 0;
};

}  // namespace wv::pkg
