// IndexSource: listing, precedence, caching, and the cheapest-first metadata strategy.
#include "src/index/sources.h"

#include <algorithm>
#include <set>
#include <utility>

#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/index/variants_json.h"
#include "src/index/wheel_zip.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/wheel_filename.h"

namespace wv::index {
namespace {

// The size to report for a body over its limit: unknown when the transfer was cut short at the
// limit, unless the server announced it.
std::optional<std::uint64_t> body_size(const FetchResponse& response) {
  if (!response.body_cut) return response.body.size();
  auto length = response.headers.find("content-length");
  return length == response.headers.end() ? std::nullopt : parse_uint64(trim(length->second));
}

using pkg::Distribution;
using pkg::DistributionKind;

// The header that asks for a file again after its answer was rejected (a wrong hash, a page
// that does not parse): a caching fetcher drops its copy, asks the server without revalidating
// it, and keeps the new answer in its place, so a bad copy is never served twice and a good
// one serves later offline runs (net/caching_fetcher.h).
constexpr std::pair<const char*, const char*> kRefetchHeader{"Cache-Control", "no-cache"};
// The same for a one-off read whose answer is not worth keeping (a whole wheel read to check a
// damaged range read: the download store, not the page cache, keeps wheels).
constexpr std::pair<const char*, const char*> kOneOffHeader{"Cache-Control", "no-store"};

// `url` once more, past any cache; an error unless the server answers 200 within `limit`.
Result<std::string> refetch_rejected(
    Fetcher& fetcher, const std::string& url, std::uint64_t limit, const Error& rejected,
    const std::pair<const char*, const char*>& header = kRefetchHeader) {
  FetchRequest request;
  request.url = url;
  request.headers.emplace_back(header.first, header.second);
  request.max_body_bytes = limit;
  Result<FetchResponse> response = fetcher.fetch(request);
  if (!response) return std::move(response).error().with_note("before: " + rejected.message);
  if (response->status != 200 || response->body.size() > limit) return rejected;
  return std::move(response->body);
}

// Results are cached as values; Result has no default constructor, so maps hold them by emplace.
template <class T>
using Cache = std::map<std::string, Result<T>>;

template <class T, class Compute>
Result<T> cached(Cache<T>& cache, const std::string& key, Compute&& compute) {
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Result<T> result = compute();
  cache.emplace(key, result);
  return result;
}

// The sha256 a listing gives for a file, "" when none.
std::string listed_sha256(const std::map<std::string, std::string>& hashes) {
  auto found = hashes.find("sha256");
  return found == hashes.end() ? std::string() : found->second;
}

bool is_not_found(const Result<std::string>& result) {
  return !result && result.error().code == ErrorCode::kNotFound;
}

// The file's local path when it is on this machine: a plain path or a file:// URL.
std::optional<std::string> local_path(std::string_view url) {
  if (is_file_url(url)) {
    Result<std::string> path = file_url_to_path(url);
    return path ? std::optional<std::string>(std::move(*path)) : std::nullopt;
  }
  if (has_url_scheme(url)) return std::nullopt;
  return std::string(url);
}

std::string version_key(const pkg::PackageName& name, const pkg::Version& version) {
  return str_cat(name.str(), "==", version.to_string());
}

Result<void> check_sha256(std::string_view content, const std::map<std::string, std::string>& hashes,
                          std::string_view what) {
  auto expected = hashes.find("sha256");
  if (expected == hashes.end()) return {};
  std::string actual = sha256_hex(content);
  if (actual != expected->second) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(what, " has sha256 ", actual, " but the index lists ", expected->second));
  }
  return {};
}

// check_sha256() on `text`, read from `url`; when it fails and `url` is remote, `text` is read
// once more past any cache (refetch_rejected) and checked again, so a bad cached copy or a
// transfer damaged on the way is not the final word.
Result<void> check_sha256_or_refetch(std::string& text, Fetcher* fetcher, const std::string& url,
                                     std::uint64_t limit,
                                     const std::map<std::string, std::string>& hashes,
                                     std::string_view what) {
  Result<void> checked = check_sha256(text, hashes, what);
  if (checked || fetcher == nullptr || !is_http_url(url)) return checked;
  WV_ASSIGN_OR_RETURN(text, refetch_rejected(*fetcher, url, limit, checked.error()));
  return check_sha256(text, hashes, what);
}

// A page served over http(s) may only link to http(s): a `file://` href, `<base href>` or
// PEP 691 `url` would make the lock read (and record) a file of this machine on a remote
// index's say. Any other scheme refuses the whole page, naming it.
Result<void> check_remote_links(const ProjectPage& page, const std::string& page_url) {
  for (const IndexFile& file : page.files) {
    if (is_http_url(file.url)) continue;
    std::string_view shown = file.url;
    if (shown.size() > 200) shown = shown.substr(0, 200);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("project page ", in_backticks(page_url), " links ",
                              in_backticks(file.filename), " to ", in_backticks(shown),
                              ": a page served over http(s) may only link to http(s) URLs"));
  }
  return {};
}

