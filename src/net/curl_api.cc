#include "src/net/curl_api.h"

#include <dlfcn.h>

#include <mutex>

#include "src/base/str.h"

#ifndef WV_CURL_SONAME
#define WV_CURL_SONAME "libcurl.so.4"
#endif

namespace wv::net {

namespace {

/// The error of a library that cannot be used, with what to install.
Error unavailable(const std::string& soname, const std::string& why) {
  return make_error(ErrorCode::kNetwork,
                    str_cat("libcurl is needed for network access but cannot be loaded: ", why))
      .with_note(str_cat("hint: install the library that provides ", in_backticks(soname),
                         " (Debian and Ubuntu: `apt-get install libcurl4`), or work from "
                         "local files and the cache with --offline"));
}

template <class Function>
bool look_up(void* library, const char* name, Function& slot) {
  slot = reinterpret_cast<Function>(::dlsym(library, name));
  return slot != nullptr;
}

/// Opens libcurl and runs curl_global_init: the table, or why not.
Result<const CurlApi*> load_and_initialise() {
  static CurlApi api;
  WV_ASSIGN_OR_RETURN(api, open_curl_api(curl_soname()));
  // Once per process and never cleaned up: another fetcher may still be using curl.
  const CURLcode code = api.global_init(CURL_GLOBAL_DEFAULT);
  if (code != CURLE_OK) {
    return make_error(ErrorCode::kNetwork, str_cat("libcurl failed to initialise: ",
                                                   api.easy_strerror(code)));
  }
  return &api;
}

}  // namespace

const char* curl_soname() { return WV_CURL_SONAME; }

Result<CurlApi> open_curl_api(const std::string& soname) {
  // RTLD_LOCAL: curl's symbols stay out of the global namespace; nothing else resolves
  // against them.
  void* library = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    return unavailable(soname, why != nullptr ? std::string(why) : str_cat("cannot open ", soname));
  }
  CurlApi api;
  const char* missing = nullptr;
  auto need = [&](const char* name, auto& slot) {
    if (missing == nullptr && !look_up(library, name, slot)) missing = name;
  };
  need("curl_global_init", api.global_init);
  need("curl_easy_init", api.easy_init);
  need("curl_easy_setopt", api.easy_setopt);
  need("curl_easy_getinfo", api.easy_getinfo);
  need("curl_easy_cleanup", api.easy_cleanup);
  need("curl_easy_strerror", api.easy_strerror);
  need("curl_multi_init", api.multi_init);
  need("curl_multi_add_handle", api.multi_add_handle);
  need("curl_multi_remove_handle", api.multi_remove_handle);
  need("curl_multi_perform", api.multi_perform);
  need("curl_multi_poll", api.multi_poll);
  need("curl_multi_info_read", api.multi_info_read);
  need("curl_multi_cleanup", api.multi_cleanup);
  need("curl_share_init", api.share_init);
  need("curl_share_setopt", api.share_setopt);
  need("curl_share_cleanup", api.share_cleanup);
  need("curl_slist_append", api.slist_append);
  need("curl_slist_free_all", api.slist_free_all);
  if (missing != nullptr) {
    // An older libcurl than the headers this build used (curl_multi_poll needs 7.66).
    return unavailable(soname, str_cat(in_backticks(soname), " has no `", missing,
                                       "` (libcurl 7.85 or newer is needed)"));
  }
  return api;
}

Result<const CurlApi*> curl_api() {
  static std::once_flag once;
  static Result<const CurlApi*> loaded = make_error(ErrorCode::kNetwork, "libcurl not loaded");
  std::call_once(once, [] { loaded = load_and_initialise(); });
  return loaded;
}

}  // namespace wv::net
