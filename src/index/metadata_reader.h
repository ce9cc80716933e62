// MetadataReader: what a listed file holds, cheapest way first (docs/sources.md "Metadata,
// cheapest first"): a wheel's METADATA (PEP 658 `.metadata`, a local zip, range requests, the
// whole wheel when a range read comes back damaged; dist-info kept in the derived cache), its
// in-wheel variant.json, a file's sha256 and size. Every answer is kept for the run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/derived_cache.h"
#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/index/limits.h"
#include "src/index/refresh.h"
#include "src/index/result_cache.h"
#include "src/index/small_files.h"
#include "src/index/source_stats.h"
#include "src/index/wheel_zip.h"
#include "src/pkg/source.h"

namespace wv::index {

class MetadataReader {
 public:
  /// `fetcher` null: offline (a remote wheel fails with kUnsupported naming it). The references
  /// must outlive the reader.
  MetadataReader(const FileSystem& file_system, Fetcher* fetcher, SmallFiles& small_files,
                 const SourceLimits& limits, const RefreshPolicy& refresh, SourceStats& stats)
      : file_system_(file_system),
        fetcher_(fetcher),
        small_files_(small_files),
        limits_(limits),
        refresh_(refresh),
        stats_(stats) {}

  /// Where dist-info files read from remote wheels by range requests, and the sizes learned on
  /// the way, are kept across runs (null: not kept).
  void set_derived_cache(DerivedCache* cache) { derived_ = cache; }

  Result<std::string> wheel_metadata(const pkg::Distribution& wheel);
  /// Fetches the PEP 658 `.metadata` files of these remote wheels as one batch; per wheel,
  /// whether wheel_metadata() now answers without the network.
  std::vector<bool> prefetch_metadata(const std::vector<pkg::Distribution>& wheels);
  /// prefetch_metadata(), then wheel_metadata() for each.
  std::vector<Result<std::string>> wheel_metadata_batch(const std::vector<pkg::Distribution>& wheels);
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const pkg::Distribution& wheel);
  Result<std::string> file_sha256(const pkg::Distribution& file);
  /// The listed size, else one learned since (see IndexSource::file_size()).
  std::optional<std::uint64_t> file_size(const pkg::Distribution& file);

 private:
  Result<std::string> read_metadata_uncached(const pkg::Distribution& wheel);
  Result<std::string> read_dist_info(const pkg::Distribution& wheel, const std::string& leaf);
  /// A dist-info file of a remote wheel by range requests (the whole wheel when they fail).
  Result<std::string> fetch_remote_dist_info(const pkg::Distribution& wheel,
                                             const DistInfoEntry& wanted);
  /// Records the size of a file the listing gave none for (file_size()).
  void learn_size(const pkg::Distribution& file, std::uint64_t size);

  const FileSystem& file_system_;
  Fetcher* fetcher_;
  SmallFiles& small_files_;
  const SourceLimits& limits_;
  const RefreshPolicy& refresh_;
  SourceStats& stats_;
  DerivedCache* derived_ = nullptr;
  ResultCache<std::string> metadata_;                   // file url -> METADATA
  ResultCache<pkg::VariantsMetadata> wheel_variants_;   // wheel url -> in-wheel variant.json
  ResultCache<std::string> hashes_;                     // file url -> sha256
  // file url -> its size in bytes, learned after listing (range reads, whole downloads).
  std::map<std::string, std::uint64_t> sizes_;
};

/// The DerivedCache key of a wheel's dist-info file: the wheel's sha256, the project and the
/// file's leaf name; "" when the listing gave no sha256 (the wheel's bytes are then unknown).
std::string dist_info_cache_key(const pkg::Distribution& wheel, std::string_view leaf);

/// The DerivedCache key of a file's size, learned by reading it: "file-size/<sha256>"; "" when
/// the listing gave no sha256.
std::string file_size_cache_key(const pkg::Distribution& file);

}  // namespace wv::index
