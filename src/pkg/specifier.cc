// PEP 440 version specifiers with packaging 26's exact behaviour (specifiers.py, _ranges.py):
// the specifier pattern, each operator as an interval of the version order (==V.* and ~= end at
// the next prefix's .dev0, <V at V.dev0, >V above V's post family), and the pre-release rules
// of Specifier and SpecifierSet.
#include "src/pkg/specifier.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/pkg/version_text.h"

namespace wv::pkg {

namespace {

// packaging's canonicalize_version() of a parsed version: the normal form, with the release's
// trailing zeros removed when `strip_trailing_zero` (keeping the first number).
std::string canonical_string(const Version& v, bool strip_trailing_zero) {
  std::string out;
  if (v.epoch() != 0) out.append(std::to_string(v.epoch())).push_back('!');
  std::span<const std::uint64_t> release = v.release();
  std::size_t n = release.size();
  if (strip_trailing_zero) {
    while (n > 1 && release[n - 1] == 0) --n;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out.push_back('.');
    out.append(std::to_string(release[i]));
  }
  if (const auto p = v.pre()) out.append(pre_kind_name(p->first)).append(std::to_string(p->second));
  if (const auto p = v.post()) out.append(".post").append(std::to_string(*p));
  if (const auto d = v.dev()) out.append(".dev").append(std::to_string(*d));
  if (v.has_local()) out.append("+").append(v.local());
  return out;
}

// True when a and b have the same epoch and release (trailing zeros ignored).
bool same_base(const Version& a, const Version& b) {
  if (a.epoch() != b.epoch()) return false;
  std::span<const std::uint64_t> ra = a.release(), rb = b.release();
  const std::size_t n = std::max(ra.size(), rb.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i < ra.size() ? ra[i] : 0;
    const std::uint64_t y = i < rb.size() ? rb[i] : 0;
    if (x != y) return false;
  }
  return true;
}

// `v` is in V's post family (V itself, V+local, V.postN with any dev or local): the versions
// `>V` leaves out when V is a final or a pre-release (PEP 440, "Exclusive ordered comparison").
bool in_post_family(const Version& v, const Version& spec) {
  return same_base(v, spec) && v.pre() == spec.pre();
}

std::vector<std::uint64_t> release_of(const Version& v) {
  return {v.release().begin(), v.release().end()};
}

// `release` with its last number bumped, as the .dev0 that starts it (1.2 -> 1.3.dev0): the
// exclusive end of the prefix `release`. nullopt when the number cannot grow (no end).
std::optional<Version> next_prefix_dev0(std::uint64_t epoch, std::vector<std::uint64_t> release) {
  if (release.empty() || release.back() == UINT64_MAX) return std::nullopt;
  ++release.back();
  return Version::from_parts(epoch, std::move(release), std::nullopt, std::nullopt, 0);
}

// The .dev0 of `v` (local dropped): the earliest version of v's family that sorts before it.
Version with_dev0(const Version& v) {
  return Version::from_parts(v.epoch(), release_of(v), v.pre(), v.post(), 0);
}

bool has_python_space_or(std::string_view text, std::string_view forbidden) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (detail::python_space_length(text, i) != 0) return true;
    if (forbidden.find(text[i]) != std::string_view::npos) return true;
  }
  return false;
}

// `v?([0-9]+!)?[0-9]+(\.[0-9]+)*`, the operand of ==V.* without its ".*".
bool is_star_prefix(std::string_view text) {
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == 'v' || text[pos] == 'V')) ++pos;
  const auto digits = [&]() {
    const std::size_t start = pos;
    while (pos < text.size() && is_ascii_digit(text[pos])) ++pos;
    return pos > start;
  };
  if (!digits()) return false;
  if (pos < text.size() && text[pos] == '!') {
    ++pos;
    if (!digits()) return false;
  }
  while (pos < text.size() && text[pos] == '.') {
    ++pos;
    if (!digits()) return false;
  }
  return pos == text.size();
}

Error specifier_error(std::string_view text, std::size_t offset, std::string_view expected) {
  return make_parse_error("version specifier", text, offset, expected);
}

}  // namespace

std::string_view operator_string(Operator op) {
  switch (op) {
    case Operator::kEqual: return "==";
    case Operator::kNotEqual: return "!=";
    case Operator::kLessEqual: return "<=";
    case Operator::kGreaterEqual: return ">=";
    case Operator::kLess: return "<";
    case Operator::kGreater: return ">";
    case Operator::kCompatible: return "~=";
    case Operator::kArbitraryEqual: return "===";
    case Operator::kEqualStar: return "==";
    case Operator::kNotEqualStar: return "!=";
  }
  return "==";
}

