// PEP 508 environment markers ("Environment Markers" of the dependency specifier spec) with the
// behaviour of packaging 26's `Marker`: the grammar, the normal form printed by str(Marker),
// and evaluation (PEP 440 comparison for the four version variables when `op + value` is a
// valid specifier, else string equality; `extra` normalised per PEP 685). Also the PEP 751 set markers (`extras`,
// `dependency_groups`) and the PEP 825 variant markers (`variant_label`, `variant_properties`,
// `variant_features`, `variant_namespaces`; reference/variants.md §4.5). See docs/pep508.md.
// Cheap to include: the tree lives behind a shared pointer and is defined in marker.cc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/marker_environment.h"
#include "src/pkg/version.h"

namespace wv::pkg {

/// Every name a marker may use on either side of an operator.
enum class MarkerVariable : std::uint8_t {
  // PEP 508 environment variables, in MarkerEnvironment's field order.
  kImplementationName,
  kImplementationVersion,
  kOsName,
  kPlatformMachine,
  kPlatformPythonImplementation,
  kPlatformRelease,
  kPlatformSystem,
  kPlatformVersion,
  kPythonFullVersion,
  kPythonVersion,
  kSysPlatform,
  kExtra,  ///< PEP 508 `extra`: the extra being installed (PEP 685 normalised)
  // PEP 751 sets, only `"x" in extras` / `"x" not in extras`.
  kExtras,
  kDependencyGroups,
  // PEP 825 variant markers of the wheel being installed.
  kVariantLabel,       ///< a string; "" for a non-variant wheel
  kVariantProperties,  ///< a set of `ns :: feature :: value`
  kVariantFeatures,    ///< a set of `ns :: feature`
  kVariantNamespaces,  ///< a set of `ns`
};

/// The number of PEP 508 environment variables (kImplementationName .. kSysPlatform).
inline constexpr std::size_t kEnvironmentVariableCount = 11;

/// The normal-form name of a variable ("os_name", "extra", "variant_label", ...).
std::string_view marker_variable_name(MarkerVariable variable);

/// The variable called `name` in normal form (no dotted legacy spellings), if any.
std::optional<MarkerVariable> find_marker_variable(std::string_view name);

/// A marker comparison operator.
enum class MarkerOperator : std::uint8_t {
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kCompatible,      ///< ~=
  kArbitraryEqual,  ///< ===
  kIn,
  kNotIn,
};

/// The operator as printed: "==", "~=", "not in", ...
std::string_view marker_operator_string(MarkerOperator op);

// The nesting of parentheses a marker may have is the process-wide marker-depth limit
// (base/limits.h, default 100): deeper input is refused with an error that names the limit. It
// bounds the recursion of the parser and of evaluation.

/// The variant facts of the wheel being installed, for the PEP 825 markers. Build it with
/// make_variant_facts(); a default value describes a non-variant wheel (label "", no sets).
struct VariantFacts {
  std::string label;                    ///< "" non-variant, "null" the null variant
  std::vector<std::string> properties;  ///< canonical `ns :: feature :: value`, sorted, unique
  std::vector<std::string> features;    ///< canonical `ns :: feature`, sorted, unique
  std::vector<std::string> namespaces;  ///< sorted, unique
};

/// Facts for a wheel with `label` whose properties (after any filtering the caller applies,
/// see reference/variants.md §4.5) are `properties` (any whitespace around `::`). Features and
/// namespaces are derived from the properties.
VariantFacts make_variant_facts(std::string_view label,
                                std::span<const std::string> properties);

/// A marker environment with every value also parsed as a PEP 440 version, once. Build one per
/// target and evaluate all the markers of a resolution against it: evaluation then parses
/// nothing for `variable op "literal"` markers, the common shape.
class PreparedEnvironment {
 public:
  explicit PreparedEnvironment(MarkerEnvironment environment);

  const MarkerEnvironment& values() const { return environment_; }
  /// The value of an environment variable (kImplementationName .. kSysPlatform).
  std::string_view value(MarkerVariable variable) const;
  /// That value as a version, or nullptr when it is not a valid PEP 440 version.
  const Version* version(MarkerVariable variable) const;

