// libcurl opened on first use (net/curl_api.h): the real library loads, a missing one is a
// network error that names it and the package to install.
#include "src/net/curl_api.h"

#include <catch2/catch.hpp>

namespace wv::net {
namespace {

TEST_CASE("curl api: the build's soname opens and every function is found", "[net][curl][dlopen]") {
  CHECK(std::string(curl_soname()).find("libcurl") != std::string::npos);
  Result<CurlApi> api = open_curl_api(curl_soname());
  REQUIRE(api.has_value());
  CHECK(api->easy_init != nullptr);
  CHECK(api->multi_poll != nullptr);
  CHECK(api->slist_free_all != nullptr);
  Result<const CurlApi*> shared = curl_api();
  REQUIRE(shared.has_value());
  CHECK(*shared == *curl_api());  // one table per process
}

TEST_CASE("curl api: a missing library is a network error naming it and the package",
          "[net][curl][dlopen]") {
  Result<CurlApi> api = open_curl_api("libcurl-absent.so.99");
  REQUIRE_FALSE(api.has_value());
  CHECK(api.error().code == ErrorCode::kNetwork);
  const std::string text = api.error().to_string();
  CHECK(text.find("libcurl-absent.so.99") != std::string::npos);
  CHECK(text.find("libcurl4") != std::string::npos);
}

TEST_CASE("curl api: a library without curl's functions is refused by name", "[net][curl][dlopen]") {
  Result<CurlApi> api = open_curl_api("libc.so.6");
  REQUIRE_FALSE(api.has_value());
  CHECK(api.error().message.find("curl_global_init") != std::string::npos);
}

}  // namespace
}  // namespace wv::net
