#include "lock/catalog.h"

#include <algorithm>
#include <set>

#include "src/base/str.h"

namespace wv::lock {

int ProjectListing::find(const pkg::Version& version) const {
  auto it = std::lower_bound(versions.begin(), versions.end(), version,
                             [](const VersionFiles& files, const pkg::Version& v) {
                               return files.version < v;
                             });
  if (it == versions.end() || !(it->version == version)) return -1;
  return int(it - versions.begin());
}

std::string Catalog::variants_key(const ProjectListing& listing, const pkg::Version& version) {
  return str_cat(listing.pinned, "\n", listing.name.str(), "==", version.to_string());
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
  if (!files) listing->not_found = files.error().message;
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

namespace {

// Asks each source once, in first-seen order, for its share of `items` (a null source asks
// nothing), and hands every answer back with its item's index.
template <class Item, class Ask, class Put>
void per_source(const std::vector<pkg::PackageSource*>& sources, const std::vector<Item>& items,
                Ask&& ask, Put&& put) {
  std::vector<pkg::PackageSource*> order;
  for (pkg::PackageSource* source : sources) {
    if (source != nullptr && std::find(order.begin(), order.end(), source) == order.end()) {
      order.push_back(source);
    }
  }
  for (pkg::PackageSource* source : order) {
    std::vector<Item> batch;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (sources[i] != source) continue;
      batch.push_back(items[i]);
      where.push_back(i);
    }
    auto answers = ask(*source, batch);
    for (std::size_t k = 0; k < where.size() && k < answers.size(); ++k) {
      put(where[k], batch[k], std::move(answers[k]));
    }
  }
}

}  // namespace

std::vector<bool> Catalog::prefetch_listings(
    const std::vector<std::pair<pkg::PackageName, std::string>>& wanted) {
  std::vector<bool> ready(wanted.size(), false);
  std::vector<pkg::PackageSource*> sources(wanted.size(), nullptr);
  std::vector<pkg::PackageName> names;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto& [name, pinned] = wanted[i];
    names.push_back(name);
    if (listings_.count(str_cat(pinned, "\n", name.str()))) {
      ready[i] = true;
    } else if (pinned.empty()) {
      sources[i] = &source_;
    } else if (auto index = pinned_.find(pinned); index != pinned_.end()) {
      sources[i] = index->second;
    } else {
      ready[i] = true;  // listing() answers with an error at once
    }
  }
  per_source(sources, names,
             [](pkg::PackageSource& source, const std::vector<pkg::PackageName>& batch) {
               return source.prefetch_listings(batch);
             },
             [&](std::size_t i, const pkg::PackageName&, bool answer) { ready[i] = answer; });
  return ready;
}

std::vector<bool> Catalog::prefetch_variants(
    const std::vector<std::pair<const ProjectListing*, pkg::Version>>& wanted) {
  std::vector<bool> ready(wanted.size(), false);
  std::vector<pkg::PackageSource*> sources(wanted.size(), nullptr);
  std::vector<std::pair<pkg::PackageName, pkg::Version>> versions;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto& [listing, version] = wanted[i];
    versions.emplace_back(listing->name, version);
    if (variants_.count(variants_key(*listing, version))) {
      ready[i] = true;
    } else {
      sources[i] = listing->source ? listing->source : &source_;
    }
  }
  per_source(sources, versions,
             [](pkg::PackageSource& source,
                const std::vector<std::pair<pkg::PackageName, pkg::Version>>& batch) {
               return source.prefetch_variants(batch);
             },
             [&](std::size_t i, const auto&, bool answer) { ready[i] = answer; });
  return ready;
}

std::vector<bool> Catalog::prefetch_metadata(const std::vector<const pkg::Distribution*>& wheels) {
  std::vector<bool> ready(wheels.size(), false);
  std::vector<pkg::PackageSource*> sources(wheels.size(), nullptr);
  std::vector<pkg::Distribution> files;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    files.push_back(*wheels[i]);
    if (metadata_.count(wheels[i]->url)) {
      ready[i] = true;
    } else {
      sources[i] = &source_of(*wheels[i]);
    }
  }
  per_source(sources, files,
             [](pkg::PackageSource& source, const std::vector<pkg::Distribution>& batch) {
               return source.prefetch_metadata(batch);
             },
             [&](std::size_t i, const pkg::Distribution&, bool answer) { ready[i] = answer; });
  return ready;
}

std::vector<std::string> Catalog::listed_names() const {
  std::set<std::string> names;
  for (const auto& [key, listing] : listings_) {
    if (!listing->versions.empty()) names.insert(listing->name.str());
  }
  return {names.begin(), names.end()};
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
    read_metadata({&wheel});
    found = metadata_.find(wheel.url);
  }
  if (!found->second) return found->second.error();
  return const_cast<const pkg::CoreMetadata*>(found->second->get());
}

void Catalog::read_metadata(const std::vector<const pkg::Distribution*>& wheels) {
  // One batch per source (the default chain and each pinned index), in first-seen order.
  std::vector<pkg::PackageSource*> sources;
  std::vector<pkg::Distribution> files;
  std::set<std::string> asked;
  for (const pkg::Distribution* wheel : wheels) {
    if (metadata_.count(wheel->url) || !asked.insert(wheel->url).second) continue;
    sources.push_back(&source_of(*wheel));
    files.push_back(*wheel);
  }
  per_source(sources, files,
             [](pkg::PackageSource& source, const std::vector<pkg::Distribution>& batch) {
               return source.wheel_metadata_batch(batch);
             },
             [&](std::size_t, const pkg::Distribution& wheel, Result<std::string> text) {
               store_metadata(wheel, std::move(text));
             });
}

void Catalog::store_metadata(const pkg::Distribution& wheel, Result<std::string> text) {
  if (!text) {
    metadata_.emplace(wheel.url, text.error());
    return;
  }
  auto parsed = pkg::parse_metadata(*text);
  if (!parsed) {
    metadata_.emplace(wheel.url, std::move(parsed).error().with_context(
                                     str_cat("METADATA of ", in_backticks(wheel.filename))));
    return;
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
    return;
  }
  metadata_.emplace(wheel.url, std::make_unique<pkg::CoreMetadata>(std::move(*parsed)));
}

const Result<pkg::VariantsMetadata>& Catalog::variants(const ProjectListing& listing,
                                                       const pkg::Version& version) {
  std::string key = variants_key(listing, version);
  auto found = variants_.find(key);
  if (found == variants_.end()) {
    pkg::PackageSource& source = listing.source ? *listing.source : source_;
    found = variants_.emplace(key, source.variants_metadata(listing.name, version)).first;
  }
  return found->second;
}

}  // namespace wv::lock