Result<Specifier> parse_specifier(std::string_view text) {
  std::size_t pos = 0;
  while (std::size_t n = detail::python_space_length(text, pos)) pos += n;
  const std::string_view rest = text.substr(pos);
  struct Spelling {
    std::string_view text;
    Operator op;
  };
  static constexpr Spelling kOperators[] = {
      {"===", Operator::kArbitraryEqual}, {"~=", Operator::kCompatible},
      {"==", Operator::kEqual},           {"!=", Operator::kNotEqual},
      {"<=", Operator::kLessEqual},       {">=", Operator::kGreaterEqual},
      {"<", Operator::kLess},             {">", Operator::kGreater},
  };
  const Spelling* spelling = nullptr;
  for (const Spelling& candidate : kOperators) {
    if (rest.starts_with(candidate.text)) {
      spelling = &candidate;
      break;
    }
  }
  if (spelling == nullptr) {
    return specifier_error(text, pos, "expected an operator (~=, ==, !=, <=, >=, <, >, ===)");
  }
  pos += spelling->text.size();
  const std::size_t operand_offset = pos;
  const std::string_view operand = detail::python_strip(text.substr(pos));

  Specifier spec;
  spec.op_ = spelling->op;
  spec.raw_.assign(operand);

  if (spec.op_ == Operator::kArbitraryEqual) {
    // `[^\s;)]*`: anything without whitespace, ';' or ')', even nothing.
    if (has_python_space_or(operand, ";)")) {
      return specifier_error(text, operand_offset,
                             "expected one word without whitespace, `;` or `)` after `===`");
    }
    Result<Version> version = parse_version(operand);
    if (version) {
      spec.operand_is_version_ = true;
      spec.prereleases_ = version->is_prerelease();
      spec.version_ = std::move(*version);
    }
    return spec;
  }

  const bool equality = spec.op_ == Operator::kEqual || spec.op_ == Operator::kNotEqual;
  if (equality && operand.ends_with(".*")) {
    const std::string_view prefix = operand.substr(0, operand.size() - 2);
    if (!is_star_prefix(prefix)) {
      return specifier_error(text, operand_offset,
                             "expected only release numbers before `.*` (no suffix or local "
                             "label)");
    }
    WV_ASSIGN_OR_RETURN(spec.version_, parse_version(prefix));
    spec.op_ = spec.op_ == Operator::kEqual ? Operator::kEqualStar : Operator::kNotEqualStar;
  } else {
    if (has_python_space_or(operand, "")) {
      return specifier_error(text, operand_offset, "expected a version without whitespace");
    }
    Result<Version> version = parse_version(operand);
    if (!version) {
      Error error = std::move(version).error();
      return std::move(error).with_context(str_cat("in the version specifier ", in_backticks(text)));
    }
    spec.version_ = std::move(*version);
    if (!equality && spec.version_.has_local()) {
      return specifier_error(text, operand_offset,
                             str_cat("expected no local version label with `",
                                     spelling->text, "` (only == and != take one)"));
    }
    if (spec.op_ == Operator::kCompatible && spec.version_.release().size() < 2) {
      return specifier_error(text, operand_offset,
                             "expected at least two release numbers after `~=`");
    }
  }

  spec.compute_bounds();
  spec.prereleases_ = spec.admits_prereleases();
  return spec;
}

std::string Specifier::to_string() const {
  std::string out(operator_string(op_));
  out.append(raw_);
  return out;
}

std::optional<bool> Specifier::prereleases() const {
  if (op_ == Operator::kArbitraryEqual && !operand_is_version_) return std::nullopt;
  return prereleases_;
}

// packaging's Specifier.prereleases: `!=` (with or without `.*`) and `==V.*` never admit
// pre-releases by themselves; every other operator does when its operand is a pre-release.
bool Specifier::admits_prereleases() const {
  switch (op_) {
    case Operator::kNotEqual:
    case Operator::kNotEqualStar:
    case Operator::kEqualStar:
      return false;
    case Operator::kArbitraryEqual:
      return operand_is_version_ && version_.is_prerelease();
    default:
      return version_.is_prerelease();
  }
}

std::string Specifier::identity_key() const {
  std::string key(operator_string(op_));
  // `===` and the `.*` forms compare as written; the others by canonical operand (trailing
  // zeros kept for ~=, whose meaning depends on them).
  if (op_ == Operator::kArbitraryEqual) return key.append(raw_);
  if (op_ == Operator::kEqualStar || op_ == Operator::kNotEqualStar) return key.append(raw_);
  key.append(canonical_string(version_, op_ != Operator::kCompatible));
  return key;
}

// Each operator as an interval of the version order (packaging 26's _ranges): the bounds that
// are versions are computed once here, so matching is a few comparisons.
void Specifier::compute_bounds() {
  switch (op_) {
    case Operator::kLess:
      // <V leaves out V's pre-releases unless V is one: below V.dev0 (V.postN.dev0 for a post).
      lower_ = version_.is_prerelease() ? version_ : with_dev0(version_);
      break;
    case Operator::kGreater:
      // >V.devN and >V.postN start at the next real version; >V (final or pre) leaves out V's
      // post family, checked in matches().
      if (const auto dev = version_.dev()) {
        if (*dev != UINT64_MAX) {
          lower_ = Version::from_parts(version_.epoch(), release_of(version_), version_.pre(),
                                       version_.post(), *dev + 1);
        }
      } else if (const auto post = version_.post()) {
        if (*post != UINT64_MAX) {
          lower_ = Version::from_parts(version_.epoch(), release_of(version_), version_.pre(),
                                       *post + 1, 0);
        }
      }
      break;
    case Operator::kCompatible: {
      std::vector<std::uint64_t> prefix = release_of(version_);
      prefix.pop_back();
      upper_ = next_prefix_dev0(version_.epoch(), std::move(prefix));
      break;
    }
    case Operator::kEqualStar:
    case Operator::kNotEqualStar:
      lower_ = Version::from_parts(version_.epoch(), release_of(version_), std::nullopt,
                                   std::nullopt, 0);
      upper_ = next_prefix_dev0(version_.epoch(), release_of(version_));
      break;
    default:
      break;
  }
}

