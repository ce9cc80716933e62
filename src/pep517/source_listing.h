// Package sources that read what is not a wheel on an index, for the lock layer (which sees
// only pkg::PackageSource): DirectPackageSource lists one path, URL or git source as the one
// version it holds; BuildingSource wraps the project's index source so that an sdist's
// metadata comes from its PKG-INFO or its backend (Builder). Both answer from the Builder's
// caches, so a version's metadata is read or built once.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/pep517/builder.h"
#include "src/pkg/direct_source.h"
#include "src/pkg/source.h"

namespace wv::build {

/// A verified local copy of a remote file (`url`, checked against `sha256` when not empty).
using FetchFile = std::function<Result<std::string>(const std::string& url, const std::string& sha256)>;

class DirectPackageSource final : public pkg::PackageSource {
 public:
  /// `name`: the package the project declared the source for (its metadata must agree).
  DirectPackageSource(pkg::DirectSource source, pkg::PackageName name, Builder& builder,
                      FetchFile fetch);

  Result<std::vector<pkg::Distribution>> distributions(const pkg::PackageName& name) override;
  Result<std::string> wheel_metadata(const pkg::Distribution& file) override;
  std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<pkg::Distribution>& files) override;
  Result<pkg::VariantsMetadata> variants_metadata(const pkg::PackageName& name,
                                                  const pkg::Version& version) override;
  Result<std::string> file_sha256(const pkg::Distribution& file) override;
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const pkg::Distribution& wheel) override;

  /// A git source keeps the commit the previous lock recorded for it instead of resolving its
  /// tag or branch again (uv's rule: `wvlock lock --upgrade[-package]` moves it).
  void prefer_commit(std::string commit) { preferred_commit_ = std::move(commit); }
  const pkg::DirectSource& direct_source() const { return source_; }
  const pkg::PackageName& package() const { return name_; }

 private:
  Result<pkg::Distribution> materialize();
  Result<std::string> local_archive();

  pkg::DirectSource source_;
  pkg::PackageName name_;
  Builder& builder_;
  FetchFile fetch_;
  std::optional<Result<pkg::Distribution>> listed_;
  std::string metadata_;      ///< the METADATA text, once read
  std::string local_;         ///< the local copy of an archive
  std::string sha256_;        ///< an archive's sha256
  std::string preferred_commit_;
};

/// The project's index source, with sdist metadata read through the Builder.
class BuildingSource final : public pkg::PackageSource {
 public:
  BuildingSource(pkg::PackageSource& inner, Builder& builder, FetchFile fetch)
      : inner_(inner), builder_(builder), fetch_(std::move(fetch)) {}

  Result<std::vector<pkg::Distribution>> distributions(const pkg::PackageName& name) override {
    return inner_.distributions(name);
  }
  std::vector<bool> prefetch_listings(const std::vector<pkg::PackageName>& names) override {
    return inner_.prefetch_listings(names);
  }
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) override {
    return inner_.prefetch_variants(versions);
  }
  /// Wheels only: an sdist's metadata comes from the Builder, never ahead of time.
  std::vector<bool> prefetch_metadata(const std::vector<pkg::Distribution>& files) override;
  Result<std::string> wheel_metadata(const pkg::Distribution& file) override;
  std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<pkg::Distribution>& files) override;
  Result<pkg::VariantsMetadata> variants_metadata(const pkg::PackageName& name,
                                                  const pkg::Version& version) override {
    return inner_.variants_metadata(name, version);
  }
  Result<std::string> file_sha256(const pkg::Distribution& file) override {
    return inner_.file_sha256(file);
  }
  /// An sdist downloaded to read its metadata has that copy's size; anything else the inner
  /// source's answer.
  std::optional<std::uint64_t> file_size(const pkg::Distribution& file) override {
    auto fetched = fetched_sizes_.find(file.url);
    return fetched != fetched_sizes_.end() ? fetched->second : inner_.file_size(file);
  }
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const pkg::Distribution& wheel) override {
    return inner_.wheel_variant_metadata(wheel);
  }

 private:
  pkg::PackageSource& inner_;
  Builder& builder_;
  FetchFile fetch_;
  std::map<std::string, std::uint64_t> fetched_sizes_;  ///< sdist url -> its downloaded size
};

}  // namespace wv::build
