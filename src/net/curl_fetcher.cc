// The curl fetcher: libcurl's types and constants from <curl/curl.h>, its functions through
// net/curl_api.h, opened on the first transfer that needs the network (docs/architecture.md §6.1).
#include "src/net/curl_fetcher.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/net/curl_api.h"
#include "src/net/progress.h"
#include "src/base/url.h"

namespace wv::net {

namespace {

using Clock = std::chrono::steady_clock;

/// The most a Content-Length header may make a body reserve up front.
constexpr std::uint64_t kMaxReserve = 1ull << 30;

/// One request of a batch across its attempts.
struct Transfer {
  const FetchRequest* request = nullptr;
  int attempts = 0;
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  FetchResponse response;
  bool reserved = false;  ///< the body's capacity was set from Content-Length this attempt
  std::array<char, CURL_ERROR_SIZE> error_buffer{};
  Clock::time_point not_before;
  std::string last_failure;  ///< what went wrong with the latest attempt
  std::string last_detail;   ///< curl's own words for it, as a note
  std::string last_hint;     ///< what to do about it, as a note (or "")
  // A body streamed to the request's body_path (this attempt's file and hash).
  int sink = -1;
  std::unique_ptr<Sha256> hasher;
  std::optional<Error> sink_error;  ///< a write to the file failed: final, not retried

  /// The body bytes received by this attempt, in memory or in the file.
  std::uint64_t received() const {
    return response.streamed ? response.streamed_bytes : response.body.size();
  }
};

/// The error of a failed open, write or close of the body file, from errno.
Error body_file_error(const Transfer& transfer) {
  return make_error(ErrorCode::kIo, str_cat("cannot write ", in_backticks(transfer.request->body_path),
                                            ": ", std::strerror(errno)));
}

/// What the caller gets when the body file failed: the error, naming the download.
Error body_file_failure(const Transfer& transfer) {
  return Error(*transfer.sink_error)
      .with_context(str_cat("downloading ", in_backticks(redact_url(transfer.request->url))));
}

/// Writes all of `bytes` to `fd`; false with errno set on failure.
bool write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    ssize_t wrote = ::write(fd, bytes, size);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes += wrote;
    size -= std::size_t(wrote);
  }
  return true;
}

/// Closes the attempt's file; false (with sink_error set) when the close reports a failed write.
bool close_sink(Transfer& transfer) {
  if (transfer.sink < 0) return true;
  const int closed = ::close(transfer.sink);
  transfer.sink = -1;
  if (closed != 0 && !transfer.sink_error) {
    transfer.sink_error = body_file_error(transfer);
    return false;
  }
  return true;
}

std::size_t on_streamed_body(Transfer& transfer, char* data, std::size_t size) {
  FetchResponse& response = transfer.response;
  const std::uint64_t bound = transfer.request->max_body_bytes;
  if (bound != 0 && response.streamed_bytes + size > bound) {
    response.body_cut = true;  // nothing past the bound is written
    return 0;
  }
  if (!write_all(transfer.sink, data, size)) {
    transfer.sink_error = body_file_error(transfer);
    return 0;
  }
  transfer.hasher->update(std::string_view(data, size));
  response.streamed_bytes += size;
  return size;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->sink >= 0) return on_streamed_body(*transfer, data, size * count);
  std::string& body = transfer->response.body;
  if (!transfer->reserved) {
    transfer->reserved = true;
    // Reserve the announced size once (bounded: the header is the server's word), so a large
    // download is not copied at every doubling of the string.
    auto it = transfer->response.headers.find("content-length");
    if (it != transfer->response.headers.end()) {
      std::optional<std::uint64_t> length = parse_uint64(it->second);
      try {
        if (length) body.reserve(std::size_t(std::min<std::uint64_t>(*length, kMaxReserve)));
      } catch (const std::bad_alloc&) {  // then the string grows as the bytes arrive
      }
    }
  }
  const std::uint64_t bound = transfer->request->max_body_bytes;
  if (bound != 0 && body.size() + size * count > bound) {
    // Keep one byte past the bound so the caller sees "larger than allowed", then abort.
    body.append(data, std::size_t(bound + 1 - std::min<std::uint64_t>(body.size(), bound + 1)));
    transfer->response.body_cut = true;
    return 0;
  }
  body.append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view line = trim(std::string_view(data, size * count));
  if (line.substr(0, 5) == "HTTP/") {
    transfer->response.headers.clear();  // a new response (redirect, 100 Continue)
  } else if (std::size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
    std::string name = to_lower(trim(line.substr(0, colon)));
    std::string value(trim(line.substr(colon + 1)));
    auto [it, inserted] = transfer->response.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
  return size * count;
}

