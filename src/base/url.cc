// The URL questions of url.h: one answer each.
#include "src/base/url.h"

#include <vector>

#include "src/base/credentials.h"
#include "src/base/hex.h"
#include "src/base/str.h"

namespace wv {
namespace {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

// The length of the scheme `text` starts with (0 when none):
// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
std::size_t scheme_length(std::string_view text) {
  if (text.empty() || !is_ascii_alpha(text[0])) return 0;
  std::size_t i = 1;
  while (i < text.size() && (is_ascii_alnum(text[i]) || text[i] == '+' || text[i] == '-' ||
                             text[i] == '.')) {
    ++i;
  }
  return i < text.size() && text[i] == ':' ? i : 0;
}

// The parts of an RFC 3986 URI reference (§3): scheme, authority, path, query, fragment.
struct UriParts {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

// Appendix B's regular expression, hand-written.
UriParts split_uri(std::string_view text) {
  UriParts parts;
  std::size_t pos = 0;
  if (const std::size_t scheme = scheme_length(text); scheme > 0) {
    parts.scheme = std::string(text.substr(0, scheme));
    pos = scheme + 1;
  }
  if (text.substr(pos, 2) == "//") {
    std::size_t end = text.find_first_of("/?#", pos + 2);
    if (end == std::string_view::npos) end = text.size();
    parts.authority = std::string(text.substr(pos + 2, end - pos - 2));
    pos = end;
  }
  std::size_t end = text.find_first_of("?#", pos);
  if (end == std::string_view::npos) end = text.size();
  parts.path = std::string(text.substr(pos, end - pos));
  pos = end;
  if (pos < text.size() && text[pos] == '?') {
    end = text.find('#', pos);
    if (end == std::string_view::npos) end = text.size();
    parts.query = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end;
  }
  if (pos < text.size() && text[pos] == '#') parts.fragment = std::string(text.substr(pos + 1));
  return parts;
}

// §5.2.4.
std::string remove_dot_segments(std::string_view input) {
  std::vector<std::string_view> output;
  bool absolute = !input.empty() && input.front() == '/';
  std::vector<std::string_view> segments = split(absolute ? input.substr(1) : input, '/');
  bool trailing_slash = false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string_view segment = segments[i];
    bool last = i + 1 == segments.size();
    if (segment == ".") {
      if (last) trailing_slash = true;
    } else if (segment == "..") {
      // A relative path keeps the `..` it cannot cancel ("../x" stays "../x").
      if (!absolute && (output.empty() || output.back() == "..")) {
        output.push_back(segment);
      } else if (!output.empty()) {
        output.pop_back();
      }
      if (last) trailing_slash = true;
    } else {
      output.push_back(segment);
      trailing_slash = false;
    }
  }
  std::string result = absolute ? "/" : "";
  result += join(output, "/");
  if (trailing_slash && !output.empty()) result += '/';
  return result;
}

// §5.2.3.
std::string merge_paths(const UriParts& base, std::string_view reference_path) {
  if (base.authority && base.path.empty()) return str_cat("/", reference_path);
  std::size_t slash = base.path.rfind('/');
  if (slash == std::string::npos) return std::string(reference_path);
  return str_cat(std::string_view(base.path).substr(0, slash + 1), reference_path);
}

std::string compose(const UriParts& parts) {
  std::string out;
  if (parts.scheme) out += *parts.scheme + ":";
  if (parts.authority) out += "//" + *parts.authority;
  out += parts.path;
  if (parts.query) out += "?" + *parts.query;
  if (parts.fragment) out += "#" + *parts.fragment;
  return out;
}

// A reference against a local file path: a (percent-encoded) path relative to its folder.
std::string resolve_path(std::string_view base, std::string_view reference) {
  const std::string_view raw = strip_fragment(reference);
  // An index page's malformed escape is kept as written: the href still names a file.
  std::string decoded = percent_decode(raw).value_or(std::string(raw));
  std::size_t query = decoded.find('?');
  if (query != std::string::npos) decoded.resize(query);
  if (!decoded.empty() && decoded.front() == '/') return remove_dot_segments(decoded);
  std::size_t slash = base.rfind('/');
  std::string joined =
      slash == std::string_view::npos ? decoded : str_cat(base.substr(0, slash + 1), decoded);
  if (joined.empty()) return joined;
  bool relative = joined.front() != '/';
  std::string normalised = remove_dot_segments(joined);
  // Keep a relative result relative ("./a" and "a" name the same file).
  if (relative && normalised.empty()) return ".";
  return normalised;
}

Error invalid_url(std::string_view url, std::string_view expected) {
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("invalid URL ", in_backticks(redact_url(url)), ": ", expected));
}

// The host and port of an authority (user info already removed).
Result<void> split_host_port(std::string_view url, std::string_view authority, UrlParts& parts) {
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {  // IPv6 literal
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return invalid_url(url, "expected `]` after an IPv6 address");
    }
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return invalid_url(url, "expected `:port` after an IPv6 address");
      port = after.substr(1);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  parts.host = to_lower(host);
  if (!port.empty()) {
    std::optional<std::uint64_t> number = parse_uint64(port);
    if (!number || *number > 65535) return invalid_url(url, "expected a port number after `:`");
    parts.port = std::uint16_t(*number);
  }
  return {};
}

}  // namespace

