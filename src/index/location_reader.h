// LocationReader: one location's files of one project, as Distributions: a find-links folder
// (index/flat_folder.h), a simple index's project page over http(s) (through the prefetch
// store) or from a local tree. Which locations are asked, and in what order, is listing.h's.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/index/flat_folder.h"
#include "src/index/limits.h"
#include "src/index/location.h"
#include "src/index/prefetch.h"
#include "src/index/refresh.h"
#include "src/index/simple_page.h"
#include "src/index/source_stats.h"
#include "src/pkg/source.h"

namespace wv::index {

class LocationReader {
 public:
  /// `fetcher` null: a remote location fails with kUnsupported naming it. The references must
  /// outlive the reader.
  LocationReader(std::vector<SourceLocation> locations, const FileSystem& file_system,
                 Fetcher* fetcher, PrefetchStore& prefetched, const SourceLimits& limits,
                 const RefreshPolicy& refresh, SourceStats& stats);
  ~LocationReader();

  const std::vector<SourceLocation>& locations() const { return locations_; }
  /// Whether location `index` is a simple index over http(s): its listing needs a page fetched.
  bool is_remote(std::size_t index) const;

  /// The files of `name` at location `index`; kNotFound when it has none. Not cached (the
  /// listing caches), but a find-links folder is listed once.
  Result<std::vector<pkg::Distribution>> list(std::size_t index, const pkg::PackageName& name);

  /// The request for the project page of `name` at simple index `index` (an http(s) location).
  FetchRequest page_request(std::size_t index, const pkg::PackageName& name) const;

  /// Where find-links folders' digests are kept across runs (IndexSource::set_folder_digests()).
  void set_folder_digests(FileSystem& writer, std::string directory) {
    digest_writer_ = &writer;
    digest_directory_ = std::move(directory);
  }

 private:
  Result<std::vector<pkg::Distribution>> list_flat_folder(std::size_t index,
                                                          const pkg::PackageName& name);
  Result<std::vector<pkg::Distribution>> list_remote_index(std::size_t index,
                                                           const pkg::PackageName& name);
  /// The page of `response` parsed; when it does not parse, `request` once more past any cache.
  Result<ProjectPage> parse_or_refetch(FetchRequest request, const FetchResponse& response,
                                       const std::string& page_url);
  Result<std::vector<pkg::Distribution>> list_local_index(std::size_t index,
                                                          const pkg::PackageName& name);

  std::vector<SourceLocation> locations_;
  const FileSystem& file_system_;
  Fetcher* fetcher_;
  PrefetchStore& prefetched_;
  const SourceLimits& limits_;
  const RefreshPolicy& refresh_;
  SourceStats& stats_;
  std::vector<std::unique_ptr<FlatFolder>> folders_;  // per location; made on first use
  FileSystem* digest_writer_ = nullptr;
  std::string digest_directory_;
};

/// Turns the file entries of one project page into Distributions: keeps wheels, sdists and
/// variants files of `project` (by parsed name), drops the rest. `index` names the location.
/// Exposed for tests.
std::vector<pkg::Distribution> to_distributions(const std::vector<IndexFile>& files,
                                                const pkg::PackageName& project,
                                                const std::string& index);

}  // namespace wv::index
