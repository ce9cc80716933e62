#include "src/net/proxy.h"

#include <catch2/catch.hpp>
#include <map>

using wv::net::no_proxy_matches;
using wv::net::proxy_for_url;
using wv::net::ProxySettings;

namespace {

ProxySettings from(std::map<std::string, std::string> environment) {
  return ProxySettings::from_environment(
      [&](const std::string& name) -> std::optional<std::string> {
        auto it = environment.find(name);
        if (it == environment.end()) return std::nullopt;
        return it->second;
      });
}

}  // namespace

TEST_CASE("proxy: environment names in either case, lower-case first", "[net][proxy]") {
  ProxySettings upper = from({{"HTTP_PROXY", "http://p1:3128"},
                              {"HTTPS_PROXY", "http://p2:3128"},
                              {"NO_PROXY", "internal"}});
  CHECK(upper.http_proxy == "http://p1:3128");
  CHECK(upper.https_proxy == "http://p2:3128");
  CHECK(upper.no_proxy == "internal");
  ProxySettings both = from({{"http_proxy", "http://lower"}, {"HTTP_PROXY", "http://upper"}});
  CHECK(both.http_proxy == "http://lower");
  ProxySettings empty_lower = from({{"http_proxy", ""}, {"HTTP_PROXY", "http://upper"}});
  CHECK(empty_lower.http_proxy == "http://upper");
  CHECK(from({}).http_proxy.empty());
}

TEST_CASE("proxy: the proxy follows the scheme, ALL_PROXY is the fallback", "[net][proxy]") {
  ProxySettings settings{"http://hp:1", "http://sp:2", "socks5://all:3", ""};
  CHECK(proxy_for_url("http://pypi.org/simple/", settings) == "http://hp:1");
  CHECK(proxy_for_url("https://pypi.org/simple/", settings) == "http://sp:2");
  CHECK(proxy_for_url("file:///tmp/x", settings).empty());
  CHECK(proxy_for_url("garbage", settings).empty());
  ProxySettings only_all{"", "", "socks5://all:3", ""};
  CHECK(proxy_for_url("https://pypi.org/", only_all) == "socks5://all:3");
  CHECK(proxy_for_url("https://pypi.org/", ProxySettings{}).empty());
}

TEST_CASE("proxy: NO_PROXY matches hosts, domain suffixes, IPs, CIDRs, ports and *",
          "[net][proxy]") {
  CHECK(no_proxy_matches("example.org", 443, "example.org"));
  CHECK(no_proxy_matches("files.example.org", 443, "example.org"));
  CHECK(no_proxy_matches("files.example.org", 443, ".example.org"));
  CHECK(no_proxy_matches("FILES.Example.ORG", 443, "example.org"));
  CHECK_FALSE(no_proxy_matches("badexample.org", 443, "example.org"));
  CHECK_FALSE(no_proxy_matches("example.org.evil", 443, "example.org"));
  CHECK(no_proxy_matches("anything", 80, "*"));
  CHECK(no_proxy_matches("b.test", 80, "a.test, b.test"));
  CHECK(no_proxy_matches("b.test", 80, "a.test b.test"));
  CHECK(no_proxy_matches("127.0.0.1", 80, "localhost,127.0.0.1"));
  CHECK_FALSE(no_proxy_matches("127.0.0.2", 80, "127.0.0.1"));
  CHECK(no_proxy_matches("10.1.2.3", 80, "10.0.0.0/8"));
  CHECK_FALSE(no_proxy_matches("11.1.2.3", 80, "10.0.0.0/8"));
  CHECK(no_proxy_matches("192.168.5.9", 80, "192.168.4.0/23"));
  CHECK(no_proxy_matches("example.org", 8080, "example.org:8080"));
  CHECK_FALSE(no_proxy_matches("example.org", 443, "example.org:8080"));
  CHECK(no_proxy_matches("[::1]", 80, "::1"));
  CHECK(no_proxy_matches("[::1]", 80, "[::1]"));
  CHECK_FALSE(no_proxy_matches("example.org", 80, ""));
  CHECK_FALSE(no_proxy_matches("example.org", 80, ".,, ."));
  CHECK_FALSE(no_proxy_matches("10.1.2.3", 80, "10.0.0.0/99"));

  ProxySettings settings{"http://proxy:3128", "http://proxy:3128", "", "internal.corp,10.0.0.0/8"};
  CHECK(proxy_for_url("https://pkgs.internal.corp/simple/", settings).empty());
  CHECK(proxy_for_url("http://10.9.9.9:8080/simple/", settings).empty());
  CHECK(proxy_for_url("https://pypi.org/simple/", settings) == "http://proxy:3128");
}
