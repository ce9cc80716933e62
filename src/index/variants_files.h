// VariantsFiles: a version's `{name}-{version}-variants.json` files, found in a listing, read
// (checked against their listed sha256), parsed and merged into one pkg::VariantsMetadata
// (docs/sources.md "Variants files"); kept per scope and version for the run. prefetch()
// fetches the remote ones of several versions as one batch.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "src/index/limits.h"
#include "src/index/listing.h"
#include "src/index/prefetch.h"
#include "src/index/refresh.h"
#include "src/index/result_cache.h"
#include "src/index/small_files.h"
#include "src/index/source_stats.h"
#include "src/pkg/source.h"

namespace wv::index {

class VariantsFiles {
 public:
  /// The references must outlive the object.
  VariantsFiles(SmallFiles& small_files, PrefetchStore& prefetched, const SourceLimits& limits,
                const RefreshPolicy& refresh, SourceStats& stats)
      : small_files_(small_files),
        prefetched_(prefetched),
        limits_(limits),
        refresh_(refresh),
        stats_(stats) {}

  /// The merged variants files of `name` `version` among `files` (the listing of the scope
  /// keyed `scope_key`); kNotFound when the listing has none.
  Result<pkg::VariantsMetadata> read(const std::string& scope_key,
                                     const std::vector<pkg::Distribution>& files,
                                     const pkg::PackageName& name, const pkg::Version& version);

  /// Fetches, as one batch, the remote variants files of these versions of projects that
  /// `listing` has listed in the scope keyed `scope_key`; per version, whether read() now
  /// answers without the network.
  std::vector<bool> prefetch(const Listing& listing, const std::string& scope_key,
                             const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions);

 private:
  SmallFiles& small_files_;
  PrefetchStore& prefetched_;
  const SourceLimits& limits_;
  const RefreshPolicy& refresh_;
  SourceStats& stats_;
  ResultCache<pkg::VariantsMetadata> merged_;  // scope key '\n' name==version -> merged files
};

}  // namespace wv::index
