// PrefetchStore: the batch, the once-only answers and their key.
#include "src/index/prefetch.h"

#include <utility>

#include "src/base/str.h"

namespace wv::index {

std::vector<bool> PrefetchStore::fetch_ahead(const std::vector<FetchRequest>& requests) {
  std::vector<bool> ok(requests.size(), false);
  if (fetcher_ == nullptr) return ok;
  std::vector<Result<FetchResponse>> responses = fetcher_->fetch_all(requests);
  for (std::size_t k = 0; k < responses.size() && k < requests.size(); ++k) {
    // Only answers are kept: a failed transfer is left to the request's own fetch, which
    // retries and explains it.
    if (!responses[k]) continue;
    ok[k] = responses[k]->status == 200;
    answers_.emplace(prefetch_key(requests[k]), std::move(*responses[k]));
  }
  return ok;
}

const FetchResponse* PrefetchStore::peek(const FetchRequest& request) const {
  auto found = answers_.find(prefetch_key(request));
  return found == answers_.end() ? nullptr : &found->second;
}

Result<FetchResponse> PrefetchStore::fetch_once(const FetchRequest& request) {
  auto ahead = answers_.find(prefetch_key(request));
  if (ahead != answers_.end()) {
    FetchResponse response = std::move(ahead->second);
    answers_.erase(ahead);
    return response;
  }
  if (fetcher_ == nullptr) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(request.url), " is remote but network access is off"));
  }
  return fetcher_->fetch(request);
}

std::string PrefetchStore::prefetch_key(const FetchRequest& request) {
  // A prefetched answer serves only the same request: one for another range, bound, pinned
  // digest, revalidation, destination or headers could be another answer. `@` cannot start a
  // header name (RFC 9110 tokens), so the range and destination lines never read as headers.
  std::string key = str_cat(request.url, "\n", request.max_body_bytes, "\n",
                            request.expected_sha256, "\n", request.revalidate ? "1" : "0");
  if (request.range) {
    key += str_cat("\n@range ", request.range->first, " ", request.range->second);
  }
  if (!request.body_path.empty()) key += str_cat("\n@to ", request.body_path);
  for (const auto& [name, value] : request.headers) key += str_cat("\n", name, ": ", value);
  return key;
}

}  // namespace wv::index
