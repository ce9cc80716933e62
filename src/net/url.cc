#include "src/net/url.h"

#include "src/base/credentials.h"
#include "src/base/str.h"

namespace wv::net {

namespace {

bool valid_scheme(std::string_view scheme) {
  if (scheme.empty() || !is_ascii_alpha(scheme[0])) return false;
  for (char c : scheme) {
    if (!is_ascii_alnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int high = hex_digit_value(text[i + 1]);
    int low = hex_digit_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(char(high * 16 + low));
    i += 2;
  }
  return out;
}

Result<UrlParts> split_url(std::string_view url) {
  std::size_t colon = url.find(':');
  if (colon == std::string_view::npos || !valid_scheme(url.substr(0, colon))) {
    return make_error(ErrorCode::kInvalidInput, str_cat("invalid URL ", in_backticks(url),
                                                        ": expected `scheme://host/path`"));
  }
  UrlParts parts;
  parts.scheme = to_lower(url.substr(0, colon));
  std::string_view rest = url.substr(colon + 1);
  if (rest.substr(0, 2) != "//") {  // no authority (`file:/path`)
    parts.path = std::string(rest);
    return parts;
  }
  rest.remove_prefix(2);
  std::size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  parts.path =
      authority_end == std::string_view::npos ? "" : std::string(rest.substr(authority_end));
  std::size_t fragment = parts.path.find('#');
  if (fragment != std::string::npos) parts.path.resize(fragment);
  std::size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    parts.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {  // IPv6 literal
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("invalid URL ", in_backticks(redact_url(url)),
                                ": expected `]` after an IPv6 address"));
    }
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("invalid URL ", in_backticks(redact_url(url)),
                                  ": expected `:port` after an IPv6 address"));
      }
      port = after.substr(1);
    }
  } else if (std::size_t port_colon = authority.rfind(':'); port_colon != std::string_view::npos) {
    host = authority.substr(0, port_colon);
    port = authority.substr(port_colon + 1);
  }
  parts.host = to_lower(host);
  if (!port.empty()) {
    std::optional<std::uint64_t> number = parse_uint64(port);
    if (!number || *number > 65535) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("invalid URL ", in_backticks(redact_url(url)),
                                ": expected a port number after `:`"));
    }
    parts.port = std::uint16_t(*number);
  }
  return parts;
}

std::uint16_t effective_port(const UrlParts& parts) {
  if (parts.port) return *parts.port;
  if (parts.scheme == "http") return 80;
  if (parts.scheme == "https") return 443;
  return 0;
}

bool is_file_url(std::string_view url) {
  return url.size() >= 5 && iequals(url.substr(0, 5), "file:");
}

Result<std::string> file_url_to_path(std::string_view url) {
  WV_ASSIGN_OR_RETURN(UrlParts parts, split_url(url));
  if (parts.scheme != "file") {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("expected a `file:` URL, got ", in_backticks(redact_url(url))));
  }
  if (!parts.host.empty() && parts.host != "localhost") {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("cannot read ", in_backticks(url),
                              ": file URLs on another host are not supported"));
  }
  std::string_view path = parts.path;
  path = path.substr(0, path.find('?'));
  std::optional<std::string> decoded = percent_decode(path);
  if (!decoded || decoded->empty() || (*decoded)[0] != '/' ||
      decoded->find('\0') != std::string::npos) {
    return make_error(ErrorCode::kInvalidInput, str_cat("invalid file URL ", in_backticks(url),
                                                        ": expected `file:///absolute/path`"));
  }
  return *decoded;
}

// The one credential rule (base/credentials.h): a user name alone can be a token, so all of
// the user-info goes.
std::string redact_url(std::string_view url) { return redact_credentials(url); }

}  // namespace wv::net