bool is_retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

std::string describe(const CurlApi& api, CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return "cannot connect to the server";
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve the host name";
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "cannot resolve the proxy host name";
    case CURLE_OPERATION_TIMEDOUT:
      return "the transfer timed out";
    case CURLE_RECV_ERROR:
      return "the connection was reset while receiving";
    case CURLE_SEND_ERROR:
      return "the connection was reset while sending";
    case CURLE_GOT_NOTHING:
      return "the server closed the connection without answering";
    case CURLE_PARTIAL_FILE:
      return "the body was truncated (fewer bytes than Content-Length)";
    case CURLE_PEER_FAILED_VERIFICATION:
      return "the server's TLS certificate did not verify";
    case CURLE_SSL_CONNECT_ERROR:
      return "the TLS handshake failed";
    case CURLE_SSL_CACERT_BADFILE:
      return "the trusted CA certificates cannot be read";
    case CURLE_UNSUPPORTED_PROTOCOL:
      return "the URL scheme is not supported";
    case CURLE_URL_MALFORMAT:
      return "the URL is malformed";
    case CURLE_TOO_MANY_REDIRECTS:
      return "too many redirects";
    case CURLE_LOGIN_DENIED:
      return "the login was denied";
    default: {
      std::string text = api.easy_strerror(code);
      if (!text.empty()) text[0] = to_ascii_lower(text[0]);
      return text;
    }
  }
}

std::string range_text(const std::pair<std::int64_t, std::int64_t>& range) {
  if (range.first < 0) return str_cat("-", -range.first);
  if (range.second < 0) return str_cat(range.first, "-");
  return str_cat(range.first, "-", range.second);
}

/// A file: URL, read directly so a missing file is a clear kNotFound rather than a curl code.
Result<FetchResponse> read_file_url(const FetchRequest& request) {
  WV_ASSIGN_OR_RETURN(std::string path, file_url_to_path(request.url));
  RealFileSystem file_system;
  // A file:// URL may be a whole wheel: the request's bound (or the download limit), not the
  // 64 MiB default of other whole-file reads.
  const std::uint64_t bound =
      request.max_body_bytes != 0 ? request.max_body_bytes : limit_value(Limit::kDownloadBytes);
  Result<std::string> content = file_system.read_file(path, Limit::kDownloadBytes, bound);
  if (!content) {
    const Error& error = content.error();
    std::string why = error.code == ErrorCode::kNotFound ? "no such file" : error.message;
    return make_error(error.code == ErrorCode::kNotFound ? ErrorCode::kNotFound : ErrorCode::kIo,
                      str_cat("cannot read ", in_backticks(request.url), ": ", why));
  }
  FetchResponse response;
  response.effective_url = request.url;
  response.status = 200;
  response.body = std::move(*content);
  if (request.range) {
    auto size = std::int64_t(response.body.size());
    std::int64_t first = request.range->first;
    std::int64_t last = request.range->second;
    if (first < 0) {
      first = std::max<std::int64_t>(0, size + first);
      last = size - 1;
    } else if (last < 0 || last >= size) {
      last = size - 1;
    }
    if (first >= size || first > last) {
      response.status = 416;
      response.headers["content-range"] = str_cat("bytes */", size);
      response.body.clear();
    } else {
      response.status = 206;
      response.headers["content-range"] = str_cat("bytes ", first, "-", last, "/", size);
      response.body = response.body.substr(std::size_t(first), std::size_t(last - first + 1));
    }
  }
  response.headers["content-length"] = std::to_string(response.body.size());
  return response;
}

