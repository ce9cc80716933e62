#include "src/net/cache_metadata.h"

#include <cstdint>

#include "src/base/credentials.h"
#include "src/base/hex.h"
#include "src/base/str.h"

namespace wv::net {

namespace {

// One line, and bare: a sidecar is a file wvlock writes, so no URL in it keeps its user-info,
// whatever the caller passed (a redirect's Location header included).
std::string one_line(std::string_view value) {
  std::string out = strip_credentials(value);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\0') c = ' ';
  }
  return out;
}

}  // namespace

std::string serialize_cache_metadata(const CacheMetadata& metadata) {
  std::string out = str_cat(kCacheMetadataMagic, "\n");
  out += str_cat("url ", one_line(metadata.url), "\n");
  out += str_cat("effective-url ", one_line(metadata.effective_url), "\n");
  out += str_cat("status ", metadata.status, "\n");
  out += str_cat("body-size ", metadata.body_size, "\n");
  out += str_cat("body-sha256 ", one_line(metadata.body_sha256), "\n");
  out += str_cat("stored-at ", metadata.stored_at, "\n");
  out += str_cat("fresh-until ", metadata.fresh_until, "\n");
  for (const auto& [name, value] : metadata.headers) {
    std::string clean_name = one_line(name);
    for (char& c : clean_name) {
      if (c == ' ' || c == ':') c = '-';
    }
    out += str_cat("header ", clean_name, ": ", one_line(value), "\n");
  }
  return out;
}

Result<CacheMetadata> parse_cache_metadata(std::string_view text) {
  CacheMetadata metadata;
  bool has_url = false, has_status = false, has_size = false, has_sha = false;
  std::vector<std::string_view> lines = split(text, '\n');
  if (lines.empty() || lines[0] != kCacheMetadataMagic) {
    return make_parse_error("cache metadata", text.substr(0, text.find('\n')), 0,
                            str_cat("the first line `", kCacheMetadataMagic, "`"));
  }
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    std::size_t space = line.find(' ');
    std::string_view key = line.substr(0, space);
    std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
    if (key == "url") {
      metadata.url = std::string(value);
      has_url = true;
    } else if (key == "effective-url") {
      metadata.effective_url = std::string(value);
    } else if (key == "status") {
      std::optional<std::uint64_t> status = parse_uint64(value);
      if (!status || *status < 100 || *status > 599) {
        return make_parse_error("cache metadata line", line, 0, "an HTTP status after `status `");
      }
      metadata.status = int(*status);
      has_status = true;
    } else if (key == "body-size") {
      std::optional<std::uint64_t> size = parse_uint64(value);
      if (!size)
        return make_parse_error("cache metadata line", line, 0, "a byte count after `body-size `");
      metadata.body_size = *size;
      has_size = true;
    } else if (key == "body-sha256") {
      if (!is_hex64(value)) {
        return make_parse_error("cache metadata line", line, 0,
                                "64 hex digits after `body-sha256 `");
      }
      metadata.body_sha256 = std::string(value);
      has_sha = true;
    } else if (key == "stored-at" || key == "fresh-until") {
      // Optional: a sidecar without them is stale (revalidated on its next use).
      const bool negative = !value.empty() && value.front() == '-';
      std::optional<std::uint64_t> seconds = parse_uint64(negative ? value.substr(1) : value);
      if (!seconds || *seconds > std::uint64_t(INT64_MAX)) {
        return make_parse_error("cache metadata line", line, 0,
                                str_cat("Unix seconds after `", key, " `"));
      }
      std::int64_t signed_seconds = negative ? -std::int64_t(*seconds) : std::int64_t(*seconds);
      (key == "stored-at" ? metadata.stored_at : metadata.fresh_until) = signed_seconds;
    } else if (key == "header") {
      std::size_t colon = value.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        return make_parse_error("cache metadata line", line, 0, "`header NAME: VALUE`");
      }
      metadata.headers[to_lower(value.substr(0, colon))] =
          std::string(trim(value.substr(colon + 1)));
    } else {
      return make_parse_error(
          "cache metadata line", line, 0,
          "one of `url`, `effective-url`, `status`, `body-size`, `body-sha256`, `stored-at`, "
          "`fresh-until`, `header`");
    }
  }
  if (!has_url || !has_status || !has_size || !has_sha) {
    return make_error(
        ErrorCode::kParse,
        "invalid cache metadata: expected `url`, `status`, `body-size` and `body-sha256`");
  }
  return metadata;
}

}  // namespace wv::net
