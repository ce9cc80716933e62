// AuthFetcher over a fake upstream that plays an index with Basic auth: which URLs get which
// credentials, the keyring's arguments and its once-a-run cache, and the 401/403 messages.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/net/auth_fetcher.h"
#include "src/net/caching_fetcher.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::FetchRequest;
using wv::FetchResponse;
using wv::Result;
using wv::net::AuthFetcher;
using wv::net::AuthOptions;

/// Records the URLs it is asked for; answers 200 when the URL carries `accepted` user info
/// (or always, when `accepted` is empty), else `refusal`.
class FakeIndex final : public wv::Fetcher {
 public:
  explicit FakeIndex(std::string accepted = "", int refusal = 401)
      : accepted_(std::move(accepted)), refusal_(refusal) {}
  Result<FetchResponse> fetch(const FetchRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    urls.push_back(request.url);
    FetchResponse response;
    response.effective_url = request.url;
    const bool allowed = accepted_.empty() || request.url.find("://" + accepted_ + "@") != std::string::npos;
    response.status = allowed ? 200 : refusal_;
    response.body = allowed ? "<html>page</html>" : "no";
    response.headers["etag"] = "\"e1\"";
    return response;
  }
  std::vector<std::string> urls;

 private:
  std::string accepted_;
  int refusal_;
  std::mutex mutex_;
};

FetchRequest get(const std::string& url) {
  FetchRequest request;
  request.url = url;
  return request;
}

AuthOptions options_with(std::map<std::string, std::string> environment) {
  AuthOptions options;
  options.indexes = {{"internal", "https://pkgs.example:8443/simple/"}};
  options.getenv = [environment](const std::string& name) -> std::optional<std::string> {
    auto found = environment.find(name);
    if (found == environment.end()) return std::nullopt;
    return found->second;
  };
  options.netrc_file = "/home/me/.netrc";
  return options;
}

}  // namespace

TEST_CASE("auth fetcher: index variables follow uv's naming rule", "[net][auth]") {
  CHECK(wv::net::index_variable("internal", "USERNAME") == "WVLOCK_INDEX_INTERNAL_USERNAME");
  CHECK(wv::net::index_variable("my-index.v2", "PASSWORD") == "WVLOCK_INDEX_MY_INDEX_V2_PASSWORD");
  CHECK(wv::net::index_variable("Corp_PyPI", "USERNAME") == "WVLOCK_INDEX_CORP_PYPI_USERNAME");
}

TEST_CASE("auth fetcher: an index's environment credentials go to its URLs and its host's files only",
          "[net][auth]") {
  FakeIndex upstream;
  AuthFetcher fetcher(upstream, options_with({{"WVLOCK_INDEX_INTERNAL_USERNAME", "alice"},
                                              {"WVLOCK_INDEX_INTERNAL_PASSWORD", "p@ss:w/rd"}}));
  const std::vector<std::string> urls = {
      "https://pkgs.example:8443/simple/demo/",          // under the index
      "https://pkgs.example:8443/packages/demo-1.0.whl",  // a file it lists on its host
      "https://pkgs.example/simple/demo/",                // another port
      "http://pkgs.example:8443/simple/demo/",            // another scheme
      "https://cdn.example:8443/simple/demo/",            // another host
      "file:///tmp/demo.whl",
  };
  std::vector<FetchRequest> requests;
  for (const std::string& url : urls) requests.push_back(get(url));
  std::vector<Result<FetchResponse>> answers = fetcher.fetch_all(requests);
  REQUIRE(upstream.urls.size() == urls.size());
  // The password is percent-encoded in the user info curl decodes.
  CHECK(upstream.urls[0] == "https://alice:p%40ss%3Aw%2Frd@pkgs.example:8443/simple/demo/");
  CHECK(upstream.urls[1] == "https://alice:p%40ss%3Aw%2Frd@pkgs.example:8443/packages/demo-1.0.whl");
  for (std::size_t i = 2; i < urls.size(); ++i) CHECK(upstream.urls[i] == urls[i]);
  // The caller never sees the added user info, not even in effective_url.
  for (std::size_t i = 0; i < urls.size(); ++i) {
    REQUIRE(answers[i]);
    CHECK(answers[i]->effective_url == urls[i]);
  }
}

