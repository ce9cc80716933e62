// PEP 440 version specifiers ("Version specifiers": ~=, ==, !=, <=, >=, <, >, ===, ==X.*, !=X.*)
// with the exact behaviour of packaging.specifiers (packaging 26): local-version rules,
// the `>V` / `<V` post- and pre-release exclusions, and the pre-release admission rules.
// See docs/pep440.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/version.h"

namespace wv::pkg {

/// A specifier's comparison operator. The `.*` forms of == and != are their own operators.
enum class Operator : std::uint8_t {
  kEqual,           ///< ==V
  kNotEqual,        ///< !=V
  kLessEqual,       ///< <=V
  kGreaterEqual,    ///< >=V
  kLess,            ///< <V
  kGreater,         ///< >V
  kCompatible,      ///< ~=V
  kArbitraryEqual,  ///< ===text (string equality, case-insensitive)
  kEqualStar,       ///< ==V.*
  kNotEqualStar,    ///< !=V.*
};

/// The operator as written: "==", "!=", "<=", ">=", "<", ">", "~=", "===" ("==" and "!=" for the
/// star forms; the ".*" belongs to the version text).
std::string_view operator_string(Operator op);

/// One clause such as "~=2.2" or "==1.0.*". Immutable; copy freely.
class Specifier {
 public:
  Specifier() = default;

  Operator op() const { return op_; }
  /// The version operand: for ==V.* / !=V.* it is V (without ".*"); for === it is the operand
  /// parsed as a version when it is one, else "0" (use raw_version()).
  const Version& version() const { return version_; }
  /// The operand exactly as written, surrounding whitespace removed ("1.0.*", "foobar").
  const std::string& raw_version() const { return raw_; }
  /// Operator and operand without whitespace, spelling kept: " >= 2.8" -> ">=2.8". This is
  /// packaging's str(Specifier), which is what the conformance data calls "normalized".
  std::string to_string() const;

  /// Whether this clause admits pre-releases by itself (packaging's Specifier.prereleases):
  /// false for != and the .* forms, else whether the operand is a pre-release; nullopt for
  /// `===` with an operand that is not a version.
  std::optional<bool> prereleases() const;

  /// True when `v` satisfies the clause. `prereleases` false: pre-releases never match;
  /// nullopt or true: they are judged like any version (a lone version has no alternatives,
  /// so PEP 440's "only if nothing else" admits it; packaging >= 26).
  bool contains(const Version& v, std::optional<bool> prereleases = std::nullopt) const;
  /// The same for a version as written: `===` compares the text; an unparsable text is never
  /// contained by the other operators.
  bool contains(std::string_view text, std::optional<bool> prereleases = std::nullopt) const;

  /// The key packaging uses to tell two clauses apart in a set (operator plus canonical
  /// operand; "==1.0" and "==1.0.0" share it).
  std::string identity_key() const;

 private:
  friend Result<Specifier> parse_specifier(std::string_view text);
  friend class SpecifierSet;
  bool matches(const Version& v) const;  // the operator alone, no pre-release filter
  bool in_prefix(const Version& v) const;  // ==V.*: lower_ <= v < upper_
  void compute_bounds();
  bool admits_prereleases() const;

  Operator op_ = Operator::kGreaterEqual;
  Version version_;
  std::string raw_;
  // Interval ends that are versions, computed at parse: <V: v < lower_ (V.dev0 unless V is a
  // pre-release); >V.devN/.postN: v >= lower_; ==V.*: lower_ <= v < upper_; ~=V: v < upper_.
  // upper_ nullopt: no end (the last number cannot grow).
  std::optional<Version> lower_;
  std::optional<Version> upper_;
  bool operand_is_version_ = false;  // `===` only: whether the operand parses as a version
  bool prereleases_ = false;
};

/// Parses one clause with packaging's grammar: optional whitespace, operator, optional
/// whitespace, operand. `~=` needs two release numbers and no local label; `<`, `>`, `<=`,
/// `>=` take no local label; `.*` only after == or != and a plain release.
Result<Specifier> parse_specifier(std::string_view text);

/// A comma-separated AND of clauses. The empty set admits every final release.
class SpecifierSet {
 public:
  SpecifierSet() = default;

  /// The clauses, duplicates (by identity_key) removed, in the order first written (of equal
  /// clauses, the spelling that sorts first is kept, as packaging does).
  const std::vector<Specifier>& specifiers() const { return specifiers_; }
  bool empty() const { return specifiers_.empty(); }

  /// true when any clause admits pre-releases, else nullopt (packaging 26 never says false).
  std::optional<bool> prereleases() const;

  /// True when `v` satisfies every clause. `prereleases` false: pre-releases never match;
  /// nullopt or true: judged like any version (see Specifier::contains). Which pre-releases
  /// a resolver may pick is its own policy, not this set's.
  bool contains(const Version& v, std::optional<bool> prereleases = std::nullopt) const;
  /// The same for a version as written (`===` compares the text).
  bool contains(std::string_view text, std::optional<bool> prereleases = std::nullopt) const;

  /// Clauses sorted as strings and joined with ",": packaging's str(SpecifierSet).
  std::string to_string() const;

  /// The clauses of both sets (the `&` of packaging).
  SpecifierSet intersect(const SpecifierSet& other) const;

  /// Adds a clause unless one with the same identity_key is already present.
  void add(Specifier specifier);

 private:
  std::vector<Specifier> specifiers_;
  bool prereleases_ = false;  // any clause admits pre-releases
  bool has_arbitrary_ = false;  // a `===` clause: text matters, see contains(string_view)
};

/// Parses "" / ">=1.0, <2" (pieces split on ',', whitespace around each ignored, empty pieces
/// skipped). Any invalid clause makes the whole set invalid.
Result<SpecifierSet> parse_specifier_set(std::string_view text);

}  // namespace wv::pkg