bool has_url_scheme(std::string_view text) { return scheme_length(text) > 0; }

bool is_url(std::string_view text) {
  const std::size_t scheme = scheme_length(text);
  return scheme > 0 && text.substr(scheme + 1, 2) == "//";
}

bool is_http_url(std::string_view url) {
  return starts_with_ci(url, "http://") || starts_with_ci(url, "https://");
}

bool is_file_url(std::string_view url) { return starts_with_ci(url, "file:"); }

std::string percent_encode(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (is_ascii_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        keep.find(c) != std::string_view::npos) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

std::string percent_encode_path(std::string_view path) { return percent_encode(path, "/+=@:,!"); }

std::optional<std::string> percent_decode(std::string_view text) {
  // Most names and URLs have no escape: one copy, not a push_back per character.
  if (text.find('%') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0 || (high == 0 && low == 0)) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

Result<std::string> file_url_to_path(std::string_view url) {
  if (!is_file_url(url)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("expected a `file:` URL, got ", in_backticks(redact_url(url))));
  }
  url = strip_fragment(url);
  url = url.substr(0, url.find('?'));
  std::string_view rest = url.substr(5);  // after "file:"
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const std::size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !iequals(host, "localhost")) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat("cannot read ", in_backticks(url),
                                ": file URLs on another host are not supported"));
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  std::optional<std::string> path = percent_decode(rest);
  if (!path || path->empty() || path->front() != '/') {
    return make_error(ErrorCode::kInvalidInput, str_cat("invalid file URL ", in_backticks(url),
                                                        ": expected `file:///absolute/path`"));
  }
  return *path;
}

std::string path_to_file_url(std::string_view absolute_path) {
  return str_cat("file://", percent_encode_path(absolute_path));
}

Result<UrlParts> split_url(std::string_view url) {
  const std::size_t colon = scheme_length(url);
  if (colon == 0) return invalid_url(url, "expected `scheme://host/path`");
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
  WV_TRY(split_host_port(url, authority, parts));
  return parts;
}

std::uint16_t effective_port(const UrlParts& parts) {
  if (parts.port) return *parts.port;
  if (parts.scheme == "http") return 80;
  if (parts.scheme == "https") return 443;
  return 0;
}

// The one credential rule (base/credentials.h): a user name alone can be a token, so all of
// the user-info goes.
std::string redact_url(std::string_view url) { return redact_credentials(url); }

std::string_view strip_fragment(std::string_view url) {
  std::size_t hash = url.find('#');
  return hash == std::string_view::npos ? url : url.substr(0, hash);
}

std::string_view url_fragment(std::string_view url) {
  std::size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
}

std::string url_filename(std::string_view url) {
  url = url.substr(0, url.find_first_of("#?"));
  std::size_t slash = url.rfind('/');
  if (slash != std::string_view::npos) url = url.substr(slash + 1);
  return percent_decode(url).value_or(std::string(url));
}

std::string with_trailing_slash(std::string_view url) {
  std::string out(url);
  if (out.empty() || out.back() != '/') out.push_back('/');
  return out;
}

std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view text) {
  text = trim(text);
  std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  std::string name = to_lower(trim(text.substr(0, equals)));
  std::string digest = to_lower(trim(text.substr(equals + 1)));
  if (name.empty() || digest.empty()) return std::nullopt;
  for (char c : name) {
    if (!is_ascii_alnum(c) && c != '_' && c != '-') return std::nullopt;
  }
  for (char c : digest) {
    if (hex_value(c) < 0) return std::nullopt;
  }
  return std::make_pair(std::move(name), std::move(digest));
}

std::string resolve_url(std::string_view base, std::string_view reference) {
  if (has_url_scheme(reference)) {
    UriParts parts = split_uri(reference);
    parts.path = remove_dot_segments(parts.path);
    return compose(parts);
  }
  if (!has_url_scheme(base)) return resolve_path(base, reference);
  UriParts base_parts = split_uri(base);
  UriParts ref = split_uri(reference);
  UriParts target;
  target.scheme = base_parts.scheme;
  if (ref.authority) {
    target.authority = ref.authority;
    target.path = remove_dot_segments(ref.path);
    target.query = ref.query;
  } else {
    target.authority = base_parts.authority;
    if (ref.path.empty()) {
      target.path = base_parts.path;
      target.query = ref.query ? ref.query : base_parts.query;
    } else {
      target.path = ref.path.front() == '/' ? remove_dot_segments(ref.path)
                                            : remove_dot_segments(merge_paths(base_parts, ref.path));
      target.query = ref.query;
    }
  }
  target.fragment = ref.fragment;
  return compose(target);
}

}  // namespace wv
