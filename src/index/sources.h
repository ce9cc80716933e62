// IndexSource: the PackageSource (pkg/source.h) over an ordered list of locations — find-links
// folders (wheels, sdists, `*-variants.json` side by side) and PEP 503/691 simple indexes
// reached by local path, file:// or http(s):// (through a wv::Fetcher). See docs/sources.md.
//
// Precedence (uv's default "first-index" strategy): locations are asked in order and the first
// one that knows a project answers for it alone — its files, its metadata, its variants files;
// a project's files never mix across locations, so an index cannot shadow part of a project.
//
// IndexSource is a facade over its parts, each named for one concept and handed the shared
// state it needs: LocationReader (one location's files of a project), Listing (the chain of
// locations, first-index or best match, pinned scopes), MetadataReader (METADATA, variant.json,
// sha256 and sizes of files), VariantsFiles (a version's `*-variants.json`), SmallFiles (whole
// small files by path or URL) and PrefetchStore (answers fetched ahead, each used once).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/derived_cache.h"
#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/index/flat_folder.h"
#include "src/index/limits.h"
#include "src/index/listing.h"
#include "src/index/location.h"
#include "src/index/location_reader.h"
#include "src/index/metadata_reader.h"
#include "src/index/prefetch.h"
#include "src/index/refresh.h"
#include "src/index/simple_page.h"
#include "src/index/small_files.h"
#include "src/index/source_stats.h"
#include "src/index/variants_files.h"
#include "src/index/wheel_zip.h"
#include "src/pkg/source.h"

namespace wv::index {

class IndexSource final : public pkg::PackageSource {
 public:
  /// `fetcher` may be null when no location is remote (offline use); a remote location then
  /// fails with kUnsupported naming it.
  IndexSource(std::vector<SourceLocation> locations, const FileSystem& file_system,
              Fetcher* fetcher, SourceLimits limits = {});
  ~IndexSource() override;
  IndexSource(const IndexSource&) = delete;
  IndexSource& operator=(const IndexSource&) = delete;

  Result<std::vector<pkg::Distribution>> distributions(const pkg::PackageName& name) override;
  /// Fetches, as one parallel batch, the page of each project that the default chain's walk
  /// reaches first (past the local locations that do not list it).
  std::vector<bool> prefetch_listings(const std::vector<pkg::PackageName>& names) override;
  /// Fetches the `*-variants.json` files of these versions of listed projects as one batch.
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) override;
  /// Fetches the PEP 658 `.metadata` files of these remote wheels as one batch.
  std::vector<bool> prefetch_metadata(const std::vector<pkg::Distribution>& wheels) override;
  Result<std::string> wheel_metadata(const pkg::Distribution& wheel) override;
  std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<pkg::Distribution>& wheels) override;
  Result<pkg::VariantsMetadata> variants_metadata(const pkg::PackageName& name,
                                                  const pkg::Version& version) override;
  Result<std::string> file_sha256(const pkg::Distribution& file) override;
  /// The listed size, else one learned since: a local file's (stat), a remote wheel's from the
  /// range requests that read its dist-info or from a whole download (kept in the derived cache
  /// under the file's sha256, so later runs that reuse those reads know it too).
  std::optional<std::uint64_t> file_size(const pkg::Distribution& file) override;
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const pkg::Distribution& wheel) override;

  /// The listing of the default chain (distributions()): false = the first non-explicit
  /// location that has a project answers for it alone (uv's "first-index"); true = every
  /// non-explicit location's versions are merged, a version taken from the first location that
  /// has it ("unsafe-best-match").
  void set_best_match(bool best_match) { default_scope_.merge = best_match; }

  /// `--refresh` (`all`) and `--refresh-package` (`packages`): the pages of
  /// these projects, and their files that no page pins by hash, are revalidated with the
  /// server even when the cache holds a fresh copy. Files pinned by hash are still served from
  /// the cache when their bytes have that hash: asking again could only give the same bytes.
  void set_refresh(bool all, std::set<pkg::PackageName> packages) {
    refresh_.all = all;
    refresh_.packages = std::move(packages);
  }

  /// A view of this source that lists projects only from the locations named `index` (a
  /// package pinned to that index by `[tool.wvlock.sources]`), explicit or not. It shares this
  /// source's caches and must not outlive it. kNotFound when no location has that name.
  Result<std::unique_ptr<pkg::PackageSource>> pinned(std::string_view index);

  /// Where dist-info files read from remote wheels by range requests are kept across runs,
  /// keyed by the wheel's sha256 (null: not kept). Must outlive the source.
  void set_derived_cache(DerivedCache* cache) { metadata_.set_derived_cache(cache); }

  /// Where the digests of find-links folders are kept across runs (index/flat_folder.h), and
  /// the file system that writes them; both must outlive the source. Unset: not kept.
  void set_folder_digests(FileSystem& writer, std::string directory) {
    reader_.set_folder_digests(writer, std::move(directory));
  }

  const SourceStats& stats() const { return stats_; }

 private:
  class PinnedView;

  // The parts hold references to the members above them: declared (so built) in this order.
  SourceLimits limits_;
  SourceStats stats_;
  RefreshPolicy refresh_;
  PrefetchStore prefetched_;
  LocationReader reader_;
  Listing listing_;
  SmallFiles small_files_;
  MetadataReader metadata_;
  VariantsFiles variants_;
  Scope default_scope_;  // the default chain; merge = best match
};

// dist_info_cache_key() and file_size_cache_key(): index/metadata_reader.h; to_distributions():
// index/location_reader.h.

}  // namespace wv::index