bool Specifier::in_prefix(const Version& v) const {
  return v >= *lower_ && (!upper_ || v < *upper_);
}

bool Specifier::matches(const Version& v) const {
  switch (op_) {
    case Operator::kEqual:
      if (version_.has_local()) return v == version_;
      return v.compare_public(version_) == 0;
    case Operator::kNotEqual:
      if (version_.has_local()) return v != version_;
      return v.compare_public(version_) != 0;
    case Operator::kLessEqual:
      return v.compare_public(version_) <= 0;
    case Operator::kGreaterEqual:
      return v >= version_;
    case Operator::kLess:
      return v < *lower_;
    case Operator::kGreater:
      if (version_.is_devrelease() || version_.is_postrelease()) return lower_ && v >= *lower_;
      return v > version_ && !in_post_family(v, version_);
    case Operator::kCompatible:
      return v >= version_ && (!upper_ || v < *upper_);
    case Operator::kArbitraryEqual:
      return to_lower(raw_) == v.to_string();
    case Operator::kEqualStar:
      return in_prefix(v);
    case Operator::kNotEqualStar:
      return !in_prefix(v);
  }
  return false;
}

bool Specifier::contains(const Version& v, std::optional<bool> prereleases) const {
  // PEP 440 and packaging 26: a lone version has no alternatives, so by default a pre-release
  // is judged like any version; only an explicit `false` leaves pre-releases out.
  if (prereleases == false && v.is_prerelease()) return false;
  return matches(v);
}

bool Specifier::contains(std::string_view text, std::optional<bool> prereleases) const {
  Result<Version> v = parse_version(text);
  if (op_ == Operator::kArbitraryEqual) {
    if (prereleases == false && v && v->is_prerelease()) return false;
    return to_lower(raw_) == to_lower(text);
  }
  return v && contains(*v, prereleases);  // an unparsable version is never contained
}

// ---- sets --------------------------------------------------------------------------------------

void SpecifierSet::add(Specifier specifier) {
  const std::string key = specifier.identity_key();
  for (Specifier& existing : specifiers_) {
    if (existing.identity_key() != key) continue;
    // packaging keeps, of equal clauses, the one that sorts first as written.
    if (specifier.to_string() < existing.to_string()) existing = std::move(specifier);
    return;
  }
  prereleases_ = prereleases_ || specifier.prereleases().value_or(false);
  has_arbitrary_ = has_arbitrary_ || specifier.op() == Operator::kArbitraryEqual;
  specifiers_.push_back(std::move(specifier));
}

std::optional<bool> SpecifierSet::prereleases() const {
  // packaging 26: true when a clause admits pre-releases, else unknown (never false).
  if (!prereleases_) return std::nullopt;
  return true;
}

bool SpecifierSet::contains(const Version& v, std::optional<bool> prereleases) const {
  if (prereleases == false && v.is_prerelease()) return false;
  for (const Specifier& specifier : specifiers_) {
    if (!specifier.matches(v)) return false;
  }
  return true;
}

bool SpecifierSet::contains(std::string_view text, std::optional<bool> prereleases) const {
  Result<Version> v = parse_version(text);
  if (!has_arbitrary_) return v && contains(*v, prereleases);
  if (prereleases == false && v && v->is_prerelease()) return false;
  for (const Specifier& specifier : specifiers_) {
    if (!specifier.contains(text, true)) return false;
  }
  return true;
}

std::string SpecifierSet::to_string() const {
  std::vector<std::string> pieces;
  pieces.reserve(specifiers_.size());
  for (const Specifier& specifier : specifiers_) pieces.push_back(specifier.to_string());
  std::sort(pieces.begin(), pieces.end());
  return join(pieces, ",");
}

SpecifierSet SpecifierSet::intersect(const SpecifierSet& other) const {
  SpecifierSet out = *this;
  for (const Specifier& specifier : other.specifiers_) out.add(specifier);
  return out;
}

Result<SpecifierSet> parse_specifier_set(std::string_view text) {
  SpecifierSet set;
  for (std::string_view piece : split(text, ',')) {
    piece = detail::python_strip(piece);
    if (piece.empty()) continue;
    Result<Specifier> specifier = parse_specifier(piece);
    if (!specifier) {
      return std::move(specifier).error().with_context(
          str_cat("in the version specifiers ", in_backticks(text)));
    }
    set.add(std::move(*specifier));
  }
  return set;
}

}  // namespace wv::pkg
