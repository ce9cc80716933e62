// LocationReader: find-links folders, simple-index pages over http(s) and from local trees.
#include "src/index/location_reader.h"

#include <string_view>
#include <utility>

#include "src/base/str.h"
#include "src/base/url.h"
#include "src/index/small_files.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/wheel_filename.h"

namespace wv::index {
namespace {

using pkg::Distribution;
using pkg::DistributionKind;

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

LocationReader::LocationReader(std::vector<SourceLocation> locations,
                               const FileSystem& file_system, Fetcher* fetcher,
                               PrefetchStore& prefetched, const SourceLimits& limits,
                               const RefreshPolicy& refresh, SourceStats& stats)
    : locations_(std::move(locations)),
      file_system_(file_system),
      fetcher_(fetcher),
      prefetched_(prefetched),
      limits_(limits),
      refresh_(refresh),
      stats_(stats) {
  folders_.resize(locations_.size());
}

LocationReader::~LocationReader() = default;

bool LocationReader::is_remote(std::size_t index) const {
  const SourceLocation& location = locations_[index];
  return location.kind == LocationKind::kSimpleIndex && is_http_url(location.location);
}

FetchRequest LocationReader::page_request(std::size_t index, const pkg::PackageName& name) const {
  FetchRequest request;
  request.url = str_cat(with_trailing_slash(locations_[index].location), name.str(), "/");
  request.headers.emplace_back("Accept", std::string(kSimpleAcceptHeader));
  request.max_body_bytes = limits_.max_page_bytes;
  request.revalidate = refresh_.covers(name);
  return request;
}

Result<std::vector<Distribution>> LocationReader::list(std::size_t index,
                                                       const pkg::PackageName& name) {
  if (locations_[index].kind == LocationKind::kFlatFolder) return list_flat_folder(index, name);
  return is_http_url(locations_[index].location) ? list_remote_index(index, name)
                                                 : list_local_index(index, name);
}


Result<std::vector<Distribution>> LocationReader::list_flat_folder(std::size_t index,
                                                                const pkg::PackageName& name) {
  const SourceLocation& location = locations_[index];
  std::optional<std::string> folder = local_path(location.location);
  if (!folder) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("find-links location ", in_backticks(location.location),
                              " must be a local folder or a file:// URL"));
  }
  std::unique_ptr<FlatFolder>& listing = folders_[index];
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

Result<std::vector<Distribution>> LocationReader::list_remote_index(std::size_t index,
                                                                    const pkg::PackageName& name) {
  const SourceLocation& location = locations_[index];
  if (fetcher_ == nullptr) {
    return make_error(ErrorCode::kUnsupported, str_cat("index ", in_backticks(location.location),
                                                       " is remote but network access is off"));
  }
  FetchRequest request = page_request(index, name);
  const std::string page_url = request.url;
  WV_ASSIGN_OR_RETURN(FetchResponse response, prefetched_.fetch_once(request));
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
  WV_ASSIGN_OR_RETURN(ProjectPage page, parse_or_refetch(std::move(request), response, effective));
  WV_TRY(check_remote_links(page, effective));
  return to_distributions(page.files, name, location.location);
}

Result<ProjectPage> LocationReader::parse_or_refetch(FetchRequest request,
                                                     const FetchResponse& response,
                                                     const std::string& page_url) {
  Result<ProjectPage> page = parse_project_page(response, page_url);
  if (page) return page;
  // A damaged cached copy or a bad transfer: once more from the server (kRefetchHeader).
  request.headers.emplace_back(kRefetchHeader.first, kRefetchHeader.second);
  Result<FetchResponse> again = fetcher_->fetch(request);
  if (!again) return std::move(again).error().with_note("before: " + page.error().message);
  if (again->status != 200 || again->body.size() > limits_.max_page_bytes) {
    return std::move(page).error();
  }
  return parse_project_page(*again, page_url);
}

Result<std::vector<Distribution>> LocationReader::list_local_index(std::size_t index,
                                                                   const pkg::PackageName& name) {
  const SourceLocation& location = locations_[index];
  // A local tree (path or file://): `<base>/<name>/index.json` (PEP 691) or `index.html`.
  std::string base = with_trailing_slash(location.location);
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

}  // namespace wv::index
