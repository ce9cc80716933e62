#include "lock/catalog.h"

#include <algorithm>

#include "base/str.h"

namespace wv::lock {

int ProjectListing::find(const pkg::Version& version) const {
  auto it = std::lower_bound(versions.begin(), versions.end(), version,
                             [](const VersionFiles& files, const pkg::Version& v) {
                               return files.version < v;
                             });
  if (it == versions.end() || !(it->version == version)) return -1;
  return int(it - versions.begin());
}

Result<const ProjectListing*> Catalog::listing(const pkg::PackageName& name) {
  auto found = listings_.find(name.str());
  if (found != listings_.end()) return const_cast<const ProjectListing*>(found->second.get());
  auto listing = std::make_unique<ProjectListing>();
  listing->name = name;
  auto files = source_.distributions(name);
  if (!files && files.error().code != ErrorCode::kNotFound) return files.error();
  if (files) {
    std::map<pkg::Version, VersionFiles> by_version;
    for (pkg::Distribution& file : *files) {
      if (listing->index.empty()) listing->index = file.index;
      if (file.kind == pkg::DistributionKind::kVariantsJson) continue;
      VersionFiles& entry = by_version[file.version];
      entry.version = file.version;
      if (file.kind == pkg::DistributionKind::kWheel) {
        if (!file.variant_label.empty()) entry.has_variant_wheels = true;
        entry.wheels.push_back(std::move(file));
      } else {
        entry.sdists.push_back(std::move(file));
      }
    }
    for (auto& [version, entry] : by_version) {
      entry.yanked = true;
      for (const auto* list : {&entry.wheels, &entry.sdists}) {
        for (const pkg::Distribution& file : *list) entry.yanked = entry.yanked && file.yanked;
      }
      listing->versions.push_back(std::move(entry));
    }
  }
  const ProjectListing* result = listing.get();
  listings_[name.str()] = std::move(listing);
  return result;
}

Result<const pkg::CoreMetadata*> Catalog::metadata(const pkg::Distribution& wheel) {
  auto found = metadata_.find(wheel.url);
  if (found == metadata_.end()) {
    prefetch_metadata({&wheel});
    found = metadata_.find(wheel.url);
  }
  if (!found->second) return found->second.error();
  return const_cast<const pkg::CoreMetadata*>(found->second->get());
}

void Catalog::prefetch_metadata(const std::vector<const pkg::Distribution*>& wheels) {
  std::vector<pkg::Distribution> missing;
  for (const pkg::Distribution* wheel : wheels) {
    if (!metadata_.count(wheel->url)) missing.push_back(*wheel);
  }
  if (missing.empty()) return;
  std::vector<Result<std::string>> texts = source_.wheel_metadata_batch(missing);
  for (std::size_t i = 0; i < missing.size(); ++i) {
    const pkg::Distribution& wheel = missing[i];
    if (!texts[i]) {
      metadata_.emplace(wheel.url, texts[i].error());
      continue;
    }
    auto parsed = pkg::parse_metadata(*texts[i]);
    if (!parsed) {
      metadata_.emplace(wheel.url, std::move(parsed).error().with_context(
                                       str_cat("METADATA of ", in_backticks(wheel.filename))));
      continue;
    }
    metadata_.emplace(wheel.url, std::make_unique<pkg::CoreMetadata>(std::move(*parsed)));
  }
}

const Result<pkg::VariantsMetadata>& Catalog::variants(const pkg::PackageName& name,
                                                       const pkg::Version& version) {
  std::string key = name.str() + "==" + version.to_string();
  auto found = variants_.find(key);
  if (found == variants_.end()) {
    found = variants_.emplace(key, source_.variants_metadata(name, version)).first;
  }
  return found->second;
}

}  // namespace wv::lock