std::optional<std::uint64_t> header_number(const FetchResponse& response, const std::string& name) {
  auto it = response.headers.find(name);
  if (it == response.headers.end()) return std::nullopt;
  return parse_uint64(trim(it->second));
}

std::size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) return size.ws_col - 1;
  return 79;
}

}  // namespace

struct CurlFetcher::Impl {
  CurlFetcherOptions options;
  ProxySettings proxy;
  // libcurl and the shared pool, set up by the first batch that needs the network (connect()):
  // a fetcher that only reads file: URLs, or is never used, never loads libcurl.
  std::once_flag connected;
  const CurlApi* api = nullptr;
  std::optional<Error> unavailable;  ///< why libcurl cannot be used, once known
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;

  static void lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<Impl*>(user)->share_locks[std::size_t(data)].lock();
  }
  static void unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<Impl*>(user)->share_locks[std::size_t(data)].unlock();
  }

  explicit Impl(CurlFetcherOptions fetcher_options) : options(std::move(fetcher_options)) {
    options.max_attempts = std::max(1, options.max_attempts);
    options.max_parallel = std::max<std::size_t>(1, options.max_parallel);
    proxy = options.proxy ? *options.proxy : ProxySettings::from_process_environment();
  }

  ~Impl() {
    if (share != nullptr) api->share_cleanup(share);
  }

  /// Loads libcurl (once per process) and makes this fetcher's pool (once per fetcher); true
  /// when transfers can run, else `unavailable` says why.
  bool connect() {
    std::call_once(connected, [this] {
      Result<const CurlApi*> loaded = curl_api();
      if (!loaded) {
        unavailable = loaded.error();
        return;
      }
      api = *loaded;
      // One pool for every transfer of this fetcher: connections, DNS answers, TLS sessions.
      share = api->share_init();
      if (share == nullptr) return;
      api->share_setopt(share, CURLSHOPT_LOCKFUNC, &Impl::lock);
      api->share_setopt(share, CURLSHOPT_UNLOCKFUNC, &Impl::unlock);
      api->share_setopt(share, CURLSHOPT_USERDATA, this);
      api->share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
      api->share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
      api->share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    });
    return api != nullptr;
  }

  /// Configures a fresh easy handle for the next attempt of `transfer`.
  bool prepare(Transfer& transfer) {
    transfer.easy = api->easy_init();
    if (transfer.easy == nullptr) return false;
    CURL* easy = transfer.easy;
    const FetchRequest& request = *transfer.request;
    api->easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    if (share != nullptr) api->easy_setopt(easy, CURLOPT_SHARE, share);
    api->easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
    api->easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
    api->easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
    api->easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
    api->easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
    transfer.error_buffer[0] = '\0';
    api->easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer.data());
    api->easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    api->easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    api->easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    api->easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    api->easy_setopt(easy, CURLOPT_USERAGENT, options.user_agent.c_str());
    api->easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(options.connect_timeout.count()));
    // 0: no total bound for a streamed download (see CurlFetcherOptions::transfer_timeout).
    api->easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                     request.body_path.empty() ? long(options.transfer_timeout.count()) : 0L);
    api->easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, long(std::max<std::uint64_t>(options.min_speed, 1)));
    api->easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, long(options.stall_timeout.count() / 1000)));
    api->easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    api->easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);  // fewer callbacks on big wheels
    // TLS verification is always on, whatever the environment says.
    api->easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    api->easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options.ca_bundle.empty())
      api->easy_setopt(easy, CURLOPT_CAINFO, options.ca_bundle.c_str());
    if (!options.ca_path.empty()) api->easy_setopt(easy, CURLOPT_CAPATH, options.ca_path.c_str());
    if (options.use_netrc) {
      api->easy_setopt(easy, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
      if (!options.netrc_path.empty()) {
        api->easy_setopt(easy, CURLOPT_NETRC_FILE, options.netrc_path.c_str());
      }
    }
    // wvlock decides the proxy (net/proxy.h); "" makes curl connect directly and ignore the
    // environment, and an empty NOPROXY keeps it from re-reading NO_PROXY.
    std::string proxy_url = proxy_for_url(request.url, proxy);
    api->easy_setopt(easy, CURLOPT_PROXY, proxy_url.c_str());
    api->easy_setopt(easy, CURLOPT_NOPROXY, "");
    for (const auto& [name, value] : request.headers) {
      std::string line = value.empty() ? str_cat(name, ";") : str_cat(name, ": ", value);
      transfer.header_list = api->slist_append(transfer.header_list, line.c_str());
    }
    if (transfer.header_list != nullptr) {
      api->easy_setopt(easy, CURLOPT_HTTPHEADER, transfer.header_list);
    }
    if (request.range) {
      std::string range = range_text(*request.range);
      api->easy_setopt(easy, CURLOPT_RANGE, range.c_str());  // curl copies option strings
    }
    return true;
  }

  /// Opens the attempt's file when the request streams its body; false with sink_error set.
  bool open_sink(Transfer& transfer) {
    const std::string& path = transfer.request->body_path;
    if (path.empty()) return true;
    transfer.response.streamed = true;
    transfer.hasher = std::make_unique<Sha256>();
    transfer.sink = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (transfer.sink < 0) {
      transfer.sink_error = body_file_error(transfer);
      return false;
    }
    return true;
  }

  void release(Transfer& transfer) {
    close_sink(transfer);
    if (transfer.easy != nullptr) api->easy_cleanup(transfer.easy);
    transfer.easy = nullptr;
    if (transfer.header_list != nullptr) api->slist_free_all(transfer.header_list);
    transfer.header_list = nullptr;
  }

  std::chrono::milliseconds backoff(int attempts_made) const {
    auto wait = options.initial_backoff;
    for (int i = 1; i < attempts_made && wait < options.max_backoff; ++i) wait *= 2;
    return std::min(wait, options.max_backoff);
  }

  Error final_error(const Transfer& transfer) const {
    std::string message = str_cat("cannot fetch ", in_backticks(redact_url(transfer.request->url)),
                                  ": ", transfer.last_failure);
    if (transfer.attempts > 1) message += str_cat(" (after ", transfer.attempts, " attempts)");
    Error error = make_error(ErrorCode::kNetwork, std::move(message));
    if (!transfer.last_detail.empty())
      error.notes.push_back(str_cat("curl: ", transfer.last_detail));
    if (!transfer.last_hint.empty()) error.notes.push_back(transfer.last_hint);
    return error;
  }

  /// What to do when the server's certificate does not verify against what is trusted now.
  std::string trust_hint() const {
    std::string trusted = options.ca_bundle.empty() ? std::string("the system's CA certificates")
                                                    : str_cat("the bundle ", in_backticks(options.ca_bundle));
    if (!options.ca_path.empty()) trusted += str_cat(" and the folder ", in_backticks(options.ca_path));
    return str_cat("hint: wvlock trusts ", trusted,
                   "; behind a TLS-inspecting proxy or for a private index, set SSL_CERT_FILE "
                   "to your organisation's CA bundle (PEM; CURL_CA_BUNDLE is read when it is "
                   "unset) or SSL_CERT_DIR to a folder of hashed certificates");
  }

  /// Judges a finished attempt: the final result, or nullopt when another attempt is due.
  std::optional<Result<FetchResponse>> judge(Transfer& transfer, CURLcode code) {
    bool retryable = false;
    std::optional<std::chrono::milliseconds> server_wait;
    // The status and the URL after redirects, from curl, into the response.
    auto take_status = [&]() -> long {
      long status = 0;
      api->easy_getinfo(transfer.easy, CURLINFO_RESPONSE_CODE, &status);
      char* effective = nullptr;
      api->easy_getinfo(transfer.easy, CURLINFO_EFFECTIVE_URL, &effective);
      transfer.response.status = int(status);
      transfer.response.effective_url = effective != nullptr ? effective : transfer.request->url;
      return status;
    };
    // A file that cannot be written (a full disk) is not the network's fault: final.
    if (transfer.sink_error || !close_sink(transfer)) {
      return Result<FetchResponse>(body_file_failure(transfer));
    }
    if (transfer.hasher) transfer.response.streamed_sha256 = transfer.hasher->finish_hex();
    transfer.hasher.reset();
    if (code == CURLE_WRITE_ERROR && transfer.response.body_cut) {
      // Stopped on purpose at max_body_bytes: a final answer, not a failure to retry.
      take_status();
      return Result<FetchResponse>(std::move(transfer.response));
    }
    if (code != CURLE_OK) {
      retryable = is_retryable(code);
      transfer.last_failure = describe(*api, code);
      transfer.last_detail = transfer.error_buffer.data();
      transfer.last_hint = code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE
                               ? trust_hint()
                               : std::string();
      if (code == CURLE_OPERATION_TIMEDOUT &&
          transfer.last_detail.find("too slow") != std::string::npos) {
        transfer.last_failure = str_cat(
            "the server sent less than ", std::max<std::uint64_t>(options.min_speed, 1),
            " bytes a second for ", std::max<long>(1, long(options.stall_timeout.count() / 1000)),
            " s (stalled or trickling)");
      }
    } else {
      const long status = take_status();
      transfer.last_detail.clear();
      transfer.last_hint.clear();
      std::optional<std::uint64_t> length = header_number(transfer.response, "content-length");
      bool has_body = status >= 200 && status != 204 && status != 304;
      if (status >= 500 || status == 429) {
        retryable = true;
        transfer.last_failure = str_cat("the server answered HTTP ", status);
        if (std::optional<std::uint64_t> seconds =
                header_number(transfer.response, "retry-after")) {
          server_wait = std::chrono::milliseconds(std::min<std::uint64_t>(*seconds, 3600) * 1000);
        }
      } else if (has_body && length && !transfer.response.headers.count("content-encoding") &&
                 *length != transfer.received()) {
        retryable = true;  // curl catches most of these; this is the belt to its braces
        transfer.last_failure = str_cat("the body was truncated (", transfer.received(), " of ",
                                        *length, " bytes)");
      } else {
        return Result<FetchResponse>(std::move(transfer.response));
      }
    }
    if (!retryable || transfer.attempts >= options.max_attempts) return final_error(transfer);
    auto wait = backoff(transfer.attempts);
    if (server_wait) wait = std::max(wait, std::min(*server_wait, options.max_backoff));
    transfer.not_before = Clock::now() + wait;
    return std::nullopt;
  }

  std::vector<Result<FetchResponse>> run(const std::vector<FetchRequest>& requests) {
    const std::size_t count = requests.size();
    std::vector<std::optional<Result<FetchResponse>>> results(count);
    std::vector<Transfer> transfers(count);
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < count; ++i) {
      transfers[i].request = &requests[i];
      if (is_file_url(requests[i].url)) {
        results[i] = read_file_url(requests[i]);
      } else if (!connect()) {
        results[i] = Error(*unavailable)
                         .with_context(str_cat("cannot fetch ", in_backticks(redact_url(requests[i].url))));
      } else {
        ready.push_back(i);
      }
    }
    std::size_t remaining = ready.size();
    CURLM* multi = remaining > 0 ? api->multi_init() : nullptr;
    if (remaining > 0 && multi == nullptr) {
      for (std::size_t i : ready) {
        results[i] = make_error(ErrorCode::kNetwork,
                                str_cat("cannot fetch ", in_backticks(redact_url(requests[i].url)),
                                        ": libcurl could not create a transfer"));
      }
      remaining = 0;
    }

    // `-q` draws no bar either.
    const bool show_progress = options.progress == ProgressMode::kAuto &&
                               verbosity() >= Verbosity::kNormal && ::isatty(STDERR_FILENO);
    const Clock::time_point started = Clock::now();
    Clock::time_point last_drawn;
    bool drew = false;
    std::vector<std::size_t> waiting;  // transfers between attempts
    std::size_t active = 0;
    const std::size_t network_total = remaining;
    std::uint64_t finished_bytes = 0;  // bodies of finished transfers, for the progress bar

    while (remaining > 0) {
      Clock::time_point now = Clock::now();
      for (auto it = waiting.begin(); it != waiting.end();) {
        if (transfers[*it].not_before <= now) {
          ready.push_back(*it);
          it = waiting.erase(it);
        } else {
          ++it;
        }
      }
      while (active < options.max_parallel && !ready.empty()) {
        std::size_t index = ready.front();
        ready.pop_front();
        Transfer& transfer = transfers[index];
        transfer.attempts += 1;
        transfer.response = FetchResponse{};
        transfer.reserved = false;
        transfer.sink_error.reset();
        if (!open_sink(transfer)) {
          results[index] = body_file_failure(transfer);
          --remaining;
          continue;
        }
        if (!prepare(transfer) || api->multi_add_handle(multi, transfer.easy) != CURLM_OK) {
          release(transfer);
          results[index] =
              make_error(ErrorCode::kNetwork,
                         str_cat("cannot fetch ", in_backticks(redact_url(transfer.request->url)),
                                 ": libcurl could not create a transfer"));
          --remaining;
          continue;
        }
        ++active;
      }
      if (active == 0) {
        if (waiting.empty()) continue;  // everything left just finished
        Clock::time_point next = transfers[waiting.front()].not_before;
        for (std::size_t index : waiting) next = std::min(next, transfers[index].not_before);
        std::this_thread::sleep_until(next);
        continue;
      }
      int running = 0;
      api->multi_perform(multi, &running);
      int queued = 0;
      while (CURLMsg* message = api->multi_info_read(multi, &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        CURL* easy = message->easy_handle;
        CURLcode code = message->data.result;
        Transfer* transfer = nullptr;
        api->easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
        api->multi_remove_handle(multi, easy);
        --active;
        const std::uint64_t received = transfer->received();
        std::optional<Result<FetchResponse>> outcome = judge(*transfer, code);
        release(*transfer);
        std::size_t index = std::size_t(transfer - transfers.data());
        if (outcome) {
          if (outcome->has_value()) finished_bytes += received;
          results[index] = std::move(*outcome);
          --remaining;
        } else {
          waiting.push_back(index);
        }
      }
      if (remaining == 0) break;
      long timeout_ms = 100;
      if (!waiting.empty()) {
        for (std::size_t index : waiting) {
          auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
              transfers[index].not_before - Clock::now());
          timeout_ms = std::clamp<long>(long(until.count()), 0, timeout_ms);
        }
      }
      if (active > 0) api->multi_poll(multi, nullptr, 0, int(timeout_ms), nullptr);

      if (show_progress) {
        now = Clock::now();
        if (now - started >= options.progress_delay &&
            now - last_drawn >= std::chrono::milliseconds(200)) {
          ProgressSnapshot snapshot;
          snapshot.files_total = network_total;
          snapshot.files_done = network_total - remaining;
          snapshot.bytes_done = finished_bytes;
          snapshot.bytes_total = finished_bytes;
          // A percentage only when every unfinished transfer's size is known.
          bool sizes_known = ready.empty() && waiting.empty();
          for (const Transfer& transfer : transfers) {
            if (transfer.easy == nullptr) continue;  // only transfers in flight
            snapshot.bytes_done += transfer.received();
            if (auto length = header_number(transfer.response, "content-length")) {
              snapshot.bytes_total += *length;
            } else {
              sizes_known = false;
            }
          }
          if (!sizes_known) snapshot.bytes_total = 0;
          write_err("\r" + render_progress_line(snapshot, terminal_width()));
          last_drawn = now;
          drew = true;
        }
      }
    }
    if (drew) write_err("\r" + std::string(terminal_width(), ' ') + "\r");
    if (multi != nullptr) api->multi_cleanup(multi);

    std::vector<Result<FetchResponse>> out;
    out.reserve(count);
    for (std::optional<Result<FetchResponse>>& result : results) out.push_back(std::move(*result));
    return out;
  }
};

CurlFetcher::CurlFetcher(CurlFetcherOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

CurlFetcher::~CurlFetcher() = default;

Result<FetchResponse> CurlFetcher::fetch(const FetchRequest& request) {
  std::vector<Result<FetchResponse>> results = impl_->run({request});
  return std::move(results.front());
}

std::vector<Result<FetchResponse>> CurlFetcher::fetch_all(
    const std::vector<FetchRequest>& requests) {
  return impl_->run(requests);
}

}  // namespace wv::net
