// PrefetchStore: answers fetched ahead as one parallel batch (project pages, variants files),
// each kept for the one later request it answers. A prefetch is a hint and never decides
// anything: an answer serves one request once, only the same request (prefetch_key), and a
// transfer that failed keeps nothing, so the request's own fetch retries and explains it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/fetcher.h"
#include "src/base/result.h"

namespace wv::index {

class PrefetchStore {
 public:
  /// `fetcher` null: offline; nothing is fetched ahead and fetch_once() answers only from the
  /// store.
  explicit PrefetchStore(Fetcher* fetcher) : fetcher_(fetcher) {}

  bool online() const { return fetcher_ != nullptr; }

  /// Sends `requests` as one batch (Fetcher::fetch_all) and keeps every answer for
  /// fetch_once(); per request, whether it was a 200. Transfers that failed keep nothing; an
  /// answer already held for the same key is not replaced.
  std::vector<bool> fetch_ahead(const std::vector<FetchRequest>& requests);

  /// The answer held for `request`, without using it; null when none.
  const FetchResponse* peek(const FetchRequest& request) const;

  /// The held answer to `request` (then dropped: it is used once), else the fetcher's.
  Result<FetchResponse> fetch_once(const FetchRequest& request);

  /// The key of a held answer: everything in `request` that shapes the answer.
  static std::string prefetch_key(const FetchRequest& request);

 private:
  Fetcher* fetcher_;
  std::map<std::string, FetchResponse> answers_;  // by prefetch_key()
};

}  // namespace wv::index