// A simple-index page as its Content-Type says: PEP 691 JSON, else PEP 503 HTML.
Result<ProjectPage> parse_project_page(const FetchResponse& response, const std::string& url) {
  std::string content_type;
  if (auto found = response.headers.find("content-type"); found != response.headers.end()) {
    content_type = to_lower(found->second);
  }
  return content_type.find("json") != std::string::npos
             ? parse_json_project_page(response.body, url)
             : parse_html_project_page(response.body, url);
}

}  // namespace

struct IndexSource::State {
  std::vector<std::unique_ptr<FlatFolder>> folders;  // per location; made on first use
  Cache<std::vector<Distribution>> listings;  // project -> the answering location's files
  Cache<std::string> metadata;                // file url -> METADATA
  Cache<pkg::VariantsMetadata> variants;      // name==version -> merged variants
  Cache<pkg::VariantsMetadata> wheel_variants;  // wheel url -> in-wheel variant.json
  Cache<std::string> hashes;                  // file url -> sha256
  // file url -> its size in bytes, learned after listing (range reads, whole downloads).
  std::map<std::string, std::uint64_t> sizes;
  // Pages and variants files fetched ahead (prefetch_listings(), prefetch_variants()), by
  // URL; each answer is used once (fetch_once()).
  std::map<std::string, FetchResponse> prefetched;
};

std::vector<Distribution> to_distributions(const std::vector<IndexFile>& files,
                                           const pkg::PackageName& project,
                                           const std::string& index) {
  std::vector<Distribution> out;
  out.reserve(files.size());
  for (const IndexFile& file : files) {
    pkg::ClassifiedFile classified = pkg::classify_filename(file.filename);
    Distribution distribution;
    switch (classified.kind) {
      case pkg::FileKind::kWheel:
        if (!(classified.wheel->name == project)) continue;
        distribution.kind = DistributionKind::kWheel;
        distribution.version = classified.wheel->version;
        distribution.variant_label = classified.wheel->variant_label.value_or("");
        break;
      case pkg::FileKind::kSdist: {
        // With the project known, legacy names with dashes split reliably.
        auto sdist = pkg::parse_sdist_filename(file.filename, project);
        if (!sdist) continue;
        distribution.kind = DistributionKind::kSdist;
        distribution.version = sdist->version;
        break;
      }
      case pkg::FileKind::kVariantsJson:
        if (!(classified.variants_json->name == project)) continue;
        distribution.kind = DistributionKind::kVariantsJson;
        distribution.version = classified.variants_json->version;
        break;
      case pkg::FileKind::kOther:
        continue;
    }
    distribution.name = project;
    distribution.filename = file.filename;
    distribution.url = file.url;
    distribution.hashes = file.hashes;
    distribution.size = file.size;
    distribution.upload_time = file.upload_time;
    distribution.requires_python = file.requires_python;
    distribution.yanked = file.yanked;
    distribution.yanked_reason = file.yanked_reason;
    distribution.core_metadata = file.core_metadata;
    distribution.core_metadata_hashes = file.core_metadata_hashes;
    distribution.index = index;
    out.push_back(std::move(distribution));
  }
  return out;
}

std::string dist_info_cache_key(const Distribution& wheel, std::string_view leaf) {
  const std::string sha256 = to_lower(wheel.sha256());
  if (sha256.empty()) return "";
  return str_cat("wheel-dist-info/", sha256, "/", wheel.name.str(), "/", leaf);
}

std::string file_size_cache_key(const Distribution& file) {
  const std::string sha256 = to_lower(file.sha256());
  if (sha256.empty()) return "";
  return str_cat("file-size/", sha256);
}

IndexSource::IndexSource(std::vector<SourceLocation> locations, const FileSystem& file_system,
                         Fetcher* fetcher, SourceLimits limits)
    : locations_(std::move(locations)),
      file_system_(file_system),
      fetcher_(fetcher),
      limits_(limits),
      state_(std::make_unique<State>()) {
  state_->folders.resize(locations_.size());
}

IndexSource::~IndexSource() = default;

Result<std::vector<Distribution>> IndexSource::distributions(const pkg::PackageName& name) {
  return list_scope("", default_chain(), best_match_, name);
}

std::vector<bool> IndexSource::prefetch_listings(const std::vector<pkg::PackageName>& names) {
  return prefetch_scope("", default_chain(), best_match_, names);
}

