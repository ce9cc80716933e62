// The prefetch store alone (index/prefetch.h): a batch goes out as one fetch_all, an answer
// serves one request once, a failed transfer keeps nothing, and an answer serves only the
// request it was fetched for.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/index/prefetch.h"

using wv::FetchRequest;
using wv::FetchResponse;
using wv::Result;
using wv::index::PrefetchStore;

namespace {

// Answers every URL with its own body (status 200, or `statuses`'s), fails the transfers of
// `broken`, and counts single fetches and batches.
class CountingFetcher final : public wv::Fetcher {
 public:
  std::map<std::string, int> statuses;
  std::set<std::string> broken;
  int fetches = 0;
  std::vector<std::size_t> batches;  // the size of each fetch_all

  Result<FetchResponse> fetch(const FetchRequest& request) override {
    ++fetches;
    if (broken.count(request.url)) {
      return wv::make_error(wv::ErrorCode::kNetwork, "connection reset: " + request.url);
    }
    FetchResponse response;
    auto status = statuses.find(request.url);
    response.status = status == statuses.end() ? 200 : status->second;
    response.body = "body of " + request.url + " #" + std::to_string(fetches);
    return response;
  }
  std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& requests) override {
    batches.push_back(requests.size());
    return Fetcher::fetch_all(requests);
  }
};

FetchRequest request_for(const std::string& url) {
  FetchRequest request;
  request.url = url;
  request.max_body_bytes = 1000;
  return request;
}

}  // namespace

TEST_CASE("prefetch store: a batch is one fetch_all and each answer is used once",
          "[index][prefetch]") {
  CountingFetcher fetcher;
  PrefetchStore store(&fetcher);
  const std::vector<FetchRequest> batch = {request_for("https://a.example/x/"),
                                           request_for("https://a.example/y/")};
  CHECK(store.fetch_ahead(batch) == std::vector<bool>{true, true});
  CHECK(fetcher.batches == std::vector<std::size_t>{2});
  CHECK(fetcher.fetches == 2);

  REQUIRE(store.peek(batch[0]) != nullptr);
  CHECK(store.peek(batch[0])->body == "body of https://a.example/x/ #1");
  CHECK(fetcher.fetches == 2);  // peeking uses nothing

  Result<FetchResponse> first = store.fetch_once(batch[0]);
  REQUIRE(first);
  CHECK(first->body == "body of https://a.example/x/ #1");
  CHECK(fetcher.fetches == 2);  // served from the store
  CHECK(store.peek(batch[0]) == nullptr);

  Result<FetchResponse> again = store.fetch_once(batch[0]);
  REQUIRE(again);
  CHECK(again->body == "body of https://a.example/x/ #3");  // the fetcher's own answer
  CHECK(fetcher.fetches == 3);
  CHECK(fetcher.batches.size() == 1);
}

TEST_CASE("prefetch store: a failed transfer keeps nothing, an HTTP error is an answer",
          "[index][prefetch]") {
  CountingFetcher fetcher;
  fetcher.broken.insert("https://a.example/reset/");
  fetcher.statuses["https://a.example/gone/"] = 404;
  PrefetchStore store(&fetcher);
  const FetchRequest reset = request_for("https://a.example/reset/");
  const FetchRequest gone = request_for("https://a.example/gone/");
  CHECK(store.fetch_ahead({reset, gone}) == std::vector<bool>{false, false});

  CHECK(store.peek(reset) == nullptr);
  Result<FetchResponse> retried = store.fetch_once(reset);
  CHECK(!retried);  // asked again, so the request's own fetch explains the failure
  CHECK(fetcher.fetches == 3);

  REQUIRE(store.peek(gone) != nullptr);
  Result<FetchResponse> answered = store.fetch_once(gone);
  REQUIRE(answered);
  CHECK(answered->status == 404);
  CHECK(fetcher.fetches == 3);  // the 404 was kept and served
}

TEST_CASE("prefetch store: an answer serves only the request it was fetched for",
          "[index][prefetch]") {
  const FetchRequest base = request_for("https://a.example/file.json");
  std::vector<std::pair<std::string, FetchRequest>> others;
  auto add = [&](const std::string& what, auto&& change) {
    FetchRequest other = base;
    change(other);
    others.emplace_back(what, other);
  };
  add("another URL", [](FetchRequest& r) { r.url += "?x"; });
  add("a range", [](FetchRequest& r) { r.range = std::pair<std::int64_t, std::int64_t>{0, 9}; });
  add("another range", [](FetchRequest& r) { r.range = std::pair<std::int64_t, std::int64_t>{0, 10}; });
  add("a suffix range", [](FetchRequest& r) { r.range = std::pair<std::int64_t, std::int64_t>{-10, -1}; });
  add("revalidation", [](FetchRequest& r) { r.revalidate = true; });
  add("another bound", [](FetchRequest& r) { r.max_body_bytes = 999; });
  add("a pinned digest", [](FetchRequest& r) { r.expected_sha256 = std::string(64, 'a'); });
  add("a header", [](FetchRequest& r) { r.headers.emplace_back("Accept", "text/html"); });
  add("a destination file", [](FetchRequest& r) { r.body_path = "/tmp/x"; });
  // A header whose line reads like a range.
  add("a header spelling a range", [](FetchRequest& r) { r.headers.emplace_back("range", "0 9"); });

  std::set<std::string> keys = {PrefetchStore::prefetch_key(base)};
  for (const auto& [what, other] : others) {
    INFO(what);
    CHECK(keys.insert(PrefetchStore::prefetch_key(other)).second);

    CountingFetcher fetcher;
    PrefetchStore store(&fetcher);
    REQUIRE(store.fetch_ahead({base}) == std::vector<bool>{true});
    CHECK(store.peek(other) == nullptr);
    REQUIRE(store.fetch_once(other));
    CHECK(fetcher.fetches == 2);  // not the prefetched answer
    CHECK(store.peek(base) != nullptr);
  }
  CHECK(PrefetchStore::prefetch_key(base) == PrefetchStore::prefetch_key(FetchRequest(base)));
}

TEST_CASE("prefetch store: an answer already held is not replaced by a later batch",
          "[index][prefetch]") {
  CountingFetcher fetcher;
  PrefetchStore store(&fetcher);
  const FetchRequest page = request_for("https://a.example/p/");
  REQUIRE(store.fetch_ahead({page}) == std::vector<bool>{true});
  REQUIRE(store.fetch_ahead({page}) == std::vector<bool>{true});
  Result<FetchResponse> served = store.fetch_once(page);
  REQUIRE(served);
  CHECK(served->body == "body of https://a.example/p/ #1");
  CHECK(store.peek(page) == nullptr);  // one answer held, used once
}

TEST_CASE("prefetch store: offline, nothing is fetched and a request not held fails",
          "[index][prefetch]") {
  PrefetchStore store(nullptr);
  CHECK(!store.online());
  const FetchRequest page = request_for("https://a.example/p/");
  CHECK(store.fetch_ahead({page}) == std::vector<bool>{false});
  Result<FetchResponse> response = store.fetch_once(page);
  REQUIRE(!response);
  CHECK(response.error().code == wv::ErrorCode::kUnsupported);
  CHECK(response.error().message.find("https://a.example/p/") != std::string::npos);
}
