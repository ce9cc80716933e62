#include "pkg/requirement.h"

#include <algorithm>

#include "base/str.h"
#include "pkg/marker_lexer.h"
#include "pkg/name.h"

namespace wv::pkg {
namespace {

using detail::Cursor;

constexpr std::string_view kWhat = "requirement";

// The parts of urllib.parse.urlsplit (Python 3.11) that packaging's URL check looks at.
struct UrlParts {
  std::string scheme;
  std::string netloc;
  std::string path;
  std::string query;
  std::string fragment;
};

bool is_scheme_char(char c) { return is_ascii_alnum(c) || c == '+' || c == '-' || c == '.'; }

// A bracketed host as urllib accepts it: `v<hex>.<anything>` or an IPv6 address (hex groups,
// `::` at most once, an optional trailing IPv4 part, an optional `%zone`).
bool is_bracketed_host(std::string_view host) {
  if (!host.empty() && host.front() == 'v') {
    std::size_t dot = host.find('.');
    if (dot == std::string_view::npos || dot == 1 || dot + 1 >= host.size()) return false;
    return std::all_of(host.begin() + 1, host.begin() + static_cast<std::ptrdiff_t>(dot),
                       [](char c) { return is_ascii_digit(c) || (to_ascii_lower(c) >= 'a' &&
                                                                 to_ascii_lower(c) <= 'f'); });
  }
  std::size_t zone = host.find('%');
  if (zone != std::string_view::npos) {
    if (zone + 1 >= host.size()) return false;
    host = host.substr(0, zone);
  }
  if (host.find(':') == std::string_view::npos) return false;  // IPv4 (or junk) in brackets
  std::size_t double_colon = host.find("::");
  if (double_colon != std::string_view::npos && host.find("::", double_colon + 1) != std::string_view::npos) {
    return false;
  }
  int groups = 0;
  bool ipv4_tail = false;
  std::vector<std::string_view> pieces = split(host, ':');
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::string_view piece = pieces[i];
    if (piece.empty()) continue;  // part of `::` (checked above) or a leading/trailing one
    if (i + 1 == pieces.size() && piece.find('.') != std::string_view::npos) {
      std::vector<std::string_view> octets = split(piece, '.');
      if (octets.size() != 4) return false;
      for (std::string_view octet : octets) {
        std::optional<std::uint64_t> value = parse_uint64(octet);
        if (!value || *value > 255 || octet.size() > 3) return false;
      }
      ipv4_tail = true;
      groups += 2;
      continue;
    }
    if (piece.size() > 4) return false;
    for (char c : piece) {
      char l = to_ascii_lower(c);
      if (!is_ascii_digit(c) && !(l >= 'a' && l <= 'f')) return false;
    }
    ++groups;
  }
  (void)ipv4_tail;
  // Empty pieces are only allowed as part of a single `::`.
  if (double_colon == std::string_view::npos) {
    return groups == 8 && std::none_of(pieces.begin(), pieces.end(),
                                       [](std::string_view p) { return p.empty(); });
  }
  if (host.front() == ':' && host.substr(0, 2) != "::") return false;
  if (host.back() == ':' && host.substr(host.size() - 2) != "::") return false;
  return groups < 8;
}

Result<UrlParts> split_url(std::string_view original) {
  std::string url;
  std::size_t start = 0;
  while (start < original.size() && static_cast<unsigned char>(original[start]) <= 0x20) ++start;
  for (char c : original.substr(start)) {
    if (c != '\t' && c != '\r' && c != '\n') url.push_back(c);
  }
  UrlParts parts;
  std::string_view rest = url;
  std::size_t colon = rest.find(':');
  if (colon != std::string_view::npos && colon > 0 && is_ascii_alpha(rest[0]) &&
      std::all_of(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(colon), is_scheme_char)) {
    parts.scheme = to_lower(rest.substr(0, colon));
    rest = rest.substr(colon + 1);
  }
  if (rest.substr(0, 2) == "//") {
    std::size_t end = rest.find_first_of("/?#", 2);
    parts.netloc = std::string(rest.substr(2, end == std::string_view::npos ? end : end - 2));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    bool open = parts.netloc.find('[') != std::string::npos;
    bool close = parts.netloc.find(']') != std::string::npos;
    if (open != close) return make_error(ErrorCode::kParse, "invalid IPv6 URL");
    if (open) {
      std::string_view host_port = parts.netloc;
      std::size_t at = host_port.rfind('@');
      if (at != std::string_view::npos) host_port = host_port.substr(at + 1);
      std::size_t bracket = host_port.find('[');
      std::string_view host;
      if (bracket != std::string_view::npos) {
        if (bracket != 0) return make_error(ErrorCode::kParse, "invalid IPv6 URL");
        std::size_t closing = host_port.find(']');
        if (closing == std::string_view::npos) return make_error(ErrorCode::kParse, "invalid IPv6 URL");
        host = host_port.substr(1, closing - 1);
        std::string_view port = host_port.substr(closing + 1);
        if (!port.empty() && port.front() != ':') return make_error(ErrorCode::kParse, "invalid IPv6 URL");
      } else {
        host = host_port.substr(0, host_port.find(':'));
      }
      if (!is_bracketed_host(host)) return make_error(ErrorCode::kParse, "invalid IPv6 URL");
    }
  }
  std::size_t hash = rest.find('#');
  if (hash != std::string_view::npos) {
    parts.fragment = std::string(rest.substr(hash + 1));
    rest = rest.substr(0, hash);
  }
  std::size_t question = rest.find('?');
  if (question != std::string_view::npos) {
    parts.query = std::string(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  parts.path = std::string(rest);
  return parts;
}

// urlunsplit for a `file` URL (`file` is in uses_netloc, not in uses_params).
std::string unsplit_file_url(const UrlParts& parts) {
  std::string url = parts.scheme;
  url += ':';
  const std::string_view path = parts.path;
  if (!parts.netloc.empty() || path.substr(0, 2) != "//") {
    url += "//";
    url += parts.netloc;
    if (!path.empty() && path.front() != '/') url += '/';
  }
  url += path;
  if (!parts.query.empty()) {
    url += '?';
    url += parts.query;
  }
  if (!parts.fragment.empty()) {
    url += '#';
    url += parts.fragment;
  }
  return url;
}

// packaging 23.0's URL check in Requirement.__init__.
Result<void> check_url(std::string_view requirement, std::string_view url) {
  Result<UrlParts> parts = split_url(url);
  if (!parts) {
    return make_error(ErrorCode::kParse,
                      str_cat("invalid requirement ", in_backticks(requirement), ": the URL ",
                              in_backticks(url), " is not a valid URL (", parts.error().message,
                              ")"));
  }
  if (parts->scheme == "file") {
    if (unsplit_file_url(*parts) != url) {
      return make_error(ErrorCode::kParse,
                        str_cat("invalid requirement ", in_backticks(requirement),
                                ": the file URL ", in_backticks(url),
                                " is not in normal form (expected `file:///path` or "
                                "`file://host/path`)"));
    }
  } else if (parts->scheme.empty() || parts->netloc.empty()) {
    return make_error(ErrorCode::kParse,
                      str_cat("invalid requirement ", in_backticks(requirement), ": the URL ",
                              in_backticks(url), " needs a scheme and a host"));
  }
  return {};
}

// extras = '[' WS? (IDENTIFIER (WS? ',' WS? IDENTIFIER)*)? WS? ']'
Result<std::vector<std::string>> parse_extras(Cursor& cursor) {
  std::vector<std::string> extras;
  if (!cursor.match_char('[')) return extras;
  const std::size_t open = cursor.position();
  cursor.advance(1);
  cursor.skip_whitespace();
  if (std::size_t length = cursor.match_identifier()) {
    extras.emplace_back(cursor.take(length));
    while (true) {
      cursor.skip_whitespace();
      if (cursor.match_identifier() != 0) {
        return cursor.error(kWhat, cursor.position(), "expected a comma between extra names");
      }
      if (!cursor.match_char(',')) break;
      cursor.advance(1);
      cursor.skip_whitespace();
      std::size_t next = cursor.match_identifier();
      if (next == 0) return cursor.error(kWhat, cursor.position(), "expected an extra name after `,`");
      extras.emplace_back(cursor.take(next));
    }
  }
  cursor.skip_whitespace();
  if (!cursor.match_char(']')) {
    return cursor.error(kWhat, cursor.position(),
                        str_cat("expected `]` to close the `[` at column ", open + 1));
  }
  cursor.advance(1);
  return extras;
}

// version_many = (SPECIFIER (WS? ',' WS? SPECIFIER)*)?, optionally in parentheses.
Result<std::string> parse_specifier_text(Cursor& cursor) {
  std::string text;
  const bool parenthesised = cursor.match_char('(');
  const std::size_t open = cursor.position();
  if (parenthesised) cursor.advance(1);
  cursor.skip_whitespace();
  while (std::size_t length = cursor.match_specifier()) {
    text += cursor.take(length);
    cursor.skip_whitespace();
    if (!cursor.match_char(',')) break;
    text += cursor.take(1);
    cursor.skip_whitespace();
  }
  cursor.skip_whitespace();
  if (parenthesised) {
    if (!cursor.match_char(')')) {
      return cursor.error(kWhat, cursor.position(),
                          str_cat("expected `)` to close the `(` at column ", open + 1));
    }
    cursor.advance(1);
  }
  return text;
}

// requirement_marker = ';' marker WS?
Result<Marker> parse_requirement_marker(Cursor& cursor, std::size_t span_start,
                                        std::string_view after) {
  if (!cursor.match_char(';')) {
    return cursor.error(kWhat, span_start, str_cat("expected the end or `;` after ", after));
  }
  cursor.advance(1);
  std::size_t position = cursor.position();
  WV_ASSIGN_OR_RETURN(Marker marker, detail::parse_marker_at(cursor.source(), position, kWhat));
  cursor = Cursor(cursor.source(), position);
  cursor.skip_whitespace();
  return marker;
}

}  // namespace

std::string Requirement::normalized_name() const { return normalize_name(name); }

std::string Requirement::to_string() const {
  std::string out = name;
  if (!extras.empty()) out += str_cat("[", join(extras, ","), "]");
  if (!specifier.empty()) out += specifier.to_string();
  if (url) {
    out += str_cat(" @ ", *url);  // packaging 26 spaces both sides (23.0 wrote `name@ url`)
    if (!marker.is_empty()) out += ' ';
  }
  if (!marker.is_empty()) out += str_cat("; ", marker.to_string());
  return out;
}

Result<Requirement> parse_requirement(std::string_view text) {
  Requirement requirement;
  Cursor cursor(text);
  cursor.skip_whitespace();
  std::size_t name_length = cursor.match_identifier();
  if (name_length == 0) {
    return cursor.error(kWhat, cursor.position(),
                        "expected a package name at the start of the dependency specifier");
  }
  requirement.name = std::string(cursor.take(name_length));
  cursor.skip_whitespace();
  WV_ASSIGN_OR_RETURN(requirement.extras, parse_extras(cursor));
  std::sort(requirement.extras.begin(), requirement.extras.end());
  requirement.extras.erase(std::unique(requirement.extras.begin(), requirement.extras.end()),
                           requirement.extras.end());
  cursor.skip_whitespace();

  if (cursor.match_char('@')) {
    cursor.advance(1);
    cursor.skip_whitespace();
    const std::size_t url_start = cursor.position();
    std::size_t url_length = cursor.match_url();
    if (url_length == 0) return cursor.error(kWhat, url_start, "expected a URL after `@`");
    requirement.url = std::string(cursor.take(url_length));
    if (!cursor.at_end()) {
      std::size_t space = cursor.match_whitespace();
      if (space == 0) return cursor.error(kWhat, cursor.position(), "expected whitespace after the URL");
      cursor.advance(space);
      if (!cursor.at_end()) {
        WV_ASSIGN_OR_RETURN(requirement.marker,
                            parse_requirement_marker(cursor, url_start, "the URL and whitespace"));
      }
    }
    WV_TRY(check_url(text, *requirement.url));
  } else {
    const std::size_t specifier_start = cursor.position();
    WV_ASSIGN_OR_RETURN(std::string specifier_text, parse_specifier_text(cursor));
    cursor.skip_whitespace();
    if (!cursor.at_end()) {
      WV_ASSIGN_OR_RETURN(requirement.marker,
                          parse_requirement_marker(cursor, specifier_start,
                                                   specifier_text.empty()
                                                       ? "the name (no valid version specifier)"
                                                       : "the version specifier"));
    }
    Result<SpecifierSet> specifier = parse_specifier_set(specifier_text);
    if (!specifier) {
      return make_error(ErrorCode::kParse,
                        str_cat("invalid requirement ", in_backticks(text), ": ",
                                specifier.error().message));
    }
    requirement.specifier = std::move(*specifier);
  }
  if (!cursor.at_end()) {
    return cursor.error(kWhat, cursor.position(), "expected the end of the dependency specifier");
  }
  return requirement;
}

}  // namespace wv::pkg
