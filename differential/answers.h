// Our side of the differential test against Python's packaging 26.4 (docs/differential.md):
// the answer wv::pkg gives for each kind of case (PEP 440 versions, ordering, specifier sets and
// their intersections, PEP 508 markers and requirements, PEP 503 names) in the same field layout as differential/oracle.py, the
// single-case answers stored in tests/differential/cases/<kind>.txt, the case-file line format,
// and the classifier that recognises the documented deliberate differences.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/pkg/marker.h"
#include "src/pkg/marker_environment.h"

namespace wv::differential {

/// One answer: its fields, as oracle.py lays them out for the same request.
using Fields = std::vector<std::string>;

/// The kinds of case, one case file each.
enum class Kind { kVersion, kOrder, kSpecifier, kMarker, kRequirement, kIntersection, kName };
inline constexpr Kind kAllKinds[] = {Kind::kVersion,     Kind::kOrder,        Kind::kSpecifier,
                                     Kind::kMarker,      Kind::kRequirement,  Kind::kIntersection,
                                     Kind::kName};

/// "version", "order", "specifier", "marker", "requirement", "intersection", "name" (the case
/// file's stem).
std::string_view kind_name(Kind kind);
/// The number of input columns of a case line of `kind` (then expected, packaging, verdict).
std::size_t input_columns(Kind kind);

/// The eleven PEP 508 values in oracle.py's ENV_KEYS order.
std::vector<std::string> environment_values(const pkg::MarkerEnvironment& environment);
pkg::MarkerEnvironment environment_from_values(std::span<const std::string> values);

/// One marker evaluation: an environment and the extra being installed ("" for none).
struct Evaluation {
  const pkg::PreparedEnvironment* environment = nullptr;
  std::string extra;
};

/// invalid | unsupported | ok, str, public, base_version, flags (pre post dev as 0/1), local.
Fields our_version(std::string_view text);
/// Per text "x" (invalid) or the number of valid texts of the list strictly below it.
Fields our_order(std::span<const std::string> texts);
/// invalid | ok, str, prereleases (None/True/False), then per version three characters:
/// contains() with prereleases None, True, False ('1' / '0').
Fields our_specifier(std::string_view set, std::span<const std::string> versions);
/// Specifier set `a` & `b` (packaging's SpecifierSet.__and__): invalid when either is, else
/// our_specifier()'s layout for the combined set.
Fields our_intersection(std::string_view a, std::string_view b, std::span<const std::string> versions);
/// The PEP 503 normal form (packaging's canonicalize_name), one field.
Fields our_name(std::string_view text);
/// invalid | ok, str, then per evaluation "1", "0" or "E:version" / "E:comparison" / "E:name".
Fields our_marker(std::string_view marker, std::span<const Evaluation> evaluations);
/// invalid | ok, str, name, extras (sorted, comma-joined), specifier, url, marker.
Fields our_requirement(std::string_view text);

/// The one-line answer of a single case: fields joined by " | " ('|' inside a field is
/// written \x7c).
std::string join_answer(const Fields& fields);
/// The single-case answer of specifier set answer `fields` for its version `index` and mode
/// (0 None, 1 True, 2 False).
std::string reduce_specifier(const Fields& fields, std::size_t index, int mode);
/// The single-case answer of marker answer `fields` for its evaluation `index`.
std::string reduce_marker(const Fields& fields, std::size_t index);
/// "<", "=", ">" from two order answers (count of smaller texts), "invalid" if one is "x".
std::string reduce_order(const std::string& a, const std::string& b);

/// Our answer for one stored case: `inputs` are its input columns (unescaped).
/// specifier: set, version, mode ("None"/"True"/"False"); intersection: set a, set b, version,
/// mode; marker: marker, environment (the eleven values joined by '|'), extra; order: a, b;
/// version, requirement and name: the text.
std::string answer_case(Kind kind, std::span<const std::string> inputs);

/// When `ours` and `packaging` (single-case answers) differ in a documented deliberate way,
/// the verdict ("spec: <class>: <rule>"); for a known wv::pkg bug not yet fixed, "bug: <class>:
/// <what and where>"; nullopt for an unexplained disagreement.
std::optional<std::string> explain(Kind kind, std::span<const std::string> inputs,
                                   const std::string& ours, const std::string& packaging);

/// Case-file escaping: backslash, tab, newline, CR, other control bytes and bytes >= 0x80 as
/// \\, \t, \n, \r, \xHH, so a case file is ASCII and one case per line.
std::string escape(std::string_view text);
/// The inverse of escape(); nullopt on a malformed escape.
std::optional<std::string> unescape(std::string_view text);

/// A case-file line: the input columns, the expected answer (ours when recorded), packaging's
/// answer and the verdict, tab-separated and escaped.
std::string case_line(std::span<const std::string> inputs, const std::string& expected,
                      const std::string& packaging, const std::string& verdict);

}  // namespace wv::differential
