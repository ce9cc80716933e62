// Small files by path or URL, and the shared checks on what is read.
#include "src/index/small_files.h"

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/base/url.h"

namespace wv::index {

std::optional<std::string> local_path(std::string_view url) {
  if (is_file_url(url)) {
    Result<std::string> path = file_url_to_path(url);
    return path ? std::optional<std::string>(std::move(*path)) : std::nullopt;
  }
  if (has_url_scheme(url)) return std::nullopt;
  return std::string(url);
}

std::optional<std::uint64_t> body_size(const FetchResponse& response) {
  if (!response.body_cut) return response.body.size();
  auto length = response.headers.find("content-length");
  return length == response.headers.end() ? std::nullopt : parse_uint64(trim(length->second));
}

Result<std::string> refetch_rejected(Fetcher& fetcher, const std::string& url,
                                     std::uint64_t limit, const Error& rejected,
                                     const std::pair<const char*, const char*>& header) {
  FetchRequest request;
  request.url = url;
  request.headers.emplace_back(header.first, header.second);
  request.max_body_bytes = limit;
  Result<FetchResponse> response = fetcher.fetch(request);
  if (!response) return std::move(response).error().with_note("before: " + rejected.message);
  if (response->status != 200 || response->body.size() > limit) return rejected;
  return std::move(response->body);
}

Result<void> check_sha256(std::string_view content,
                          const std::map<std::string, std::string>& hashes, std::string_view what) {
  auto expected = hashes.find("sha256");
  if (expected == hashes.end()) return {};
  std::string actual = sha256_hex(content);
  if (actual != expected->second) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(what, " has sha256 ", actual, " but the index lists ", expected->second));
  }
  return {};
}

FetchRequest small_file_request(const std::string& url, std::uint64_t limit,
                                std::string_view pinned_sha256, bool revalidate) {
  FetchRequest request;
  request.url = url;
  request.max_body_bytes = limit;
  request.expected_sha256 = std::string(pinned_sha256);
  request.revalidate = revalidate && pinned_sha256.empty();
  return request;
}

Result<std::string> SmallFiles::read(const std::string& url_or_path, std::uint64_t limit,
                                     Limit limit_id, std::string_view pinned_sha256,
                                     bool revalidate) {
  if (is_http_url(url_or_path)) {
    return read_remote(url_or_path, limit, limit_id, pinned_sha256, revalidate);
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

Result<std::string> SmallFiles::read_remote(const std::string& url, std::uint64_t limit,
                                            Limit limit_id, std::string_view pinned_sha256,
                                            bool revalidate) {
  if (fetcher_ == nullptr) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(url), " is remote but network access is off"));
  }
  FetchRequest request = small_file_request(url, limit, pinned_sha256, revalidate);
  WV_ASSIGN_OR_RETURN(FetchResponse response, prefetched_.fetch_once(request));
  stats_.bytes_fetched += response.body.size();
  if (response.status == 404 || response.status == 410) {
    return make_error(ErrorCode::kNotFound, str_cat(in_backticks(url), " does not exist"));
  }
  if (response.status != 200) {
    return make_error(ErrorCode::kNetwork,
                      str_cat("fetching ", in_backticks(url), ": HTTP status ", response.status));
  }
  if (response.body.size() > limit) {
    return limit_error(limit_id, in_backticks(url), body_size(response), limit);
  }
  return std::move(response.body);
}

Result<void> SmallFiles::check_sha256_or_refetch(std::string& text, const std::string& url,
                                                 std::uint64_t limit,
                                                 const std::map<std::string, std::string>& hashes,
                                                 std::string_view what) {
  Result<void> checked = check_sha256(text, hashes, what);
  if (checked || fetcher_ == nullptr || !is_http_url(url)) return checked;
  WV_ASSIGN_OR_RETURN(text, refetch_rejected(*fetcher_, url, limit, checked.error()));
  return check_sha256(text, hashes, what);
}

}  // namespace wv::index
