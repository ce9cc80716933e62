// Test support: runs tests/net/fault_server.py on a loopback port for the lifetime of one object
// (RAII: the destructor stops it, and the server also exits when its stdin pipe closes, so a
// crashed test leaves no server behind).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/fetcher.h"
#include "src/base/str.h"
#include "tests/support/server_process.h"

namespace wv::test {

class FaultServer {
 public:
  /// Starts the server over `root`; ok() tells whether it printed its port in time.
  /// `extra` arguments go to the script (e.g. {"--tls", cert, key}).
  explicit FaultServer(const std::string& root, std::vector<std::string> extra = {})
      : tls_(std::find(extra.begin(), extra.end(), "--tls") != extra.end()),
        process_(arguments(root, std::move(extra))) {}

  bool ok() const { return process_.ok(); }
  int port() const { return process_.port(); }
  /// `http://127.0.0.1:PORT` + path_and_query (`https://` when started with --tls).
  std::string url(std::string_view path_and_query) const {
    return str_cat(tls_ ? "https" : "http", "://127.0.0.1:", port(), path_and_query);
  }

  /// A counter of /__stats for `path` (hits, conditional, not_modified, authorized, proxied,
  /// ranged), read with `fetcher`; -1 when it cannot be read.
  long count(Fetcher& fetcher, std::string_view path, std::string_view field) const {
    std::string value = stat(fetcher, path, field);
    std::optional<std::uint64_t> number = parse_uint64(value);
    return number ? long(*number) : -1;
  }
  std::string stat(Fetcher& fetcher, std::string_view path, std::string_view field) const {
    Result<FetchResponse> response =
        fetcher.fetch(FetchRequest{url(str_cat("/__stats", path)), {}, {}});
    if (!response || response->status != 200) return "";
    for (std::string_view line : split(response->body, '\n')) {
      if (line.substr(0, field.size() + 1) == str_cat(field, " ")) {
        return std::string(line.substr(field.size() + 1));
      }
    }
    return "";
  }

 private:
  static std::vector<std::string> arguments(const std::string& root, std::vector<std::string> extra) {
    std::vector<std::string> all = {"-S", "-u", std::string(WV_SOURCE_DIR) + "/tests/net/fault_server.py",
                                    "--root", root};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  bool tls_ = false;
  ServerProcess process_;
};

}  // namespace wv::test