std::vector<std::size_t> IndexSource::default_chain() const {
  std::vector<std::size_t> chain;
  for (std::size_t i = 0; i < locations_.size(); ++i) {
    if (!locations_[i].explicit_only) chain.push_back(i);
  }
  return chain;
}

std::vector<bool> IndexSource::prefetch_scope(const std::string& scope_key,
                                              const std::vector<std::size_t>& scope, bool merge,
                                              const std::vector<pkg::PackageName>& names) {
  std::vector<bool> ready(names.size(), false);
  std::vector<FetchRequest> requests;
  std::vector<std::vector<std::size_t>> waiting;  // per request: the names it answers
  const bool all_local = std::all_of(scope.begin(), scope.end(), [&](std::size_t i) {
    return locations_[i].kind == LocationKind::kFlatFolder || !is_http_url(locations_[i].location);
  });
  for (std::size_t n = 0; n < names.size(); ++n) {
    const pkg::PackageName& name = names[n];
    if (state_->listings.contains(scope_key + '\n' + name.str())) {
      ready[n] = true;
      continue;
    }
    if (all_local) {
      // No page to fetch: the listing itself, kept for distributions(), instead of a walk
      // that would read and parse each local page only to have the call read it again.
      (void)list_scope(scope_key, scope, merge, name);
      ready[n] = true;
      continue;
    }
    // The walk list_scope() makes: a local location answers at once (it lists the project, or
    // fails for good), a remote one needs its page; without merging, the walk stops at the
    // first location that has the project. A name is ready when every page its walk needs
    // arrived with a 200 (anything else leaves the rest of the walk to the call itself).
    bool decided = true;
    for (std::size_t i : scope) {
      const SourceLocation& location = locations_[i];
      if (location.kind == LocationKind::kFlatFolder || !is_http_url(location.location)) {
        Result<std::vector<Distribution>> listed = list_location(i, name);
        if (!listed && listed.error().code != ErrorCode::kNotFound) break;
        if (listed && !merge) break;
        continue;
      }
      if (fetcher_ == nullptr) break;  // the call fails the same way, without the network
      FetchRequest request = page_request(i, name);
      if (auto stored = state_->prefetched.find(prefetch_key(request));
          stored != state_->prefetched.end()) {
        decided = stored->second.status == 200 && !merge;
        break;
      }
      decided = false;
      std::size_t at = 0;
      while (at < requests.size() && requests[at].url != request.url) ++at;
      if (at == requests.size()) {
        requests.push_back(std::move(request));
        waiting.emplace_back();
      }
      waiting[at].push_back(n);
      break;  // what comes after this page depends on its answer
    }
    ready[n] = decided;
  }
  if (requests.empty()) return ready;
  log_debug(str_cat("prefetching ", requests.size(), " project pages"));
  std::vector<bool> arrived = fetch_ahead(requests);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    for (std::size_t n : waiting[k]) ready[n] = arrived[k] && !merge;
  }
  return ready;
}

std::vector<bool> IndexSource::fetch_ahead(const std::vector<FetchRequest>& requests) {
  std::vector<bool> ok(requests.size(), false);
  std::vector<Result<FetchResponse>> responses = fetcher_->fetch_all(requests);
  for (std::size_t k = 0; k < responses.size() && k < requests.size(); ++k) {
    // Only answers are kept: a failed transfer is left to the request's own fetch, which
    // retries and explains it.
    if (!responses[k]) continue;
    ok[k] = responses[k]->status == 200;
    state_->prefetched.emplace(prefetch_key(requests[k]), std::move(*responses[k]));
  }
  return ok;
}

std::vector<bool> IndexSource::prefetch_variants(
    const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) {
  return prefetch_variants_in("", versions);
}

std::vector<bool> IndexSource::prefetch_variants_in(
    const std::string& scope_key,
    const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) {
  std::vector<bool> ready(versions.size(), false);
  std::vector<FetchRequest> requests;
  std::vector<std::size_t> owner;  // per request: the version it belongs to
  std::vector<int> missing(versions.size(), 0);
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const auto& [name, version] = versions[v];
    if (state_->variants.contains(scope_key + '\n' + version_key(name, version))) {
      ready[v] = true;
      continue;
    }
    auto listed = state_->listings.find(scope_key + '\n' + name.str());
    if (listed == state_->listings.end() || !listed->second) continue;
    ready[v] = true;
    for (const Distribution& file : *listed->second) {
      if (file.kind != DistributionKind::kVariantsJson || !(file.version == version) ||
          !is_http_url(file.url)) {
        continue;
      }
      FetchRequest request = small_file_request(file.url, limits_.max_variants_json_bytes,
                                                file.sha256(), refreshes(name));
      if (state_->prefetched.contains(prefetch_key(request))) continue;
      if (fetcher_ == nullptr) {
        ready[v] = false;
        continue;
      }
      requests.push_back(std::move(request));
      owner.push_back(v);
      ++missing[v];
    }
  }
  if (requests.empty()) return ready;
  std::vector<bool> arrived = fetch_ahead(requests);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (arrived[k]) --missing[owner[k]];
  }
  for (std::size_t v = 0; v < versions.size(); ++v) ready[v] = ready[v] && missing[v] == 0;
  return ready;
}

