// The network stack every command shares (docs/network.md): curl with the environment's TLS
// trust, netrc, timeout and retry settings; the project's index credentials and the keyring
// over it; the download cache on top.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/cli/options.h"
#include "src/install/wheel_store.h"
#include "src/net/auth_fetcher.h"
#include "src/net/caching_fetcher.h"
#include "src/net/curl_fetcher.h"
#include "targets/project_file.h"

namespace wv::cli {

/// The curl settings of every command, from the environment: `WVLOCK_HTTP_TIMEOUT` (whole
/// seconds, 1 to 86400: connecting and a transfer receiving nothing; default 15 s and 30 s),
/// `WVLOCK_HTTP_RETRIES` (0 to 20 retries after the first attempt; default 3), `SSL_CERT_FILE`
/// (else `CURL_CA_BUNDLE`) and `SSL_CERT_DIR` (trusted certificates), `NETRC` (the netrc file,
/// default `~/.netrc`). A value that does not fit is ignored with a warning.
net::CurlFetcherOptions network_options();

/// Whether the keyring is asked: `--keyring-provider`, else `WVLOCK_KEYRING_PROVIDER`, else the
/// project's `keyring-provider`, else off. `subprocess` runs the `keyring` command on PATH.
bool keyring_enabled(const GlobalOptions& options, const targets::ProjectConfig* config);

/// The keyring as `keyring get SERVICE USERNAME` (pip's and uv's `subprocess` provider): its
/// first line of output is the password; a failing or missing command has none.
net::KeyringLookup subprocess_keyring();

/// curl, credentials, cache: `fetcher()` is what the index source and the wheel stores use.
class NetworkStack {
 public:
  /// `config` gives the named indexes and `keyring-provider` (nullptr: none, as for a sync
  /// without a readable project file).
  NetworkStack(const GlobalOptions& options, const targets::ProjectConfig* config,
               FileSystem& file_system);
  net::CachingFetcher& fetcher() { return *caching_; }

 private:
  std::unique_ptr<net::CurlFetcher> curl_;
  std::unique_ptr<net::AuthFetcher> auth_;
  std::unique_ptr<net::CachingFetcher> caching_;
};

/// `flag` (`--wheelhouse DIR`), else `WVLOCK_WHEELHOUSE`: a folder `wvlock fetch --into`
/// wrote, asked for each locked file before the cache and the network; nullopt when neither is
/// given, kInvalidInput when it is not a folder.
Result<std::optional<std::string>> wheelhouse_folder(std::optional<std::string> flag);

/// Locked files with a remote url, downloaded through the cache (in parallel, with the
/// progress bar) and verified against the lock: what sync and fetch get files from after the
/// local paths and the wheelhouse.
class NetworkWheelStore final : public install::WheelStore {
 public:
  /// `config`: the project file, for index credentials (nullopt: none).
  NetworkWheelStore(const GlobalOptions& options, std::optional<targets::ProjectConfig> config,
                    FileSystem& file_system)
      : config_(std::move(config)), network_(options, config_ ? &*config_ : nullptr, file_system) {}
  Result<std::string> get(const lock::LockedFile& file) override;
  std::vector<Result<std::string>> get_all(const std::vector<const lock::LockedFile*>& files) override;
  net::CachingFetcher& fetcher() { return network_.fetcher(); }
  /// The stack itself, for the rest of the command (a sync's builds) to share.
  NetworkStack& network() { return network_; }

 private:
  std::optional<targets::ProjectConfig> config_;
  NetworkStack network_;
};

}  // namespace wv::cli
