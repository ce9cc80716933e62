#include "src/net/http_freshness.h"

#include <algorithm>
#include <ctime>

#include "src/base/str.h"

namespace wv::net {

namespace {

std::optional<std::int64_t> parse_with(std::string_view text, const char* format) {
  std::tm parts{};
  std::string copy(trim(text));
  const char* end = ::strptime(copy.c_str(), format, &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return std::int64_t(::timegm(&parts));
}

// The value of directive `name` in a Cache-Control header ("" for one without a value), or
// nullopt when absent. Directive names are case-insensitive; quoted values lose their quotes.
std::optional<std::string> directive(std::string_view header, std::string_view name) {
  for (std::string_view item : split(header, ',')) {
    item = trim(item);
    std::size_t equals = item.find('=');
    std::string_view key = trim(item.substr(0, equals));
    if (!iequals(key, name)) continue;
    if (equals == std::string_view::npos) return std::string();
    std::string_view value = trim(item.substr(equals + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return std::string(value);
  }
  return std::nullopt;
}

const std::string* header(const std::map<std::string, std::string>& headers, const char* name) {
  auto it = headers.find(name);
  return it == headers.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<std::int64_t> parse_http_date(std::string_view text) {
  for (const char* format : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
                             "%a %b %e %H:%M:%S %Y"}) {
    if (auto seconds = parse_with(text, format)) return seconds;
  }
  return std::nullopt;
}

std::int64_t fresh_until(const std::map<std::string, std::string>& headers,
                         std::int64_t received_at) {
  const std::string* control = header(headers, "cache-control");
  if (control != nullptr) {
    if (directive(*control, "no-cache") || directive(*control, "no-store")) return received_at;
    std::optional<std::string> max_age = directive(*control, "max-age");
    // RFC 8246: `immutable` holds while the response is fresh; without a stated lifetime it
    // is fresh for ever (as uv reads it), with one the lifetime stands.
    if (directive(*control, "immutable") && !max_age && !header(headers, "expires")) {
      return kFreshForever;
    }
    if (max_age) {
      std::optional<std::uint64_t> seconds = parse_uint64(*max_age);
      if (!seconds) return received_at;  // RFC 9111 §4.2.1: an invalid max-age is stale
      std::int64_t lifetime = std::int64_t(std::min<std::uint64_t>(*seconds, 1ull << 40));
      if (const std::string* age = header(headers, "age")) {
        if (std::optional<std::uint64_t> aged = parse_uint64(trim(*age))) {
          lifetime -= std::int64_t(std::min<std::uint64_t>(*aged, 1ull << 40));
        }
      }
      return lifetime > 0 ? received_at + lifetime : received_at;
    }
  } else if (const std::string* pragma = header(headers, "pragma");
             pragma != nullptr && to_lower(*pragma).find("no-cache") != std::string::npos) {
    return received_at;
  }
  if (const std::string* expires = header(headers, "expires")) {
    std::optional<std::int64_t> until = parse_http_date(*expires);
    if (!until) return received_at;  // "0" and other invalid dates mean already expired
    std::int64_t date = received_at;
    if (const std::string* sent = header(headers, "date")) {
      if (std::optional<std::int64_t> parsed = parse_http_date(*sent)) date = *parsed;
    }
    return *until > date ? received_at + (*until - date) : received_at;
  }
  return received_at;
}

}  // namespace wv::net