std::vector<bool> IndexSource::prefetch_metadata(const std::vector<Distribution>& wheels) {
  // The PEP 658 files of remote wheels not yet read go out as one parallel batch; a wheel read
  // locally is ready as it is; one read by range requests (no `.metadata`) is left to
  // wheel_metadata(), one by one.
  std::vector<bool> ready(wheels.size(), false);
  std::vector<FetchRequest> requests;
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const Distribution& wheel = wheels[i];
    if (state_->metadata.contains(wheel.url) || local_path(wheel.url)) {
      ready[i] = true;
      continue;
    }
    if (fetcher_ == nullptr || !is_http_url(wheel.url) ||
        wheel.core_metadata != pkg::CoreMetadataAvailability::kAvailable) {
      continue;
    }
    bool duplicate = false;
    for (std::size_t owner : owners) duplicate = duplicate || wheels[owner].url == wheel.url;
    if (duplicate) continue;
    requests.push_back(small_file_request(wheel.url + ".metadata", limits_.max_metadata_bytes,
                                          listed_sha256(wheel.core_metadata_hashes),
                                          refreshes(wheel.name)));
    owners.push_back(i);
  }
  if (requests.empty()) return ready;
  std::vector<Result<FetchResponse>> responses = fetcher_->fetch_all(requests);
  for (std::size_t k = 0; k < responses.size(); ++k) {
    Result<FetchResponse>& response = responses[k];
    const Distribution& wheel = wheels[owners[k]];
    // Anything but a good answer is left to the single path, which retries and explains.
    if (!response || response->status != 200) continue;
    stats_.bytes_fetched += response->body.size();
    if (response->body.size() > limits_.max_metadata_bytes) continue;
    if (!check_sha256(response->body, wheel.core_metadata_hashes, "")) continue;
    ++stats_.metadata_pep658;
    state_->metadata.emplace(wheel.url, Result<std::string>(std::move(response->body)));
  }
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    ready[i] = ready[i] || state_->metadata.contains(wheels[i].url);
  }
  return ready;
}

std::string IndexSource::prefetch_key(const FetchRequest& request) {
  // Everything that shapes the answer: a prefetched answer serves only the same request.
  std::string key = str_cat(request.url, "\n", request.max_body_bytes, "\n",
                            request.expected_sha256, "\n", request.revalidate ? "1" : "0");
  for (const auto& [name, value] : request.headers) key += str_cat("\n", name, ": ", value);
  return key;
}

FetchRequest IndexSource::small_file_request(const std::string& url, std::uint64_t limit,
                                             std::string_view pinned_sha256,
                                             bool revalidate) const {
  FetchRequest request;
  request.url = url;
  request.max_body_bytes = limit;
  request.expected_sha256 = std::string(pinned_sha256);
  request.revalidate = revalidate && pinned_sha256.empty();
  return request;
}

Result<FetchResponse> IndexSource::fetch_once(const FetchRequest& request) {
  auto ahead = state_->prefetched.find(prefetch_key(request));
  if (ahead == state_->prefetched.end()) return fetcher_->fetch(request);
  FetchResponse response = std::move(ahead->second);
  state_->prefetched.erase(ahead);
  return response;
}

FetchRequest IndexSource::page_request(std::size_t index, const pkg::PackageName& name) const {
  FetchRequest request;
  request.url = str_cat(with_trailing_slash(locations_[index].location), name.str(), "/");
  request.headers.emplace_back("Accept", std::string(kSimpleAcceptHeader));
  request.max_body_bytes = limits_.max_page_bytes;
  request.revalidate = refreshes(name);
  return request;
}

