// Wheel filenames: PEP 427 / PEP 491 (`{name}-{version}(-{build})?-{py}-{abi}-{plat}.whl`,
// compressed tag sets expanded) extended by the variant label of PEP 825 ("Variant label";
// reference/variants.md §1): `...-{plat}-{label}.whl`. See docs/tags-and-filenames.md.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/name.h"
#include "src/pkg/tags.h"
#include "src/pkg/version.h"

namespace wv::pkg {

/// A wheel build tag: a leading decimal number and the rest ("1" -> {1, ""},
/// "2abc" -> {2, "abc"}). Orders like packaging's `(int, str)` tuple.
struct BuildTag {
  std::uint64_t number = 0;
  std::string rest;

  /// The tag as written in a filename ("2abc").
  std::string to_string() const;

  friend bool operator==(const BuildTag&, const BuildTag&) = default;
  friend std::strong_ordering operator<=>(const BuildTag&, const BuildTag&) = default;
};

/// Parses a build tag: one or more digits, then any `[A-Za-z0-9_.]` (no `-`).
Result<BuildTag> parse_build_tag(std::string_view text);

/// A parsed wheel filename.
struct WheelFilename {
  PackageName name;                 ///< normalised (PEP 503)
  Version version;                  ///< parsed (PEP 440)
  std::optional<BuildTag> build;    ///< the optional build tag
  /// The three tag fields as written, lower-cased, dots kept ("py2.py3", "none", "any").
  std::string python_tag;
  std::string abi_tag;
  std::string platform_tag;
  /// The expanded tag set: the cross product of the dot-separated parts, in written order.
  std::vector<Tag> tags;
  /// The PEP 825 variant label (`[0-9a-z_.]+`); nullopt for a non-variant wheel.
  std::optional<std::string> variant_label;

  bool is_variant() const { return variant_label.has_value(); }
  /// True for the reserved null variant label `null`.
  bool is_null_variant() const { return variant_label && *variant_label == "null"; }

  /// The canonical filename: the normalised name with `-` escaped to `_`, the normalised
  /// version, then the remaining fields as parsed. Parsing it again gives an equal value.
  std::string to_string() const;

  friend bool operator==(const WheelFilename&, const WheelFilename&) = default;
};

/// Parses `filename` (a bare file name, no directory). Five dash-separated parts are a plain
/// wheel, seven are build tag + variant label; with six, the third part decides: it is a
/// build tag when it starts with a digit (build tags must, PEP 427) and otherwise the Python
/// tag, making the sixth part a variant label (PEP 825: a Python tag never starts with a
/// digit). Errors (kParse) name the filename and say which part is wrong and why.
Result<WheelFilename> parse_wheel_filename(std::string_view filename);

}  // namespace wv::pkg
