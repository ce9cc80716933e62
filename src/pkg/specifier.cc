// PEP 440 version specifiers with packaging 23.0's exact behaviour (specifiers.py): the
// specifier pattern, the ==V.* prefix match on canonical version strings (_version_split /
// _pad_version), ~= via that prefix, and the pre-release rules of Specifier and SpecifierSet.
#include "pkg/specifier.h"

#include <algorithm>

#include "base/str.h"
#include "pkg/version_text.h"

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

// canonicalize_version() of a string: the canonical form when it is a version, else unchanged.
std::string canonicalize(std::string_view text, bool strip_trailing_zero) {
  Result<Version> parsed = parse_version(text);
  if (!parsed) return std::string(text);
  return canonical_string(*parsed, strip_trailing_zero);
}

bool is_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_ascii_digit);
}

// packaging's _version_split: split on '.', and split "2rc1" (digits then a|b|c|rc and digits,
// lower case only, as the reference's pattern is case-sensitive) into "2", "rc1".
std::vector<std::string> version_split(std::string_view text) {
  std::vector<std::string> items;
  for (std::string_view item : split(text, '.')) {
    std::size_t digits = 0;
    while (digits < item.size() && is_ascii_digit(item[digits])) ++digits;
    bool split_here = false;
    std::size_t letters = 0;
    if (digits > 0 && digits < item.size()) {
      const std::string_view rest = item.substr(digits);
      if (rest.starts_with("rc")) letters = 2;
      else if (rest[0] == 'a' || rest[0] == 'b' || rest[0] == 'c') letters = 1;
      split_here = letters > 0 && is_digits(rest.substr(letters));
    }
    if (split_here) {
      items.emplace_back(item.substr(0, digits));
      items.emplace_back(item.substr(digits));
    } else {
      items.emplace_back(item);
    }
  }
  return items;
}

// packaging's _is_not_suffix.
bool is_not_suffix(std::string_view segment) {
  for (std::string_view prefix : {"dev", "a", "b", "rc", "post"}) {
    if (segment.starts_with(prefix)) return false;
  }
  return true;
}

// The general form of the ==V.* test (packaging's _compare_equal for a ".*" operand): compare
// the split canonical public version, padded with "0" items, with the split operand.
bool star_matches_general(const Version& v, const std::vector<std::string>& spec_items) {
  const std::vector<std::string> prospective = version_split(canonical_string(v.public_version(), true));
  std::size_t left_digits = 0;
  while (left_digits < prospective.size() && is_digits(prospective[left_digits])) ++left_digits;
  std::size_t right_digits = 0;
  while (right_digits < spec_items.size() && is_digits(spec_items[right_digits])) ++right_digits;
  std::vector<std::string> padded(prospective.begin(), prospective.begin() + left_digits);
  for (std::size_t i = left_digits; i < right_digits; ++i) padded.emplace_back("0");
  padded.insert(padded.end(), prospective.begin() + left_digits, prospective.end());
  if (padded.size() < spec_items.size()) return false;
  return std::equal(spec_items.begin(), spec_items.end(), padded.begin());
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

// a <=> b with a's local label ignored (b never has one where this is used).
std::strong_ordering compare_public(const Version& a, const Version& b) {
  return a.compare_public(b);
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

  // The prefix ==V.* compares against; ~= uses the operand minus its last release number and
  // its suffixes, computed on the operand as written, exactly like packaging.
  std::string prefix;
  bool canonical = false;
  if (spec.op_ == Operator::kEqualStar || spec.op_ == Operator::kNotEqualStar) {
    prefix = canonical_string(spec.version_, false);
    canonical = true;
  } else if (spec.op_ == Operator::kCompatible) {
    std::vector<std::string> items = version_split(operand);
    std::vector<std::string> kept;
    for (std::string& item : items) {
      if (!is_not_suffix(item)) break;
      kept.push_back(std::move(item));
    }
    if (!kept.empty()) kept.pop_back();
    const std::string joined = join(kept, ".");
    Result<Version> parsed = parse_version(joined);
    canonical = parsed.has_value();
    prefix = canonical ? canonical_string(*parsed, false) : joined;
  }
  if (!prefix.empty() || spec.op_ == Operator::kCompatible) {
    spec.star_items_ = version_split(prefix);
    spec.star_fast_ = canonical && std::all_of(spec.star_items_.begin(), spec.star_items_.end(),
                                               [](const std::string& s) { return is_digits(s); });
    if (spec.star_fast_) {
      for (const std::string& item : spec.star_items_) {
        spec.star_numeric_.push_back(parse_uint64(item).value_or(0));
      }
    }
  }

  switch (spec.op_) {
    case Operator::kEqual:
    case Operator::kGreaterEqual:
    case Operator::kLessEqual:
    case Operator::kCompatible:
      spec.prereleases_ = spec.version_.is_prerelease();
      break;
    default:
      spec.prereleases_ = false;  // != < > and the .* forms (whose operand is a release)
      break;
  }
  return spec;
}

std::string Specifier::to_string() const {
  std::string out(operator_string(op_));
  out.append(raw_);
  return out;
}

std::optional<bool> Specifier::prereleases() const { return prereleases_; }

std::string Specifier::identity_key() const {
  std::string key(operator_string(op_));
  key.append(canonicalize(raw_, op_ != Operator::kCompatible));
  return key;
}

bool Specifier::matches_star(const Version& v) const {
  if (!star_fast_) return star_matches_general(v, star_items_);
  const std::size_t n = star_numeric_.size();
  if (v.epoch() != 0) {
    // The prospective's first item is "E!N", not a number: the reference pads it with n "0"
    // items, so only an all-zero prefix matches (a quirk of packaging kept for fidelity).
    return std::all_of(star_numeric_.begin(), star_numeric_.end(),
                       [](std::uint64_t x) { return x == 0; });
  }
  const std::span<const std::uint64_t> release = v.release();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t part = i < release.size() ? release[i] : 0;
    if (part != star_numeric_[i]) return false;
  }
  return true;
}