Result<std::vector<Distribution>> IndexSource::list_scope(const std::string& scope_key,
                                                          const std::vector<std::size_t>& scope,
                                                          bool merge,
                                                          const pkg::PackageName& name) {
  return cached(state_->listings, scope_key + '\n' + name.str(),
                [&]() -> Result<std::vector<Distribution>> {
    std::vector<Distribution> merged;
    std::set<std::string> versions_taken;
    bool found = false;
    for (std::size_t i : scope) {
      Result<std::vector<Distribution>> listed = list_location(i, name);
      if (!listed) {
        // Not found here: ask the next location. Any other failure stops the search, so a
        // broken or unreachable index never silently hands a project to a lower-priority one.
        if (listed.error().code != ErrorCode::kNotFound) return listed;
        continue;
      }
      for (Distribution& file : *listed) file.index_name = locations_[i].name;
      if (!merge) return listed;
      found = true;
      // Best match: each version from the first location that lists it, so one version's
      // files never mix across indexes.
      std::set<std::string> here;
      for (Distribution& file : *listed) {
        std::string version = file.version.to_string();
        if (versions_taken.count(version)) continue;
        here.insert(version);
        merged.push_back(std::move(file));
      }
      versions_taken.insert(here.begin(), here.end());
    }
    if (found) return merged;
    std::vector<std::string> where;
    for (std::size_t i : scope) where.push_back(in_backticks(locations_[i].location));
    return make_error(ErrorCode::kNotFound,
                      str_cat("no package source has a project named ", in_backticks(name.str()),
                              " (searched ", where.empty() ? std::string("nothing") : join(where, ", "),
                              ")"));
  });
}

/// A pinned index's view: listings from its locations only; everything else is the parent's.
class IndexSource::PinnedView final : public pkg::PackageSource {
 public:
  PinnedView(IndexSource& parent, std::string key, std::vector<std::size_t> scope)
      : parent_(parent), key_(std::move(key)), scope_(std::move(scope)) {}

  Result<std::vector<Distribution>> distributions(const pkg::PackageName& name) override {
    return parent_.list_scope(key_, scope_, false, name);
  }
  std::vector<bool> prefetch_listings(const std::vector<pkg::PackageName>& names) override {
    return parent_.prefetch_scope(key_, scope_, false, names);
  }
  std::vector<bool> prefetch_variants(
      const std::vector<std::pair<pkg::PackageName, pkg::Version>>& versions) override {
    return parent_.prefetch_variants_in(key_, versions);
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
    return parent_.variants_in(key_, files, name, version);
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
  std::string key_;
  std::vector<std::size_t> scope_;
};

Result<std::unique_ptr<pkg::PackageSource>> IndexSource::pinned(std::string_view index) {
  std::vector<std::size_t> scope;
  for (std::size_t i = 0; i < locations_.size(); ++i) {
    if (locations_[i].name == index) scope.push_back(i);
  }
  if (scope.empty()) {
    return make_error(ErrorCode::kNotFound, str_cat("no index is named ", in_backticks(index)));
  }
  return std::unique_ptr<pkg::PackageSource>(
      std::make_unique<PinnedView>(*this, str_cat("pinned:", index), std::move(scope)));
}

Result<std::vector<Distribution>> IndexSource::list_location(std::size_t index,
                                                             const pkg::PackageName& name) {
  return locations_[index].kind == LocationKind::kFlatFolder ? list_flat_folder(index, name)
                                                             : list_simple_index(index, name);
}

Result<std::vector<Distribution>> IndexSource::list_flat_folder(std::size_t index,
                                                                const pkg::PackageName& name) {
  const SourceLocation& location = locations_[index];
  std::optional<std::string> folder = local_path(location.location);
  if (!folder) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("find-links location ", in_backticks(location.location),
                              " must be a local folder or a file:// URL"));
  }
  std::unique_ptr<FlatFolder>& listing = state_->folders[index];
  if (!listing) {
    listing = std::make_unique<FlatFolder>(file_system_, *folder, digest_writer_,
                                           digest_directory_, stats_.folders);
  }
  WV_ASSIGN_OR_RETURN(std::vector<std::string> names, listing->files_of(name));
  if (names.empty()) {
    return make_error(ErrorCode::kNotFound, str_cat("no files of ", in_backticks(name.str()),
                                                    " in ", in_backticks(*folder)));
  }
  std::vector<IndexFile> files;
  for (const std::string& filename : names) {
    IndexFile file;
    file.filename = filename;
    // Keep the location's spelling: a file:// folder gives file:// URLs, a path gives paths.
    file.url = is_file_url(location.location)
                   ? resolve_url(with_trailing_slash(location.location), percent_encode_path(filename))
                   : path_join(*folder, filename);
    std::string path = path_join(*folder, filename);
    if (Result<FileInfo> info = file_system_.stat(path); info && info->type == FileType::kRegular) {
      file.size = info->size;
    }
    files.push_back(std::move(file));
  }
  return to_distributions(files, name, location.location);
}

