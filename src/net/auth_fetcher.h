// Credentials for package indexes (docs/network.md, "Credentials"), as a Fetcher decorator that
// sits between the cache and the network: the cache above it sees bare URLs (so no credential
// enters a cache key or sidecar), curl below it gets URLs with user info. It knows index names
// and URLs only, never the project file; the CLI hands them in.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/fetcher.h"

namespace wv::net {

/// A named index whose requests may need credentials (the URL may carry user info).
struct AuthIndex {
  std::string name;
  std::string url;
};

/// Asks a keyring for the password of `username` at `service`; nullopt when it has none.
using KeyringLookup =
    std::function<std::optional<std::string>(const std::string& service, const std::string& username)>;

struct AuthOptions {
  /// In asking order: on a tie between indexes of one host, the earlier one answers.
  std::vector<AuthIndex> indexes;
  /// Reads the environment (WVLOCK_INDEX_<NAME>_USERNAME / _PASSWORD); empty: none is read.
  std::function<std::optional<std::string>(const std::string&)> getenv;
  /// The netrc file curl reads, as hints name it; "" when netrc is off.
  std::string netrc_file;
  /// The keyring, asked after a 401/403 when a username is known without a password; empty:
  /// the keyring is off.
  KeyringLookup keyring;
};

/// `WVLOCK_INDEX_<NAME>_<suffix>`: the index name upper-cased, every character that is not an
/// ASCII letter or digit replaced by `_` (uv's UV_INDEX_<NAME>_USERNAME rule).
std::string index_variable(std::string_view index_name, std::string_view suffix);

/// Adds credentials to each http(s) request and turns a final 401 or 403 into a kNetwork
/// error that names the index and every place credentials are read from. Order for one
/// request: user info in the request URL, then in the matching index's URL, then the index's
/// environment variables, then (inside curl) the netrc file; after a 401/403 with a username
/// but no password, the keyring, once per service and username a run, and the request is sent
/// once more. An index matches the URLs under it (same scheme, host, port and path prefix;
/// the longest prefix wins) and, failing that, the other URLs of its host (the files it
/// lists there). Thread-safe.
class AuthFetcher final : public Fetcher {
 public:
  AuthFetcher(Fetcher& upstream, AuthOptions options);
  ~AuthFetcher() override;
  AuthFetcher(const AuthFetcher&) = delete;
  AuthFetcher& operator=(const AuthFetcher&) = delete;

  Result<FetchResponse> fetch(const FetchRequest& request) override;
  std::vector<Result<FetchResponse>> fetch_all(const std::vector<FetchRequest>& requests) override;

 private:
  struct Index;
  struct Plan;
  Plan plan(const FetchRequest& request);
  std::optional<std::string> ask_keyring(const Plan& plan);
  Result<FetchResponse> finish(const Plan& plan, Result<FetchResponse> answer) const;

  Fetcher& upstream_;
  AuthOptions options_;
  std::vector<Index> indexes_;
  std::mutex keyring_mutex_;
  /// (service, username) -> the keyring's answer this run (nullopt: it had none).
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> keyring_answers_;
};

}  // namespace wv::net