bool Specifier::matches(const Version& v) const {
  switch (op_) {
    case Operator::kEqual:
      if (version_.has_local()) return v == version_;
      return compare_public(v, version_) == 0;
    case Operator::kNotEqual:
      if (version_.has_local()) return v != version_;
      return compare_public(v, version_) != 0;
    case Operator::kLessEqual:
      return compare_public(v, version_) <= 0;
    case Operator::kGreaterEqual:
      return compare_public(v, version_) >= 0;
    case Operator::kLess:
      if (!(v < version_)) return false;
      // <V excludes pre-releases of V itself unless V is one.
      if (!version_.is_prerelease() && v.is_prerelease() && same_base(v, version_)) return false;
      return true;
    case Operator::kGreater:
      if (!(v > version_)) return false;
      // >V excludes post-releases of V unless V is one, and local versions of V's release.
      if (!version_.is_postrelease() && v.is_postrelease() && same_base(v, version_)) {
        return false;
      }
      if (v.has_local() && same_base(v, version_)) return false;
      return true;
    case Operator::kCompatible:
      return compare_public(v, version_) >= 0 && matches_star(v);
    case Operator::kArbitraryEqual:
      return to_lower(raw_) == v.to_string();
    case Operator::kEqualStar:
      return matches_star(v);
    case Operator::kNotEqualStar:
      return !matches_star(v);
  }
  return false;
}

bool Specifier::contains(const Version& v, std::optional<bool> prereleases) const {
  const bool allow = prereleases.value_or(prereleases_);
  if (!allow && v.is_prerelease()) return false;
  return matches(v);
}

// ---- sets --------------------------------------------------------------------------------------

void SpecifierSet::add(Specifier specifier) {
  const std::string key = specifier.identity_key();
  for (const Specifier& existing : specifiers_) {
    if (existing.op() == specifier.op() && existing.identity_key() == key) return;
  }
  prereleases_ = prereleases_ || specifier.prereleases().value_or(false);
  specifiers_.push_back(std::move(specifier));
}

std::optional<bool> SpecifierSet::prereleases() const {
  if (specifiers_.empty()) return std::nullopt;
  return prereleases_;
}

bool SpecifierSet::contains(const Version& v, std::optional<bool> prereleases) const {
  const bool allow = prereleases.value_or(prereleases_);
  if (!allow && v.is_prerelease()) return false;
  for (const Specifier& specifier : specifiers_) {
    if (!specifier.matches(v)) return false;
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
