// Proxy selection from HTTP_PROXY / HTTPS_PROXY / ALL_PROXY / NO_PROXY (the de-facto convention of
// curl, pip and requests; docs/network.md §Proxies). wvlock decides the proxy itself and hands
// curl the answer, so upper- and lower-case names both work and the rules are tested here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace wv::net {

/// The proxy configuration, usually read from the environment.
struct ProxySettings {
  std::string http_proxy;   ///< for http:// URLs; empty: none
  std::string https_proxy;  ///< for https:// URLs; empty: none
  std::string all_proxy;    ///< fallback for both schemes; empty: none
  std::string no_proxy;     ///< comma- or space-separated hosts, domains, IPv4 CIDRs, or `*`

  /// Reads `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, each lower-case name first,
  /// then the upper-case one, through `getenv` (injected so tests need no real environment).
  static ProxySettings from_environment(
      const std::function<std::optional<std::string>(const std::string&)>& getenv);
  /// from_environment() over the process environment.
  static ProxySettings from_process_environment();
};

/// The proxy URL to use for `url`, or "" for a direct connection (no proxy configured for its
/// scheme, a file: URL, or a NO_PROXY match).
std::string proxy_for_url(std::string_view url, const ProxySettings& settings);

/// True when `host` (optionally with `port`) is listed in `no_proxy`: `*` matches every host;
/// `example.org` and `.example.org` match it and its subdomains; an IP matches exactly; an
/// IPv4 `a.b.c.d/n` matches the addresses it covers; an entry `host:port` matches only that port.
bool no_proxy_matches(std::string_view host, std::uint16_t port, std::string_view no_proxy);

}  // namespace wv::net
