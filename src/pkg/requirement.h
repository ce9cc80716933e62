// PEP 508 dependency specifiers ("Dependency specifiers" spec: name, extras, version
// specifiers with or without parentheses, `name @ url`, `; marker`) with the grammar and the
// normal form of packaging 26's `Requirement` / str(Requirement). See docs/pep508.md.
// Cheap to include (marker and specifier headers only).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/marker.h"
#include "src/pkg/name.h"
#include "src/pkg/specifier.h"

namespace wv::pkg {

/// A parsed dependency specifier, e.g. `torch[cuda]>=2.8; sys_platform == "linux"`.
struct Requirement {
  /// The project name as written ("Flask_SQLAlchemy"); see normalized_name().
  std::string name;
  /// The extras as written, sorted and without duplicates (packaging keeps a set of strings).
  std::vector<std::string> extras;
  /// The version specifiers; empty for a URL requirement or when none are given.
  SpecifierSet specifier;
  /// The URL of `name @ url`, if any.
  std::optional<std::string> url;
  /// The marker after `;`; the empty marker (always true) when there is none.
  Marker marker;

  /// The PEP 503 normalised name ("flask-sqlalchemy").
  std::string normalized_name() const;
  /// The name as a PackageName; an error for the few names PEP 508's grammar takes and the core
  /// metadata spec does not (`foo_`: packaging's identifier may end in `_`).
  Result<PackageName> package_name() const;
  /// packaging 26's str(Requirement): `name[extras]specifier`, `name[extras] @ url`, then
  /// `; marker` (with a space before `;` after a URL).
  std::string to_string() const;
};

/// Parses a dependency specifier. Whitespace is allowed where packaging allows it; a single
/// trailing newline is accepted (regex `$`). URLs are checked as packaging checks them with
/// urllib: `file:` URLs must survive urlparse/urlunparse unchanged; others need a scheme and
/// a host. Errors are kParse, with the input and a caret.
Result<Requirement> parse_requirement(std::string_view text);

}  // namespace wv::pkg
