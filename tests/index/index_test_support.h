// Test support for wv_index: the fixture ecosystem's location, an in-memory Fetcher with byte
// ranges (and a switch to ignore them), a Fetcher over file paths for http-shaped URLs, and a
// RAII launcher of tests/index/range_server.py on loopback.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/fetcher.h"
#include "src/base/file_system.h"
#include "src/base/str.h"
#include "tests/support/server_process.h"

namespace wv::test {

/// The generated fixture ecosystem (docs/fixtures.md), or nullopt when it has not been built.
inline std::optional<std::string> fixture_ecosystem() {
  std::vector<std::string> candidates;
  if (const char* build = std::getenv("WV_BUILD_DIR")) {
    candidates.push_back(str_cat(build, "/fixtures/ecosystem"));
  }
  candidates.push_back(str_cat(WV_FIXTURES_DIR, "/generated"));
  for (const std::string& candidate : candidates) {
    if (std::filesystem::exists(candidate + "/simple/index.html")) return candidate;
  }
  return std::nullopt;
}

/// Serves `files` (URL -> bytes) like an HTTP server: 404 when absent, 206 with Content-Range
/// for a range unless `ignore_ranges`. Counts requests.
class MemoryFetcher final : public Fetcher {
 public:
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> content_types;
  bool ignore_ranges = false;
  int requests = 0;
  int ranged = 0;

  Result<FetchResponse> fetch(const FetchRequest& request) override {
    ++requests;
    FetchResponse response;
    response.effective_url = request.url;
    auto found = files.find(request.url);
    if (found == files.end()) {
      response.status = 404;
      return response;
    }
    if (auto type = content_types.find(request.url); type != content_types.end()) {
      response.headers["content-type"] = type->second;
    }
    const std::string& body = found->second;
    if (!request.range || ignore_ranges) {
      response.status = 200;
      response.body = body;
      return response;
    }
    ++ranged;
    std::int64_t size = static_cast<std::int64_t>(body.size());
    std::int64_t first = request.range->first;
    std::int64_t last = request.range->second;
    if (first < 0) {
      first = std::max<std::int64_t>(0, size + first);
      last = size - 1;
    }
    if (last < 0 || last >= size) last = size - 1;
    if (first >= size || first > last) {
      response.status = 416;
      return response;
    }
    response.status = 206;
    response.headers["content-range"] = str_cat("bytes ", first, "-", last, "/", size);
    response.body = body.substr(static_cast<std::size_t>(first),
                                static_cast<std::size_t>(last - first + 1));
    return response;
  }
};

/// Runs tests/index/range_server.py over `root` for the object's lifetime.
class RangeServer {
 public:
  explicit RangeServer(const std::string& root)
      : process_({"-u", std::string(WV_SOURCE_DIR) + "/tests/index/range_server.py", "--root",
                  root}) {}

  bool ok() const { return process_.ok(); }
  std::string url(std::string_view path) const {
    return str_cat("http://127.0.0.1:", process_.port(), path);
  }

 private:
  ServerProcess process_;
};

}  // namespace wv::test
