// IndexSource: the facade that implements pkg::PackageSource by delegating to its parts, and
// the pinned views that share them.
#include "src/index/sources.h"

#include <utility>

namespace wv::index {

using pkg::Distribution;

IndexSource::IndexSource(std::vector<SourceLocation> locations, const FileSystem& file_system,
                         Fetcher* fetcher, SourceLimits limits)
    : limits_(limits),
      prefetched_(fetcher),
      reader_(std::move(locations), file_system, fetcher, prefetched_, limits_, refresh_, stats_),
      listing_(reader_, prefetched_),
      small_files_(file_system, fetcher, prefetched_, stats_),
      metadata_(file_system, fetcher, small_files_, limits_, refresh_, stats_),
      variants_(small_files_, prefetched_, limits_, refresh_, stats_),
      default_scope_(listing_.default_chain()) {}

IndexSource::~IndexSource() = default;

Result<std::vector<Distribution>> IndexSource::distributions(const pkg::PackageName& name) {
  return listing_.list(default_scope_, name);
}

std::vector<bool> IndexSource::prefetch_listings(const std::vector<pkg::PackageName>& names) {
  return listing_.prefetch(default_scope_, names);
}

std::vector<bool> IndexSource::prefetch_variants(
    const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) {
  return variants_.prefetch(listing_, default_scope_.key, versions);
}

std::vector<bool> IndexSource::prefetch_metadata(const std::vector<Distribution>& wheels) {
  return metadata_.prefetch_metadata(wheels);
}

Result<std::string> IndexSource::wheel_metadata(const Distribution& wheel) {
  return metadata_.wheel_metadata(wheel);
}

std::vector<Result<std::string>> IndexSource::wheel_metadata_batch(
    const std::vector<Distribution>& wheels) {
  return metadata_.wheel_metadata_batch(wheels);
}

Result<pkg::VariantsMetadata> IndexSource::variants_metadata(const pkg::PackageName& name,
                                                             const pkg::Version& version) {
  WV_ASSIGN_OR_RETURN(std::vector<Distribution> files, distributions(name));
  return variants_.read(default_scope_.key, files, name, version);
}

Result<std::string> IndexSource::file_sha256(const Distribution& file) {
  return metadata_.file_sha256(file);
}

std::optional<std::uint64_t> IndexSource::file_size(const Distribution& file) {
  return metadata_.file_size(file);
}

Result<pkg::VariantsMetadata> IndexSource::wheel_variant_metadata(const Distribution& wheel) {
  return metadata_.wheel_variant_metadata(wheel);
}

/// A pinned index's view: listings and variants files from its locations only; what a file
/// holds is the same whichever view asks, so metadata, digests and sizes are the parent's.
class IndexSource::PinnedView final : public pkg::PackageSource {
 public:
  PinnedView(IndexSource& parent, Scope scope) : parent_(parent), scope_(std::move(scope)) {}

  Result<std::vector<Distribution>> distributions(const pkg::PackageName& name) override {
    return parent_.listing_.list(scope_, name);
  }
  std::vector<bool> prefetch_listings(const std::vector<pkg::PackageName>& names) override {
    return parent_.listing_.prefetch(scope_, names);
  }
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) override {
    return parent_.variants_.prefetch(parent_.listing_, scope_.key, versions);
  }
  std::vector<bool> prefetch_metadata(const std::vector<Distribution>& wheels) override {
    return parent_.prefetch_metadata(wheels);
  }
  Result<std::string> wheel_metadata(const Distribution& wheel) override {
    return parent_.wheel_metadata(wheel);
  }
  std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<Distribution>& wheels) override {
    return parent_.wheel_metadata_batch(wheels);
  }
  Result<pkg::VariantsMetadata> variants_metadata(const pkg::PackageName& name,
                                                  const pkg::Version& version) override {
    WV_ASSIGN_OR_RETURN(std::vector<Distribution> files, distributions(name));
    return parent_.variants_.read(scope_.key, files, name, version);
  }
  Result<std::string> file_sha256(const Distribution& file) override {
    return parent_.file_sha256(file);
  }
  std::optional<std::uint64_t> file_size(const Distribution& file) override {
    return parent_.file_size(file);
  }
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const Distribution& wheel) override {
    return parent_.wheel_variant_metadata(wheel);
  }

 private:
  IndexSource& parent_;
  Scope scope_;
};

Result<std::unique_ptr<pkg::PackageSource>> IndexSource::pinned(std::string_view index) {
  WV_ASSIGN_OR_RETURN(Scope scope, listing_.pinned(index));
  return std::unique_ptr<pkg::PackageSource>(std::make_unique<PinnedView>(*this, std::move(scope)));
}

}  // namespace wv::index
