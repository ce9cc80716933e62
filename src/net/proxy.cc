#include "src/net/proxy.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "src/base/str.h"
#include "src/base/url.h"

namespace wv::net {

namespace {

std::optional<std::uint32_t> parse_ipv4(std::string_view text) {
  std::vector<std::string_view> pieces = split(text, '.');
  if (pieces.size() != 4) return std::nullopt;
  std::uint32_t address = 0;
  for (std::string_view piece : pieces) {
    if (piece.empty() || piece.size() > 3) return std::nullopt;
    std::optional<std::uint64_t> value = parse_uint64(piece);
    if (!value || *value > 255) return std::nullopt;
    address = (address << 8) | std::uint32_t(*value);
  }
  return address;
}

bool entry_matches(std::string_view host, std::uint16_t port, std::string_view entry) {
  if (entry == "*") return true;
  std::string_view entry_host = entry;
  std::optional<std::uint64_t> entry_port;
  // `host:port` (not an IPv6 literal, whose colons are inside brackets)
  if (std::size_t colon = entry.rfind(':'); colon != std::string_view::npos &&
                                            entry.find(']') == std::string_view::npos &&
                                            entry.find(':') == colon) {
    entry_port = parse_uint64(entry.substr(colon + 1));
    if (!entry_port) return false;
    entry_host = entry.substr(0, colon);
  }
  if (entry_port && *entry_port != port) return false;
  if (std::size_t slash = entry_host.find('/'); slash != std::string_view::npos) {
    std::optional<std::uint32_t> network = parse_ipv4(entry_host.substr(0, slash));
    std::optional<std::uint64_t> bits = parse_uint64(entry_host.substr(slash + 1));
    std::optional<std::uint32_t> address = parse_ipv4(host);
    if (!network || !bits || *bits > 32 || !address) return false;
    std::uint32_t mask = *bits == 0 ? 0 : ~std::uint32_t(0) << (32 - *bits);
    return (*network & mask) == (*address & mask);
  }
  while (!entry_host.empty() && entry_host.front() == '.') entry_host.remove_prefix(1);
  if (entry_host.empty()) return false;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (entry_host.size() >= 2 && entry_host.front() == '[' && entry_host.back() == ']') {
    entry_host = entry_host.substr(1, entry_host.size() - 2);
  }
  if (iequals(host, entry_host)) return true;
  // a domain suffix on a label boundary: `example.org` covers `files.example.org`
  return host.size() > entry_host.size() && host[host.size() - entry_host.size() - 1] == '.' &&
         iequals(host.substr(host.size() - entry_host.size()), entry_host);
}

}  // namespace

ProxySettings ProxySettings::from_environment(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  auto lookup = [&](const std::string& lower) -> std::string {
    if (std::optional<std::string> value = getenv(lower); value && !value->empty()) return *value;
    std::string upper;
    for (char c : lower) upper.push_back(c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c);
    if (std::optional<std::string> value = getenv(upper); value && !value->empty()) return *value;
    return "";
  };
  ProxySettings settings;
  settings.http_proxy = lookup("http_proxy");
  settings.https_proxy = lookup("https_proxy");
  settings.all_proxy = lookup("all_proxy");
  settings.no_proxy = lookup("no_proxy");
  return settings;
}

ProxySettings ProxySettings::from_process_environment() {
  return from_environment([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

bool no_proxy_matches(std::string_view host, std::uint16_t port, std::string_view no_proxy) {
  std::string list(no_proxy);
  for (char& c : list) {
    if (c == ',') c = ' ';
  }
  for (std::string_view entry : split_whitespace(list)) {
    if (entry_matches(host, port, entry)) return true;
  }
  return false;
}

std::string proxy_for_url(std::string_view url, const ProxySettings& settings) {
  Result<UrlParts> parts = split_url(url);
  if (!parts) return "";
  const std::string* proxy = nullptr;
  if (parts->scheme == "http") {
    proxy = &settings.http_proxy;
  } else if (parts->scheme == "https") {
    proxy = &settings.https_proxy;
  } else {
    return "";
  }
  if (proxy->empty()) proxy = &settings.all_proxy;
  if (proxy->empty()) return "";
  if (no_proxy_matches(parts->host, effective_port(*parts), settings.no_proxy)) return "";
  return *proxy;
}

}  // namespace wv::net