Result<std::vector<Distribution>> IndexSource::list_simple_index(std::size_t index,
                                                                 const pkg::PackageName& name) {
  const SourceLocation& location = locations_[index];
  std::string base = with_trailing_slash(location.location);
  if (is_http_url(location.location)) {
    if (fetcher_ == nullptr) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat("index ", in_backticks(location.location),
                                " is remote but network access is off"));
    }
    FetchRequest request = page_request(index, name);
    const std::string page_url = request.url;
    WV_ASSIGN_OR_RETURN(FetchResponse response, fetch_once(request));
    if (response.status == 406) {
      // The server refuses the JSON/HTML mix: ask for plain HTML (PEP 691 allows a 406).
      request.headers.clear();
      request.headers.emplace_back("Accept", "text/html");
      WV_ASSIGN_OR_RETURN(response, fetcher_->fetch(request));
    }
    ++stats_.pages;
    stats_.bytes_fetched += response.body.size();
    if (response.status == 404 || response.status == 410) {
      return make_error(ErrorCode::kNotFound, str_cat("index ", in_backticks(location.location),
                                                      " has no project ", in_backticks(name.str())));
    }
    if (response.status != 200) {
      return make_error(ErrorCode::kNetwork, str_cat("fetching ", in_backticks(page_url),
                                                     ": HTTP status ", response.status));
    }
    if (response.body.size() > limits_.max_page_bytes) {
      return limit_error(Limit::kPageBytes, str_cat("project page ", in_backticks(page_url)),
                         body_size(response), limits_.max_page_bytes);
    }
    std::string effective = response.effective_url.empty() ? page_url : response.effective_url;
    Result<ProjectPage> page = parse_project_page(response, effective);
    if (!page) {
      // A damaged cached copy or a bad transfer: once more from the server (see above).
      request.headers.emplace_back(kRefetchHeader.first, kRefetchHeader.second);
      Result<FetchResponse> again = fetcher_->fetch(request);
      if (!again) return std::move(again).error().with_note("before: " + page.error().message);
      if (again->status != 200 || again->body.size() > limits_.max_page_bytes) {
        return std::move(page).error();
      }
      page = parse_project_page(*again, effective);
      if (!page) return std::move(page).error();
    }
    WV_TRY(check_remote_links(*page, effective));
    return to_distributions(page->files, name, location.location);
  }

  // A local tree (path or file://): `<base>/<name>/index.json` (PEP 691) or `index.html`.
  std::optional<std::string> root = local_path(location.location);
  if (!root) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("index ", in_backticks(location.location),
                              ": expected a local path, a file:// URL or an http(s):// URL"));
  }
  if (!file_system_.exists(*root)) {
    return make_error(ErrorCode::kIo, str_cat("index folder ", in_backticks(*root), " does not exist"));
  }
  std::string project_folder = path_join(*root, name.str());
  for (const char* leaf : {"index.json", "index.html"}) {
    std::string page_path = path_join(project_folder, leaf);
    Result<FileInfo> info = file_system_.stat(page_path);
    if (!info) continue;
    if (info->size > limits_.max_page_bytes) {
      return limit_error(Limit::kPageBytes, str_cat("project page ", in_backticks(page_path)),
                         info->size, limits_.max_page_bytes);
    }
    WV_ASSIGN_OR_RETURN(std::string body, file_system_.read_file(page_path, Limit::kPageBytes,
                                                                 limits_.max_page_bytes));
    ++stats_.pages;
    // Resolve hrefs against the page's own spelling (a path, or the file:// URL).
    std::string page_url = is_file_url(location.location)
                               ? str_cat(base, percent_encode_path(name.str()), "/", leaf)
                               : page_path;
    bool json = std::string_view(leaf) == "index.json";
    Result<ProjectPage> page = json ? parse_json_project_page(body, page_url)
                                    : parse_html_project_page(body, page_url);
    if (!page) return std::move(page).error();
    return to_distributions(page->files, name, location.location);
  }
  return make_error(ErrorCode::kNotFound, str_cat("index ", in_backticks(location.location),
                                                  " has no project ", in_backticks(name.str())));
}

Result<std::string> IndexSource::read_small_file(const std::string& url_or_path,
                                                 std::uint64_t limit, Limit limit_id,
                                                 std::string_view pinned_sha256, bool revalidate) {
  if (is_http_url(url_or_path)) {
    if (fetcher_ == nullptr) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat(in_backticks(url_or_path), " is remote but network access is off"));
    }
    FetchRequest request = small_file_request(url_or_path, limit, pinned_sha256, revalidate);
    WV_ASSIGN_OR_RETURN(FetchResponse response, fetch_once(request));
    stats_.bytes_fetched += response.body.size();
    if (response.status == 404 || response.status == 410) {
      return make_error(ErrorCode::kNotFound, str_cat(in_backticks(url_or_path), " does not exist"));
    }
    if (response.status != 200) {
      return make_error(ErrorCode::kNetwork, str_cat("fetching ", in_backticks(url_or_path),
                                                     ": HTTP status ", response.status));
    }
    if (response.body.size() > limit) {
      return limit_error(limit_id, in_backticks(url_or_path), body_size(response), limit);
    }
    return std::move(response.body);
  }
  std::optional<std::string> path = local_path(url_or_path);
  if (!path) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("cannot read ", in_backticks(url_or_path), ": unsupported URL scheme"));
  }
  WV_ASSIGN_OR_RETURN(FileInfo info, file_system_.stat(*path));
  if (info.size > limit) return limit_error(limit_id, in_backticks(*path), info.size, limit);
  // stat() measured a symlink itself: the bound that holds is the one applied while reading.
  return file_system_.read_file(*path, limit_id, limit);
}

