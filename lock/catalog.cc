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

void Catalog::add_pinned_index(std::string index, pkg::PackageSource& source) {
  pinned_[std::move(index)] = &source;
}

pkg::PackageSource& Catalog::source_of(const pkg::Distribution& file) {
  auto found = file_sources_.find(file.url);
  return found == file_sources_.end() ? source_ : *found->second;
}

Result<const ProjectListing*> Catalog::listing(const pkg::PackageName& name,
                                               std::string_view pinned) {
  const std::string key = str_cat(pinned, "\n", name.str());
  auto found = listings_.find(key);
  if (found != listings_.end()) return const_cast<const ProjectListing*>(found->second.get());
  pkg::PackageSource* source = &source_;
  if (!pinned.empty()) {
    auto index = pinned_.find(pinned);
    if (index == pinned_.end()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(name.str(), " is pinned to index ", in_backticks(pinned),
                                ", which is not declared"));
    }
    source = index->second;
  }
  auto listing = std::make_unique<ProjectListing>();
  listing->name = name;
  listing->pinned = std::string(pinned);
  listing->source = source;
  auto files = source->distributions(name);
  if (!files && files.error().code != ErrorCode::kNotFound) return files.error();
  if (files) {
    std::map<pkg::Version, VersionFiles> by_version;
    for (pkg::Distribution& file : *files) {
      if (listing->index.empty()) {
        listing->index = file.index;
        listing->index_name = file.index_name;
      }
      file_sources_[file.url] = source;
      if (file.kind == pkg::DistributionKind::kVariantsJson) continue;
      VersionFiles& entry = by_version[file.version];
      entry.version = file.version;
      if (entry.index.empty()) {
        entry.index = file.index;
        entry.index_name = file.index_name;
      }
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
  listings_[key] = std::move(listing);
  return result;
}

void Catalog::prefetch_listings(
    const std::vector<std::pair<pkg::PackageName, std::string>>& wanted) {
  // One batch per source, in first-seen order; an undeclared pinned index is left to listing().
  std::vector<std::pair<pkg::PackageSource*, std::vector<pkg::PackageName>>> batches;
  for (const auto& [name, pinned] : wanted) {
    if (listings_.count(str_cat(pinned, "\n", name.str()))) continue;
    pkg::PackageSource* source = &source_;
    if (!pinned.empty()) {
      auto index = pinned_.find(pinned);
      if (index == pinned_.end()) continue;
      source = index->second;
    }
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const auto& entry) { return entry.first == source; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {source, {}});
    batch->second.push_back(name);
  }
  for (auto& [source, names] : batches) source->prefetch_listings(names);
}

void Catalog::prefetch_variants(
    const std::vector<std::pair<const ProjectListing*, pkg::Version>>& wanted) {
  std::vector<std::pair<pkg::PackageSource*, std::vector<std::pair<pkg::PackageName, pkg::Version>>>>
      batches;
  for (const auto& [listing, version] : wanted) {
    std::string key = str_cat(listing->pinned, "\n", listing->name.str(), "==", version.to_string());
    if (variants_.count(key)) continue;
    pkg::PackageSource* source = listing->source ? listing->source : &source_;
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const auto& entry) { return entry.first == source; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {source, {}});
    batch->second.emplace_back(listing->name, version);
  }
  for (auto& [source, versions] : batches) source->prefetch_variants(versions);
}

std::vector<std::string> Catalog::pinned_indexes_listing(const pkg::PackageName& name) {
  std::vector<std::string> names;
  for (const auto& [index, source] : pinned_) {
    Result<const ProjectListing*> found = listing(name, index);
    if (found && !(*found)->versions.empty()) names.push_back(index);
  }
  return names;
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
  // One batch per source (the default chain and each pinned index), in first-seen order.
  std::vector<std::pair<pkg::PackageSource*, std::vector<pkg::Distribution>>> batches;
  for (const pkg::Distribution* wheel : wheels) {
    if (metadata_.count(wheel->url)) continue;
    pkg::PackageSource* source = &source_of(*wheel);
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const auto& entry) { return entry.first == source; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {source, {}});
    batch->second.push_back(*wheel);
  }
  for (auto& [source, missing] : batches) store_metadata(missing, source->wheel_metadata_batch(missing));
}

void Catalog::store_metadata(const std::vector<pkg::Distribution>& missing,
                             std::vector<Result<std::string>> texts) {
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
    // pip refuses a wheel whose METADATA names another project or version than its file name
    // ("inconsistent name/version"): locking it would record one thing and install another.
    if (!(parsed->name == wheel.name) || !(parsed->version == wheel.version)) {
      metadata_.emplace(
          wheel.url,
          make_error(ErrorCode::kIntegrity,
                     str_cat("inconsistent name/version: ", in_backticks(wheel.filename),
                             " is named ", wheel.name.str(), " ", wheel.version.to_string(),
                             " but its METADATA says ", parsed->name.str(), " ",
                             parsed->version.to_string())));
      continue;
    }
    metadata_.emplace(wheel.url, std::make_unique<pkg::CoreMetadata>(std::move(*parsed)));
  }
}

const Result<pkg::VariantsMetadata>& Catalog::variants(const ProjectListing& listing,
                                                       const pkg::Version& version) {
  std::string key = str_cat(listing.pinned, "\n", listing.name.str(), "==", version.to_string());
  auto found = variants_.find(key);
  if (found == variants_.end()) {
    pkg::PackageSource& source = listing.source ? *listing.source : source_;
    found = variants_.emplace(key, source.variants_metadata(listing.name, version)).first;
  }
  return found->second;
}

}  // namespace wv::lock