TEST_CASE("auth fetcher: URL credentials win, then the index URL's, and the longest prefix picks the index",
          "[net][auth]") {
  FakeIndex upstream;
  AuthOptions options = options_with({{"WVLOCK_INDEX_TEAM_USERNAME", "bob"},
                                      {"WVLOCK_INDEX_TEAM_PASSWORD", "team-pw"},
                                      {"WVLOCK_INDEX_INTERNAL_USERNAME", "alice"},
                                      {"WVLOCK_INDEX_INTERNAL_PASSWORD", "env-pw"},
                                      {"WVLOCK_INDEX_CORP_USERNAME", "carol"},
                                      {"WVLOCK_INDEX_CORP_PASSWORD", "env-pw"}});
  options.indexes = {{"internal", "https://pkgs.example:8443/simple"},
                     {"team", "https://pkgs.example:8443/simple/team/"},
                     {"corp", "https://carol:url-pw@corp.example/pypi/"}};
  AuthFetcher fetcher(upstream, options);
  REQUIRE(fetcher.fetch(get("https://pkgs.example:8443/simple/team/demo/")));
  REQUIRE(fetcher.fetch(get("https://pkgs.example:8443/simple/demo/")));
  REQUIRE(fetcher.fetch(get("https://dave:own-pw@pkgs.example:8443/simple/demo/")));
  REQUIRE(fetcher.fetch(get("https://corp.example/pypi/demo/")));
  REQUIRE(upstream.urls.size() == 4);
  CHECK(upstream.urls[0] == "https://bob:team-pw@pkgs.example:8443/simple/team/demo/");
  CHECK(upstream.urls[1] == "https://alice:env-pw@pkgs.example:8443/simple/demo/");
  CHECK(upstream.urls[2] == "https://dave:own-pw@pkgs.example:8443/simple/demo/");
  CHECK(upstream.urls[3] == "https://carol:url-pw@corp.example/pypi/demo/");
}

TEST_CASE("auth fetcher: a username without a password asks the keyring with the index URL, once a run",
          "[net][auth][keyring]") {
  FakeIndex upstream("alice:from-keyring");
  AuthOptions options = options_with({{"WVLOCK_INDEX_INTERNAL_USERNAME", "alice"}});
  std::vector<std::pair<std::string, std::string>> asked;
  std::map<std::string, std::string> keyring = {{"pkgs.example:8443", "from-keyring"}};
  options.keyring = [&](const std::string& service, const std::string& username) -> std::optional<std::string> {
    asked.emplace_back(service, username);
    auto found = keyring.find(service);
    if (found == keyring.end()) return std::nullopt;
    return found->second;
  };
  AuthFetcher fetcher(upstream, options);

  Result<FetchResponse> first = fetcher.fetch(get("https://pkgs.example:8443/simple/demo/"));
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK(first->effective_url == "https://pkgs.example:8443/simple/demo/");
  // uv's order: the index URL, then host:port; the username with both.
  using Asked = std::vector<std::pair<std::string, std::string>>;
  CHECK(asked == Asked{{"https://pkgs.example:8443/simple/", "alice"}, {"pkgs.example:8443", "alice"}});
  REQUIRE(upstream.urls.size() == 2);
  CHECK(upstream.urls[0] == "https://alice@pkgs.example:8443/simple/demo/");  // netrc may complete it
  CHECK(upstream.urls[1] == "https://alice:from-keyring@pkgs.example:8443/simple/demo/");

  // Later requests of the run use the answer at once: no second keyring call, no second 401.
  Result<FetchResponse> file = fetcher.fetch(get("https://pkgs.example:8443/packages/demo-1.0.whl"));
  REQUIRE(file);
  CHECK(file->status == 200);
  CHECK(asked.size() == 2);
  REQUIRE(upstream.urls.size() == 3);
  CHECK(upstream.urls[2] == "https://alice:from-keyring@pkgs.example:8443/packages/demo-1.0.whl");
}

TEST_CASE("auth fetcher: without a username the keyring is not asked (uv's rule), and says so",
          "[net][auth][keyring]") {
  FakeIndex upstream("alice:pw");
  AuthOptions options = options_with({});
  int calls = 0;
  options.keyring = [&](const std::string&, const std::string&) -> std::optional<std::string> {
    ++calls;
    return "pw";
  };
  AuthFetcher fetcher(upstream, options);
  Result<FetchResponse> answer = fetcher.fetch(get("https://pkgs.example:8443/simple/demo/"));
  REQUIRE_FALSE(answer);
  CHECK(calls == 0);
  const std::string text = answer.error().to_string();
  CHECK(text.find("asked only when a username is known") != std::string::npos);
}