Result<std::string> IndexSource::read_dist_info(const Distribution& wheel, const std::string& leaf) {
  if (wheel.kind != DistributionKind::kWheel) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(wheel.filename), " is not a wheel: wvlock reads metadata "
                              "of wheels only (it does not build source distributions)"));
  }
  DistInfoEntry wanted{wheel.name, leaf};
  if (std::optional<std::string> path = local_path(wheel.url)) {
    ++stats_.metadata_local_zip;
    return read_dist_info_file(*path, wanted, limits_);
  }
  if (!is_http_url(wheel.url)) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("cannot read ", in_backticks(wheel.url), ": unsupported URL scheme"));
  }
  if (fetcher_ == nullptr) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(wheel.url), " is remote but network access is off"));
  }
  // A wheel's dist-info is fixed by its bytes: kept under the wheel's sha256, it serves later
  // runs without range requests (which no response cache keeps), offline runs too.
  const std::string key = dist_info_cache_key(wheel, leaf);
  if (derived_ != nullptr && !key.empty()) {
    if (std::optional<std::string> kept = derived_->load_derived(key)) {
      ++stats_.dist_info_reused;
      return std::move(*kept);
    }
  }
  Result<std::string> content = fetch_remote_dist_info(wheel, wanted);
  if (content && derived_ != nullptr && !key.empty()) derived_->store_derived(key, *content);
  return content;
}

Result<std::string> IndexSource::fetch_remote_dist_info(const Distribution& wheel,
                                                        const DistInfoEntry& wanted) {
  RangeReadStats range;
  Result<std::string> content =
      fetch_dist_info_file(*fetcher_, wheel.url, wheel.size, wanted, limits_, &range);
  if (content && range.file_size) learn_size(wheel, *range.file_size);
  ++stats_.metadata_range;
  if (range.whole_file) ++stats_.metadata_whole_wheel;
  stats_.range_requests += range.requests;
  stats_.bytes_fetched += range.bytes;
  const bool damaged = !content && (content.error().code == ErrorCode::kParse ||
                                    content.error().code == ErrorCode::kIntegrity);
  if (damaged && !wheel.sha256().empty()) {
    // A range answer that disagrees with itself or the file (kIntegrity) is a damaged transfer
    // too. Bytes read by range carry no hash, and a malformed wheel makes its version unavailable:
    // a transfer damaged on the way must not pass for a broken wheel (the lock would quietly
    // take another version). Read the whole wheel and check it against the index's sha256;
    // only a wheel that matches it and still does not parse is broken.
    WV_ASSIGN_OR_RETURN(std::string whole,
                        refetch_rejected(*fetcher_, wheel.url, limits_.max_wheel_bytes,
                                         content.error(), kOneOffHeader));
    WV_TRY(check_sha256(whole, wheel.hashes, str_cat("wheel ", in_backticks(wheel.url))));
    learn_size(wheel, whole.size());
    return read_dist_info_from_buffer(whole, wanted, wheel.filename, limits_);
  }
  return content;
}

Result<std::string> IndexSource::read_metadata_uncached(const Distribution& wheel) {
  // 1. PEP 658: the `.metadata` file beside the distribution, checked against its hash.
  if (wheel.core_metadata == pkg::CoreMetadataAvailability::kAvailable) {
    std::string metadata_url = wheel.url + ".metadata";
    Result<std::string> text =
        read_small_file(metadata_url, limits_.max_metadata_bytes, Limit::kMetadataBytes,
                        listed_sha256(wheel.core_metadata_hashes), refreshes(wheel.name));
    if (text) {
      WV_TRY(check_sha256_or_refetch(*text, fetcher_, metadata_url, limits_.max_metadata_bytes,
                                     wheel.core_metadata_hashes,
                                     str_cat("core metadata file ", in_backticks(metadata_url))));
      ++stats_.metadata_pep658;
      return text;
    }
    // The index promised a file it does not serve: fall back to the wheel itself.
    if (!is_not_found(text)) return text;
    log_debug(str_cat("index lists ", metadata_url, " but it is missing; reading the wheel"));
  }
  // 2. The wheel's own `*.dist-info/METADATA`.
  return read_dist_info(wheel, "METADATA");
}

