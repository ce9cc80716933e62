// An in-memory PackageSource for resolution tests: wheels and sdists described in code, their
// METADATA generated from the description. Tests only; the real sources are in src/index.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pkg/source.h"
#include "src/pkg/wheel_filename.h"

namespace wv::test {

struct MemoryWheel {
  std::string name;
  std::string version;
  std::string tags = "py3-none-any";
  std::string label;                  ///< variant label, "" for none
  std::vector<std::string> requires_dist;  ///< Requires-Dist lines
  std::string requires_python;
  std::vector<std::string> provides_extra;
  bool yanked = false;
  bool sdist = false;                 ///< an sdist instead of a wheel
};

class MemorySource final : public pkg::PackageSource {
 public:
  MemorySource() = default;
  /// A source standing for the index `index_url` named `name`, its files under `files_base`.
  MemorySource(std::string index_url, std::string name, std::string files_base)
      : index(std::move(index_url)), index_name(std::move(name)), files_url(std::move(files_base)) {}

  /// What add() records on each file; changing them between add() calls gives files from
  /// several indexes in one listing (as a best-match IndexSource lists them).
  std::string index = "https://example.org/simple";
  std::string index_name;
  std::string files_url = "https://example.org/files/";

  void add(const MemoryWheel& wheel) {
    pkg::Distribution file;
    file.name = *pkg::parse_package_name(wheel.name);
    file.version = *pkg::parse_version(wheel.version);
    std::string distribution = pkg::normalize_name(wheel.name);
    for (char& c : distribution) c = c == '-' ? '_' : c;
    std::string stem = str_cat(distribution, "-", wheel.version);
    if (wheel.sdist) {
      file.kind = pkg::DistributionKind::kSdist;
      file.filename = stem + ".tar.gz";
    } else {
      file.kind = pkg::DistributionKind::kWheel;
      file.filename = stem + "-" + wheel.tags + (wheel.label.empty() ? "" : "-" + wheel.label) + ".whl";
      file.variant_label = wheel.label;
    }
    file.url = files_url + file.filename;
    file.hashes["sha256"] = sha256_hex(file.filename);
    file.size = file.filename.size();
    file.requires_python = wheel.requires_python;
    file.yanked = wheel.yanked;
    file.index = index;
    file.index_name = index_name;
    std::string metadata = str_cat("Metadata-Version: 2.4\nName: ", wheel.name, "\nVersion: ",
                                   wheel.version, "\n");
    if (!wheel.requires_python.empty()) metadata += "Requires-Python: " + wheel.requires_python + "\n";
    for (const std::string& extra : wheel.provides_extra) metadata += "Provides-Extra: " + extra + "\n";
    for (const std::string& line : wheel.requires_dist) metadata += "Requires-Dist: " + line + "\n";
    metadata_[file.url] = metadata;
    files_[file.name.str()].push_back(file);
  }

  void add_variants(const std::string& name, const std::string& version,
                    pkg::VariantsMetadata metadata) {
    variants_[pkg::normalize_name(name) + "==" + version] = std::move(metadata);
  }

  int metadata_reads = 0;
  /// Whether the prefetch hints answer "ready" (a source that fetches ahead) or, as the
  /// interface's default, "nothing fetched"; `prefetch_hints` counts the items asked about.
  bool answer_prefetch = false;
  int prefetch_hints = 0;
  /// Each hint call's items, in order: a source that fetches ahead spends a round trip on each.
  std::vector<std::vector<std::string>> listing_batches, variants_batches, metadata_batches;
  std::vector<bool> prefetch_listings(const std::vector<pkg::PackageName>& names) override {
    std::vector<std::string>& batch = listing_batches.emplace_back();
    for (const auto& name : names) batch.push_back(name.str());
    return hint(names.size());
  }
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) override {
    std::vector<std::string>& batch = variants_batches.emplace_back();
    for (const auto& [name, version] : versions) {
      batch.push_back(name.str() + "==" + version.to_string());
    }
    return hint(versions.size());
  }
  std::vector<bool> prefetch_metadata(const std::vector<pkg::Distribution>& wheels) override {
    std::vector<std::string>& batch = metadata_batches.emplace_back();
    for (const auto& wheel : wheels) batch.push_back(wheel.filename);
    return hint(wheels.size());
  }

  /// Names whose listing fails as a transfer does offline with the page never cached.
  std::set<std::string> unreachable;
  /// Every name whose listing was asked for, in order.
  std::vector<std::string> listed;

  Result<std::vector<pkg::Distribution>> distributions(const pkg::PackageName& name) override {
    listed.push_back(name.str());
    if (unreachable.count(name.str())) {
      return make_error(ErrorCode::kNetwork, "offline: no cached page for " + name.str());
    }
    auto it = files_.find(name.str());
    if (it == files_.end()) {
      return make_error(ErrorCode::kNotFound, "no project " + in_backticks(name.str()));
    }
    return it->second;
  }
  Result<std::string> wheel_metadata(const pkg::Distribution& wheel) override {
    ++metadata_reads;
    return metadata_.at(wheel.url);
  }
  std::vector<Result<std::string>> wheel_metadata_batch(
      const std::vector<pkg::Distribution>& wheels) override {
    std::vector<Result<std::string>> out;
    for (const auto& wheel : wheels) out.push_back(wheel_metadata(wheel));
    return out;
  }
  Result<pkg::VariantsMetadata> variants_metadata(const pkg::PackageName& name,
                                                  const pkg::Version& version) override {
    auto it = variants_.find(name.str() + "==" + version.to_string());
    if (it == variants_.end()) {
      return make_error(ErrorCode::kNotFound, "no variants.json for " + name.str());
    }
    return it->second;
  }
  Result<std::string> file_sha256(const pkg::Distribution& file) override {
    return file.sha256();
  }
  Result<pkg::VariantsMetadata> wheel_variant_metadata(const pkg::Distribution&) override {
    return make_error(ErrorCode::kNotFound, "no in-wheel variant.json");
  }

 private:
  std::vector<bool> hint(std::size_t count) {
    prefetch_hints += int(count);
    return std::vector<bool>(count, answer_prefetch);
  }
  std::map<std::string, std::vector<pkg::Distribution>> files_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, pkg::VariantsMetadata> variants_;
};

}  // namespace wv::test
