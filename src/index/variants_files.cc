// VariantsFiles: reading, merging and prefetching a version's variants files.
#include "src/index/variants_files.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/base/url.h"
#include "src/index/variants_json.h"

namespace wv::index {
namespace {

using pkg::Distribution;
using pkg::DistributionKind;

std::string version_key(const std::string& scope_key, const pkg::PackageName& name,
                        const pkg::Version& version) {
  return str_cat(scope_key, "\n", name.str(), "==", version.to_string());
}

}  // namespace

Result<pkg::VariantsMetadata> VariantsFiles::read(const std::string& scope_key,
                                                  const std::vector<Distribution>& files,
                                                  const pkg::PackageName& name,
                                                  const pkg::Version& version) {
  return cached(merged_, version_key(scope_key, name, version),
                [&]() -> Result<pkg::VariantsMetadata> {
    std::vector<const Distribution*> listed;
    for (const Distribution& file : files) {
      if (file.kind == DistributionKind::kVariantsJson && file.version == version) {
        listed.push_back(&file);
      }
    }
    std::string what = str_cat("variant metadata of ", name.str(), " ", version.to_string());
    if (listed.empty()) {
      return make_error(ErrorCode::kNotFound, str_cat(what, ": the index lists no `",
                                                      name.str(), "-", version.to_string(),
                                                      "-variants.json`"));
    }
    // Merge in file-name order, so the result does not depend on the listing order.
    std::sort(listed.begin(), listed.end(),
              [](const Distribution* a, const Distribution* b) { return a->filename < b->filename; });
    std::vector<pkg::VariantsMetadata> parsed;
    for (const Distribution* file : listed) {
      WV_ASSIGN_OR_RETURN(std::string text,
                          small_files_.read(file->url, limits_.max_variants_json_bytes,
                                            Limit::kVariantsJsonBytes, file->sha256(),
                                            refresh_.covers(name)));
      WV_TRY(small_files_.check_sha256_or_refetch(
          text, file->url, limits_.max_variants_json_bytes, file->hashes,
          str_cat("variants file ", in_backticks(file->url))));
      ++stats_.variants_files;
      WV_ASSIGN_OR_RETURN(pkg::VariantsMetadata metadata, parse_variants_json(text, file->filename));
      parsed.push_back(std::move(metadata));
    }
    return merge_variants_metadata(parsed, what);
  });
}

std::vector<bool> VariantsFiles::prefetch(
    const Listing& listing, const std::string& scope_key,
    const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) {
  std::vector<bool> ready(versions.size(), false);
  std::vector<FetchRequest> requests;
  std::vector<std::size_t> owner;  // per request: the version it belongs to
  std::vector<int> missing(versions.size(), 0);
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const auto& [name, version] = versions[v];
    if (merged_.contains(version_key(scope_key, name, version))) {
      ready[v] = true;
      continue;
    }
    const std::vector<Distribution>* files = listing.listed(scope_key, name);
    if (files == nullptr) continue;
    ready[v] = true;
    for (const Distribution& file : *files) {
      if (file.kind != DistributionKind::kVariantsJson || !(file.version == version) ||
          !is_http_url(file.url)) {
        continue;
      }
      FetchRequest request = small_file_request(file.url, limits_.max_variants_json_bytes,
                                                file.sha256(), refresh_.covers(name));
      if (prefetched_.peek(request) != nullptr) continue;
      if (!prefetched_.online()) {
        ready[v] = false;
        continue;
      }
      requests.push_back(std::move(request));
      owner.push_back(v);
      ++missing[v];
    }
  }
  if (requests.empty()) return ready;
  std::vector<bool> arrived = prefetched_.fetch_ahead(requests);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (arrived[k]) --missing[owner[k]];
  }
  for (std::size_t v = 0; v < versions.size(); ++v) ready[v] = ready[v] && missing[v] == 0;
  return ready;
}

}  // namespace wv::index
