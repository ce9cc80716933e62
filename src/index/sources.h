// IndexSource: the PackageSource (pkg/source.h) over an ordered list of locations — find-links
// folders (wheels, sdists, `*-variants.json` side by side) and PEP 503/691 simple indexes
// reached by local path, file:// or http(s):// (through a wv::Fetcher). See docs/sources.md.
//
// Precedence (uv's default "first-index" strategy): locations are asked in order and the first
// one that knows a project answers for it alone — its files, its metadata, its variants files;
// a project's files never mix across locations, so an index cannot shadow part of a project.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/base/derived_cache.h"
#include "src/index/flat_folder.h"
#include "src/index/limits.h"
#include "src/index/wheel_zip.h"
#include "src/index/simple_page.h"
#include "src/pkg/source.h"

namespace wv::index {

enum class LocationKind : std::uint8_t {
  kSimpleIndex,  ///< PEP 503/691: `<location>/<normalised name>/` is the project page
  kFlatFolder,   ///< find-links: a folder whose files are the distributions
};

struct SourceLocation {
  LocationKind kind = LocationKind::kSimpleIndex;
  /// A local path, a file:// URL or (simple indexes only) an http(s):// URL.
  std::string location;
  /// The configured index's name ("" for find-links); recorded on every file it lists.
  std::string name;
  /// Serves only pinned listings (pinned()), never the default chain.
  bool explicit_only = false;
};

/// What an IndexSource did, for figures and tests.
struct SourceStats {
  int pages = 0;                  ///< project pages read (cache misses)
  int metadata_pep658 = 0;        ///< METADATA served from `.metadata` files
  int metadata_local_zip = 0;     ///< METADATA read from a local wheel
  int metadata_range = 0;         ///< METADATA read from a remote wheel by range requests
  int metadata_whole_wheel = 0;   ///< ... of which the server ignored ranges
  int dist_info_reused = 0;       ///< dist-info files of remote wheels kept from an earlier run
  int range_requests = 0;         ///< HTTP requests spent on range reads
  std::uint64_t bytes_fetched = 0;
  int variants_files = 0;         ///< `*-variants.json` files read
  FlatFolderStats folders;        ///< find-links folders listed, digests reused and kept
};

class IndexSource final : public pkg::PackageSource {
 public:
  /// `fetcher` may be null when no location is remote (offline use); a remote location then
  /// fails with kUnsupported naming it.
  IndexSource(std::vector<SourceLocation> locations, const FileSystem& file_system,
              Fetcher* fetcher, SourceLimits limits = {});
  ~IndexSource() override;

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
  void set_best_match(bool best_match) { best_match_ = best_match; }

  /// `--refresh` (`all`) and `--refresh-package` (`packages`, normalised names): the pages of
  /// these projects, and their files that no page pins by hash, are revalidated with the
  /// server even when the cache holds a fresh copy. Files pinned by hash are still served from
  /// the cache when their bytes have that hash: asking again could only give the same bytes.
  void set_refresh(bool all, std::set<std::string> packages) {
    refresh_all_ = all;
    refresh_packages_ = std::move(packages);
  }

  /// A view of this source that lists projects only from the locations named `index` (a
  /// package pinned to that index by `[tool.wvlock.sources]`), explicit or not. It shares this
  /// source's caches and must not outlive it. kNotFound when no location has that name.
  Result<std::unique_ptr<pkg::PackageSource>> pinned(std::string_view index);

  /// Where dist-info files read from remote wheels by range requests are kept across runs,
  /// keyed by the wheel's sha256 (null: not kept). Must outlive the source.
  void set_derived_cache(DerivedCache* cache) { derived_ = cache; }

  /// Where the digests of find-links folders are kept across runs (index/flat_folder.h), and
  /// the file system that writes them; both must outlive the source. Unset: not kept.
  void set_folder_digests(FileSystem& writer, std::string directory) {
    digest_writer_ = &writer;
    digest_directory_ = std::move(directory);
  }

  const SourceStats& stats() const { return stats_; }

