#include "src/cli/network.h"

#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/project.h"
#include "src/install/wheelhouse.h"
#include "src/base/process.h"

namespace wv::cli {
namespace {

// A variable's value, or nullopt when it is unset or empty.
std::optional<std::string> environment_value(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// A whole number from `name` within [low, high]; nullopt (with a warning) when it does not fit.
std::optional<std::uint64_t> bounded_number(const char* name, std::uint64_t low, std::uint64_t high,
                                            std::string_view unit) {
  std::optional<std::string> text = environment_value(name);
  if (!text) return std::nullopt;
  std::optional<std::uint64_t> number = parse_uint64(*text);
  if (!number || *number < low || *number > high) {
    log_warning(str_cat("ignoring `", name, "=", *text, "`: expected ", unit, " between ", low,
                        " and ", high));
    return std::nullopt;
  }
  return number;
}

// The keyring's answer for `username` at `service`: `keyring get` prints the password and
// exits 0, or exits non-zero when it has none.
std::optional<std::string> run_keyring(const std::string& service, const std::string& username) {
  ProcessOptions process;
  process.argv = {"keyring", "get", service, username};
  process.timeout = std::chrono::minutes(2);  // a backend may wait for the user to unlock it
  process.max_output = 64 * 1024;
  Result<ProcessOutput> output = run_process(process);
  if (!output) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      log_warning(str_cat("the keyring is on (`keyring-provider = \"subprocess\"`) but the "
                          "`keyring` command cannot be run: ", output.error().message,
                          " (install it with `pipx install keyring`, or put it on PATH)"));
    });
    return std::nullopt;
  }
  if (output->exit_code != 0) return std::nullopt;
  std::string password(trim_right(output->output));
  if (std::size_t newline = password.find('\n'); newline != std::string::npos) password.resize(newline);
  if (password.empty()) return std::nullopt;
  return password;
}

}  // namespace

net::CurlFetcherOptions network_options() {
  net::CurlFetcherOptions options;
  if (auto seconds = bounded_number("WVLOCK_HTTP_TIMEOUT", 1, 86400, "whole seconds")) {
    options.connect_timeout = std::chrono::seconds(*seconds);
    options.stall_timeout = std::chrono::seconds(*seconds);
  }
  if (auto retries = bounded_number("WVLOCK_HTTP_RETRIES", 0, 20, "a number of retries")) {
    options.max_attempts = int(*retries) + 1;
  }
  // uv's UV_CONCURRENT_DOWNLOADS: how many transfers of one batch (a prefetch, a download
  // batch) run at once.
  if (auto concurrent = bounded_number("WVLOCK_CONCURRENT_DOWNLOADS", 1, 256,
                                       "a number of transfers")) {
    options.max_parallel = std::size_t(*concurrent);
  }
  // uv's names (and OpenSSL's): SSL_CERT_FILE for a bundle, SSL_CERT_DIR for a folder.
  for (const char* name : {"SSL_CERT_FILE", "CURL_CA_BUNDLE"}) {
    std::optional<std::string> bundle = environment_value(name);
    if (!bundle) continue;
    if (is_regular_file(*bundle)) {
      options.ca_bundle = *bundle;
      break;
    }
    log_warning(str_cat("ignoring `", name, "=", *bundle, "`: no such file"));
  }
  if (std::optional<std::string> folder = environment_value("SSL_CERT_DIR")) {
    options.ca_path = *folder;
  }
  if (std::optional<std::string> netrc = environment_value("NETRC")) options.netrc_path = *netrc;
  return options;
}

bool keyring_enabled(const GlobalOptions& options, const targets::ProjectConfig* config) {
  if (!options.keyring_provider.empty()) return options.keyring_provider == "subprocess";
  if (std::optional<std::string> value = environment_value("WVLOCK_KEYRING_PROVIDER")) {
    if (*value == "subprocess" || *value == "disabled") return *value == "subprocess";
    log_warning(str_cat("ignoring `WVLOCK_KEYRING_PROVIDER=", *value,
                        "`: expected `subprocess` or `disabled`"));
  }
  return config != nullptr && config->keyring_provider == "subprocess";
}

net::KeyringLookup subprocess_keyring() { return &run_keyring; }

NetworkStack::NetworkStack(const GlobalOptions& options, const targets::ProjectConfig* config,
                           FileSystem& file_system) {
  net::CurlFetcherOptions curl_options = network_options();
  net::AuthOptions auth;
  if (config != nullptr) {
    for (const targets::IndexConfig& index : config->indexes) auth.indexes.push_back({index.name, index.url});
  }
  auth.getenv = environment_value;
  auth.netrc_file = curl_options.netrc_path;
  if (auth.netrc_file.empty()) {
    std::optional<std::string> home = environment_value("HOME");
    auth.netrc_file = home ? path_join(*home, ".netrc") : std::string("~/.netrc");
  }
  if (keyring_enabled(options, config)) auth.keyring = subprocess_keyring();
  curl_ = std::make_unique<net::CurlFetcher>(std::move(curl_options));
  auth_ = std::make_unique<net::AuthFetcher>(*curl_, std::move(auth));
  net::CacheOptions cache;
  cache.directory = cache_directory(options);
  cache.offline = options.offline;
  caching_ = std::make_unique<net::CachingFetcher>(*auth_, file_system, cache);
}

Result<std::optional<std::string>> wheelhouse_folder(std::optional<std::string> flag) {
  std::optional<std::string> dir = std::move(flag);
  if (!dir) dir = environment_value("WVLOCK_WHEELHOUSE");
  if (dir) WV_TRY(install::check_wheelhouse(*dir));
  return dir;
}

Result<std::string> NetworkWheelStore::get(const lock::LockedFile& file) {
  return network_.fetcher().fetch_verified(file.url, file.sha256, file.size);
}

std::vector<Result<std::string>> NetworkWheelStore::get_all(
    const std::vector<const lock::LockedFile*>& files) {
  std::vector<net::VerifiedDownload> downloads;
  for (const lock::LockedFile* file : files) downloads.push_back({file->url, file->sha256, file->size});
  return network_.fetcher().fetch_verified_all(downloads);
}

}  // namespace wv::cli
