// libcurl opened on first use (docs/network.md): the curl_* functions the curl fetcher calls,
// looked up by dlopen/dlsym of the soname the build found, so a command that never touches the
// network never loads libcurl nor the TLS, GSSAPI, LDAP and SSH libraries it pulls in. Included
// only by the curl fetcher's .cc files; <curl/curl.h> gives types and constants, never calls.
#pragma once

#include <curl/curl.h>

#include <string>

#include "src/base/result.h"

namespace wv::net {

/// The libcurl functions wvlock calls, by their curl_ names without the prefix.
struct CurlApi {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL* easy, CURLoption option, ...) = nullptr;
  CURLcode (*easy_getinfo)(CURL* easy, CURLINFO info, ...) = nullptr;
  void (*easy_cleanup)(CURL* easy) = nullptr;
  const char* (*easy_strerror)(CURLcode code) = nullptr;
  CURLM* (*multi_init)() = nullptr;
  CURLMcode (*multi_add_handle)(CURLM* multi, CURL* easy) = nullptr;
  CURLMcode (*multi_remove_handle)(CURLM* multi, CURL* easy) = nullptr;
  CURLMcode (*multi_perform)(CURLM* multi, int* running) = nullptr;
  CURLMcode (*multi_poll)(CURLM* multi, curl_waitfd extra[], unsigned extra_count, int timeout_ms,
                          int* ready) = nullptr;
  CURLMsg* (*multi_info_read)(CURLM* multi, int* queued) = nullptr;
  CURLMcode (*multi_cleanup)(CURLM* multi) = nullptr;
  CURLSH* (*share_init)() = nullptr;
  CURLSHcode (*share_setopt)(CURLSH* share, CURLSHoption option, ...) = nullptr;
  CURLSHcode (*share_cleanup)(CURLSH* share) = nullptr;
  curl_slist* (*slist_append)(curl_slist* list, const char* line) = nullptr;
  void (*slist_free_all)(curl_slist* list) = nullptr;
};

/// The soname this build links against at run time (e.g. `libcurl.so.4`).
const char* curl_soname();

/// Opens `soname` and looks every function up (no initialisation): kNetwork naming the library,
/// why, and the package to install when it cannot be opened or lacks a function. The library
/// stays open for the life of the process.
Result<CurlApi> open_curl_api(const std::string& soname);

/// libcurl, opened and globally initialised once per process on the first call (thread-safe);
/// later calls return the same table, or the same error.
Result<const CurlApi*> curl_api();

}  // namespace wv::net
