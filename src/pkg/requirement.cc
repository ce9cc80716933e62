#include "src/pkg/requirement.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/pkg/marker_lexer.h"
#include "src/pkg/name.h"

namespace wv::pkg {
namespace {

using detail::Cursor;

constexpr std::string_view kWhat = "requirement";

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

Result<PackageName> Requirement::package_name() const { return parse_package_name(name); }

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
    // Any run of non-blanks is a URL to packaging 26 (23.0 ran urlsplit on it): what a URL
    // may point at is judged where it is used, not by the parser.
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