TEST_CASE("auth fetcher: a final 401 or 403 names the index and where credentials are read, never the password",
          "[net][auth]") {
  SECTION("no credentials at all") {
    FakeIndex upstream("alice:right");
    AuthFetcher fetcher(upstream, options_with({}));
    Result<FetchResponse> answer = fetcher.fetch(get("https://pkgs.example:8443/simple/demo/"));
    REQUIRE_FALSE(answer);
    CHECK(answer.error().code == wv::ErrorCode::kNetwork);
    CHECK(answer.error().message ==
          "cannot fetch `https://pkgs.example:8443/simple/demo/`: the server answered HTTP 401 "
          "(unauthorized) for index `internal` (`https://pkgs.example:8443/simple/`)");
    const std::string text = answer.error().to_string();
    INFO(text);
    CHECK(text.find("carried no credentials") != std::string::npos);
    CHECK(text.find("WVLOCK_INDEX_INTERNAL_USERNAME and WVLOCK_INDEX_INTERNAL_PASSWORD") != std::string::npos);
    CHECK(text.find("the netrc file `/home/me/.netrc` (NETRC names another)") != std::string::npos);
    CHECK(text.find("--keyring-provider subprocess") != std::string::npos);
  }
  SECTION("refused credentials from the environment") {
    FakeIndex upstream("alice:right");
    AuthFetcher fetcher(upstream, options_with({{"WVLOCK_INDEX_INTERNAL_USERNAME", "alice"},
                                                {"WVLOCK_INDEX_INTERNAL_PASSWORD", "wrong-pw"}}));
    Result<FetchResponse> answer = fetcher.fetch(get("https://pkgs.example:8443/packages/demo-1.0.whl"));
    REQUIRE_FALSE(answer);
    const std::string text = answer.error().to_string();
    INFO(text);
    CHECK(text.find("`https://pkgs.example:8443/packages/demo-1.0.whl`") != std::string::npos);
    CHECK(text.find("credentials from WVLOCK_INDEX_INTERNAL_USERNAME and "
                    "WVLOCK_INDEX_INTERNAL_PASSWORD, and the server refused them") != std::string::npos);
    CHECK(text.find("wrong-pw") == std::string::npos);
  }
  SECTION("a 403 for a URL of no index") {
    FakeIndex upstream("alice:right", 403);
    AuthFetcher fetcher(upstream, options_with({}));
    Result<FetchResponse> answer = fetcher.fetch(get("https://files.example/demo-1.0.whl"));
    REQUIRE_FALSE(answer);
    const std::string text = answer.error().to_string();
    INFO(text);
    CHECK(answer.error().message ==
          "cannot fetch `https://files.example/demo-1.0.whl`: the server answered HTTP 403 (forbidden)");
    CHECK(text.find("user info in the URL") != std::string::npos);
    CHECK(text.find("WVLOCK_INDEX_") == std::string::npos);
  }
}

TEST_CASE("auth fetcher: credentials never reach the cache's keys or sidecars", "[net][auth][cache]") {
  wv::test::TempDir cache_dir;
  FakeIndex upstream;
  AuthOptions options = options_with({{"WVLOCK_INDEX_INTERNAL_USERNAME", "alice"},
                                      {"WVLOCK_INDEX_INTERNAL_PASSWORD", "env-secret"}});
  options.indexes.push_back({"corp", "https://carol:url-secret@corp.example/pypi/"});
  AuthFetcher auth(upstream, options);
  wv::RealFileSystem file_system;
  wv::net::CachingFetcher cache(auth, file_system, {cache_dir.path(), false});
  REQUIRE(cache.fetch(get("https://pkgs.example:8443/simple/demo/")));
  REQUIRE(cache.fetch(get("https://carol:url-secret@corp.example/pypi/demo/")));
  // The same page without the user info is the same entry (the key has no credentials).
  Result<FetchResponse> again = cache.fetch(get("https://corp.example/pypi/demo/"));
  REQUIRE(again);
  CHECK(again->status == 200);

  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache_dir.path())) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(entry.path().string() << "\n" << content);
    CHECK(content.find("env-secret") == std::string::npos);
    CHECK(content.find("url-secret") == std::string::npos);
    CHECK(content.find("alice") == std::string::npos);
  }
  CHECK(files == 4);  // two pages: a body and a sidecar each
}