 private:
  struct State;
  class PinnedView;
  /// The listing of `name` from `scope` (location indexes, asked in order); cached by
  /// `scope_key`. `merge`: versions from every location (first location wins per version).
  Result<std::vector<pkg::Distribution>> list_scope(const std::string& scope_key,
                                                    const std::vector<std::size_t>& scope,
                                                    bool merge, const pkg::PackageName& name);
  /// variants_metadata() over the listing of one scope.
  Result<pkg::VariantsMetadata> variants_in(const std::string& scope_key,
                                            const std::vector<pkg::Distribution>& files,
                                            const pkg::PackageName& name,
                                            const pkg::Version& version);
  /// The locations distributions() asks, in order (every one but the explicit ones).
  std::vector<std::size_t> default_chain() const;
  /// prefetch_listings() over the locations of one scope.
  std::vector<bool> prefetch_scope(const std::string& scope_key,
                                   const std::vector<std::size_t>& scope, bool merge,
                                   const std::vector<pkg::PackageName>& names);
  /// prefetch_variants() over the listings of one scope.
  std::vector<bool> prefetch_variants_in(
      const std::string& scope_key,
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions);
  /// Sends `requests` as one batch and keeps every answer for fetch_once(); per request,
  /// whether it was a 200. Transfers that failed keep nothing.
  std::vector<bool> fetch_ahead(const std::vector<FetchRequest>& requests);
  /// The key of a prefetched answer: everything in `request` that shapes the answer.
  static std::string prefetch_key(const FetchRequest& request);
  /// The request for a small remote file (a `.metadata` or variants file).
  FetchRequest small_file_request(const std::string& url, std::uint64_t limit,
                                  std::string_view pinned_sha256, bool revalidate) const;
  /// The prefetched answer to `request` (used once), else the fetcher's.
  Result<FetchResponse> fetch_once(const FetchRequest& request);
  /// The request for the project page of `name` at simple index `index` (an http(s) location).
  FetchRequest page_request(std::size_t index, const pkg::PackageName& name) const;
  bool refreshes(const pkg::PackageName& name) const {
    return refresh_all_ || refresh_packages_.count(name.str()) > 0;
  }
  Result<std::vector<pkg::Distribution>> list_location(std::size_t index,
                                                       const pkg::PackageName& name);
  Result<std::vector<pkg::Distribution>> list_flat_folder(std::size_t index,
                                                          const pkg::PackageName& name);
  Result<std::vector<pkg::Distribution>> list_simple_index(std::size_t index,
                                                           const pkg::PackageName& name);
  Result<std::string> read_metadata_uncached(const pkg::Distribution& wheel);
  /// Records the size of a file the listing gave none for (file_size()).
  void learn_size(const pkg::Distribution& file, std::uint64_t size);
  Result<std::string> read_dist_info(const pkg::Distribution& wheel, const std::string& leaf);
  /// A dist-info file of a remote wheel by range requests (the whole wheel when they fail).
  Result<std::string> fetch_remote_dist_info(const pkg::Distribution& wheel,
                                             const DistInfoEntry& wanted);
  /// Reads a whole small file (a `.metadata`, a variants file) from a path or URL.
  /// `pinned_sha256`: the digest a page gives for the file ("" when none); `revalidate`: ask the
  /// server even for a fresh cached copy (see set_refresh()).
  Result<std::string> read_small_file(const std::string& url_or_path, std::uint64_t limit,
                                      Limit limit_id, std::string_view pinned_sha256 = "",
                                      bool revalidate = false);

  std::vector<SourceLocation> locations_;
  const FileSystem& file_system_;
  Fetcher* fetcher_;
  DerivedCache* derived_ = nullptr;
  FileSystem* digest_writer_ = nullptr;
  std::string digest_directory_;
  bool best_match_ = false;
  bool refresh_all_ = false;
  std::set<std::string> refresh_packages_;
  SourceLimits limits_;
  SourceStats stats_;
  std::unique_ptr<State> state_;
};

/// The DerivedCache key of a wheel's dist-info file: the wheel's sha256, the project and the
/// file's leaf name; "" when the listing gave no sha256 (the wheel's bytes are then unknown).
std::string dist_info_cache_key(const pkg::Distribution& wheel, std::string_view leaf);

/// The DerivedCache key of a file's size, learned by reading it: "file-size/<sha256>"; "" when
/// the listing gave no sha256.
std::string file_size_cache_key(const pkg::Distribution& file);

/// Turns the file entries of one project page into Distributions: keeps wheels, sdists and
/// variants files of `project` (by parsed name), drops the rest. `index` names the location.
/// Exposed for tests.
std::vector<pkg::Distribution> to_distributions(const std::vector<IndexFile>& files,
                                                const pkg::PackageName& project,
                                                const std::string& index);

}  // namespace wv::index
