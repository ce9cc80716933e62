// Core metadata (`METADATA` in a wheel, `PKG-INFO` in an sdist; PyPA "Core metadata
// specifications", Metadata-Version 1.0 to 2.4): the RFC 822 style header block read into
// the fields a resolver needs, with the line of every value kept for error messages.
// Pure: the caller reads the file. See docs/tags-and-filenames.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/name.h"
#include "src/pkg/requirement.h"
#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

namespace wv::pkg {

/// One header field as written: name (original case), unfolded value, first line (1-based).
struct MetadataField {
  std::string name;
  std::string value;
  int line = 0;
};

/// One `Requires-Dist` entry: the text as written (unfolded, trimmed) and its PEP 508 parse.
struct RequiresDist {
  std::string raw;
  Requirement requirement;
  int line = 0;
};

/// The fields wvlock uses. Other fields are kept, in order, in `fields`.
struct CoreMetadata {
  /// `Metadata-Version` as written ("2.1"); "" when absent (treated as 1.0).
  std::string metadata_version;
  /// `Name`, normalised, and as written.
  PackageName name;
  std::string name_as_written;
  /// `Version`, parsed.
  Version version;
  /// Each `Requires-Dist`, in order.
  std::vector<RequiresDist> requires_dist;
  /// `Requires-Python` as written ("" when absent) and parsed (empty set when absent).
  std::string requires_python_raw;
  SpecifierSet requires_python;
  /// Each `Provides-Extra`, PEP 685 normalised, duplicates removed, in order.
  std::vector<std::string> provides_extra;
  /// Each `Dynamic` field name (2.2+), lower-cased.
  std::vector<std::string> dynamic;
  /// Every header field in order (the ones above included), for callers that need others
  /// (Summary, Requires-External, ...). The body (the long description) is not kept.
  std::vector<MetadataField> fields;

  /// The values of every field named `name` (case-insensitive), in order.
  std::vector<std::string_view> values(std::string_view name) const;
};

/// Parses METADATA / PKG-INFO text. Header lines are `Name: value`; a line starting with a
/// space or tab continues the previous value (unfolded as RFC 5322 says: the line break is
/// removed); the first empty line ends the headers and the rest (the description) is ignored.
/// CRLF and LF line endings are both accepted. Errors (kParse, with `line N` in the message):
/// a header line without `:` or with an invalid field name, a continuation line before any
/// field, a missing or repeated Name/Version/Metadata-Version/Requires-Python, an invalid Name,
/// Version, Requires-Python or Requires-Dist, an empty Provides-Extra. A Metadata-Version with
/// a major version above 2 is kUnsupported.
Result<CoreMetadata> parse_metadata(std::string_view text);

/// PEP 643: whether an sdist's PKG-INFO may stand for the metadata its wheels will have, as far
/// as resolution reads it: Metadata-Version 2.2 or later and none of Requires-Dist,
/// Requires-Python and Provides-Extra marked `Dynamic`. Older PKG-INFO promises nothing.
bool static_for_resolution(const CoreMetadata& metadata);

}  // namespace wv::pkg