 private:
  MarkerEnvironment environment_;
  std::array<std::optional<Version>, kEnvironmentVariableCount> versions_;
};

/// Everything a marker can be evaluated against. Pointers and spans only: building a context
/// allocates nothing; the referenced values must outlive the evaluation.
struct MarkerContext {
  /// The environment; required when the marker names an environment variable.
  const PreparedEnvironment* environment = nullptr;
  /// Active extras (any spelling; compared PEP 685 normalised). `extra == "x"` is true when x
  /// is one of them; with none active, `extra` is "" (packaging's default). Also the PEP 751
  /// `extras` set.
  std::span<const std::string> extras;
  /// Active dependency groups, the PEP 751 `dependency_groups` set (PEP 735 normalised).
  std::span<const std::string> dependency_groups;
  /// The wheel being installed; nullptr means a non-variant wheel (label "", empty sets).
  const VariantFacts* variant = nullptr;
};

namespace detail {
struct MarkerTree;
}  // namespace detail

/// A parsed marker expression. The default value is the empty marker: always true, prints "".
/// Immutable; copying shares the tree.
class Marker {
 public:
  Marker() = default;

  /// True for the empty marker (no expression).
  bool is_empty() const { return tree_ == nullptr; }

  /// packaging 26's str(Marker): variables bare, values in double quotes (single quotes when
  /// the value holds `"`), single spaces, parentheses only around nested groups of more than
  /// one item. "" when empty.
  std::string to_string() const;

  /// Evaluates against `context`. Errors (kInvalidInput) where the reference raises: a
  /// version specifier with a value that is not a version ("invalid version"), `~=`/`===`
  /// between non-versions ("undefined comparison"), a variable without a value in `context`.
  /// Every comparison is evaluated, left to right, so the first error is the reference's.
  Result<bool> evaluate(const MarkerContext& context) const;

  /// Convenience: evaluates against `environment` with `extra` as the only active extra ("" for
  /// none), as packaging's Marker.evaluate({... "extra": extra}). Parses the environment's
  /// versions on each call; prefer a PreparedEnvironment in loops.
  Result<bool> evaluate(const MarkerEnvironment& environment, std::string_view extra = "") const;

  /// True when a comparison reads `variable` (kExtra: the marker depends on the extra being
  /// installed, i.e. the dependency belongs to an extra).
  bool references(MarkerVariable variable) const;

  /// `this and other`, for lockfile markers. An operand that is itself an `or` (or a mixed
  /// group) is parenthesised; chains of `and` stay flat. The empty marker is the identity.
  Marker and_(const Marker& other) const;
  /// `this or other`; chains of `or` stay flat, `and` groups are parenthesised.
  Marker or_(const Marker& other) const;

  /// Equal when the normal forms are equal (as packaging compares markers).
  friend bool operator==(const Marker& a, const Marker& b);

 private:
  friend Result<Marker> parse_marker(std::string_view text);
  friend struct detail::MarkerTree;
  explicit Marker(std::shared_ptr<const detail::MarkerTree> tree) : tree_(std::move(tree)) {}
  std::shared_ptr<const detail::MarkerTree> tree_;
};

/// Parses a marker: the PEP 508 grammar as packaging 26 tokenises it (both quote styles,
/// Python string escapes, `in` / `not in`, `and` binding tighter than `or`, parentheses, the
/// dotted legacy names `os.name` etc. normalised), plus the PEP 751 and PEP 825 variables.
/// Text after a complete expression is an error, as in packaging 26 (see docs/pep508.md).
Result<Marker> parse_marker(std::string_view text);

namespace detail {
/// Parses a marker starting at `position` of `source` and stops, like packaging's
/// _parse_marker, after the last complete `and`/`or` operand (the requirement parser then
/// expects the end). Errors quote `source` with `what` ("marker", "requirement").
Result<Marker> parse_marker_at(std::string_view source, std::size_t& position,
                               std::string_view what);
}  // namespace detail

}  // namespace wv::pkg