Result<std::string> IndexSource::wheel_metadata(const Distribution& wheel) {
  return cached(state_->metadata, wheel.url,
                [&]() -> Result<std::string> {
                  Result<std::string> text = read_metadata_uncached(wheel);
                  if (!text) {
                    return std::move(text).error().with_context(
                        str_cat("reading the metadata of ", in_backticks(wheel.filename)));
                  }
                  return text;
                });
}

std::vector<Result<std::string>> IndexSource::wheel_metadata_batch(
    const std::vector<Distribution>& wheels) {
  // The remote `.metadata` files as one parallel batch; the rest (local reads, range reads,
  // what the batch did not get) one by one through wheel_metadata().
  (void)prefetch_metadata(wheels);
  std::vector<Result<std::string>> results;
  results.reserve(wheels.size());
  for (const Distribution& wheel : wheels) results.push_back(wheel_metadata(wheel));
  return results;
}

Result<pkg::VariantsMetadata> IndexSource::variants_metadata(const pkg::PackageName& name,
                                                             const pkg::Version& version) {
  WV_ASSIGN_OR_RETURN(std::vector<Distribution> files, distributions(name));
  return variants_in("", files, name, version);
}

Result<pkg::VariantsMetadata> IndexSource::variants_in(const std::string& scope_key,
                                                       const std::vector<Distribution>& files,
                                                       const pkg::PackageName& name,
                                                       const pkg::Version& version) {
  return cached(state_->variants, scope_key + '\n' + version_key(name, version),
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
                          read_small_file(file->url, limits_.max_variants_json_bytes,
                                          Limit::kVariantsJsonBytes, file->sha256(),
                                          refreshes(name)));
      WV_TRY(check_sha256_or_refetch(text, fetcher_, file->url, limits_.max_variants_json_bytes,
                                     file->hashes,
                                     str_cat("variants file ", in_backticks(file->url))));
      ++stats_.variants_files;
      WV_ASSIGN_OR_RETURN(pkg::VariantsMetadata metadata, parse_variants_json(text, file->filename));
      parsed.push_back(std::move(metadata));
    }
    return merge_variants_metadata(parsed, what);
  });
}

Result<std::string> IndexSource::file_sha256(const Distribution& file) {
  if (std::string listed = file.sha256(); !listed.empty()) return listed;
  return cached(state_->hashes, file.url, [&]() -> Result<std::string> {
    if (std::optional<std::string> path = local_path(file.url)) return sha256_file_hex(*path);
    WV_ASSIGN_OR_RETURN(std::string bytes,
                        read_small_file(file.url, limits_.max_wheel_bytes, Limit::kDownloadBytes));
    learn_size(file, bytes.size());
    return sha256_hex(bytes);
  });
}

void IndexSource::learn_size(const Distribution& file, std::uint64_t size) {
  state_->sizes[file.url] = size;
  // Kept with the dist-info files read by range: a later run that reuses those learns the size
  // from here, so its lockfile is the same as this run's.
  const std::string key = file_size_cache_key(file);
  if (derived_ != nullptr && !key.empty()) derived_->store_derived(key, std::to_string(size));
}

std::optional<std::uint64_t> IndexSource::file_size(const Distribution& file) {
  if (file.size) return file.size;
  if (auto learned = state_->sizes.find(file.url); learned != state_->sizes.end()) {
    return learned->second;
  }
  if (std::optional<std::string> path = local_path(file.url)) {
    Result<FileInfo> info = file_system_.stat_followed(*path);  // a linked wheel reads as its target
    if (info && info->type == FileType::kRegular) return info->size;
    return std::nullopt;
  }
  const std::string key = file_size_cache_key(file);
  if (derived_ == nullptr || key.empty()) return std::nullopt;
  std::optional<std::string> kept = derived_->load_derived(key);
  return kept ? parse_uint64(*kept) : std::nullopt;
}

Result<pkg::VariantsMetadata> IndexSource::wheel_variant_metadata(const Distribution& wheel) {
  return cached(state_->wheel_variants, wheel.url, [&]() -> Result<pkg::VariantsMetadata> {
    if (wheel.variant_label.empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(wheel.filename), " is not a variant wheel"));
    }
    WV_ASSIGN_OR_RETURN(std::string text, read_dist_info(wheel, "variant.json"));
    return parse_wheel_variant_json(text, wheel.variant_label, wheel.filename);
  });
}

}  // namespace wv::index
