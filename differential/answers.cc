// Our answers in oracle.py's layout, the case-file format and the classifier of documented
// deliberate differences (docs/differential.md).
#include "differential/answers.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "src/base/str.h"
#include "src/pkg/name.h"
#include "src/pkg/requirement.h"
#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

namespace wv::differential {
namespace {

constexpr std::string_view kModes[] = {"None", "True", "False"};

std::string error_answer(const Error& error) {
  return error.code == ErrorCode::kUnsupported ? "unsupported" : "invalid";
}

std::string evaluation_answer(const Result<bool>& result) {
  if (result) return *result ? "1" : "0";
  const std::string& message = result.error().message;
  if (message.find("invalid version") != std::string::npos) return "E:version";
  if (message.find("undefined comparison") != std::string::npos) return "E:comparison";
  if (message.find("undefined environment name") != std::string::npos) return "E:name";
  return "E:other";
}

std::vector<std::string> split_answer(std::string_view answer) {
  std::vector<std::string> out;
  for (std::string_view piece : split(answer, '|')) out.emplace_back(trim(piece));
  return out;
}

// True when `text` holds a run of digits whose value is above 2^64-1 (the documented limit
// of our version numbers).
bool has_big_number(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_ascii_digit(text[i])) {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < text.size() && is_ascii_digit(text[i])) ++i;
    std::string_view digits = text.substr(start, i - start);
    while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
    if (!parse_uint64(digits)) return true;
  }
  return false;
}

bool any_input(std::span<const std::string> inputs, bool (*test)(std::string_view)) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [&](const std::string& input) { return test(input); });
}

// The PEP 825 variant markers: ours, not packaging's.
bool names_variant_variable(std::string_view text) {
  for (std::string_view name : {"variant_label", "variant_properties", "variant_features",
                                "variant_namespaces"}) {
    if (text.find(name) != std::string_view::npos) return true;
  }
  return false;
}

// The PEP 751 set variables (`extras` also matches inside `extras`-like words; the rule
// checks validity too).
bool names_set_variable(std::string_view text) {
  return text.find("extras") != std::string_view::npos ||
         text.find("dependency_groups") != std::string_view::npos;
}

// Non-ASCII letters that Python's re.IGNORECASE matches to ASCII ones (simple case folding):
// U+017F long s, U+212A Kelvin sign, U+0130 and U+0131 (dotted / dotless i).
bool has_unicode_fold_letter(std::string_view text) {
  for (std::string_view letter : {"\xc5\xbf", "\xe2\x84\xaa", "\xc4\xb0", "\xc4\xb1"}) {
    if (text.find(letter) != std::string_view::npos) return true;
  }
  return false;
}

bool has_named_escape(std::string_view text) { return text.find("\\N{") != std::string_view::npos; }

}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kVersion: return "version";
    case Kind::kOrder: return "order";
    case Kind::kSpecifier: return "specifier";
    case Kind::kMarker: return "marker";
    case Kind::kRequirement: return "requirement";
    case Kind::kIntersection: return "intersection";
    case Kind::kName: return "name";
  }
  return "?";
}

std::size_t input_columns(Kind kind) {
  switch (kind) {
    case Kind::kVersion: return 1;
    case Kind::kOrder: return 2;
    case Kind::kSpecifier: return 3;
    case Kind::kMarker: return 3;
    case Kind::kRequirement: return 1;
    case Kind::kIntersection: return 4;
    case Kind::kName: return 1;
  }
  return 1;
}

std::vector<std::string> environment_values(const pkg::MarkerEnvironment& e) {
  return {e.implementation_name,    e.implementation_version, e.os_name,
          e.platform_machine,       e.platform_python_implementation,
          e.platform_release,       e.platform_system,        e.platform_version,
          e.python_full_version,    e.python_version,         e.sys_platform};
}

pkg::MarkerEnvironment environment_from_values(std::span<const std::string> values) {
  pkg::MarkerEnvironment e;
  std::array<std::string*, 11> slots = {
      &e.implementation_name,    &e.implementation_version, &e.os_name,
      &e.platform_machine,       &e.platform_python_implementation,
      &e.platform_release,       &e.platform_system,        &e.platform_version,
      &e.python_full_version,    &e.python_version,         &e.sys_platform};
  for (std::size_t i = 0; i < slots.size() && i < values.size(); ++i) *slots[i] = values[i];
  return e;
}

Fields our_version(std::string_view text) {
  Result<pkg::Version> version = pkg::parse_version(text);
  if (!version) return {error_answer(version.error())};
  std::string flags = {version->is_prerelease() ? '1' : '0', version->is_postrelease() ? '1' : '0',
                       version->is_devrelease() ? '1' : '0'};
  return {"ok",
          version->to_string(),
          version->public_version().to_string(),
          version->base_version().to_string(),
          flags,
          version->local()};
}

Fields our_order(std::span<const std::string> texts) {
  std::vector<std::optional<pkg::Version>> versions;
  for (const std::string& text : texts) {
    Result<pkg::Version> version = pkg::parse_version(text);
    versions.push_back(version ? std::optional<pkg::Version>(*version) : std::nullopt);
  }
  Fields out;
  for (const auto& a : versions) {
    if (!a) {
      out.emplace_back("x");
      continue;
    }
    std::size_t below = 0;
    for (const auto& b : versions) below += (b && *b < *a) ? 1 : 0;
    out.push_back(std::to_string(below));
  }
  return out;
}

namespace {

Fields specifier_answer(const pkg::SpecifierSet& set, std::span<const std::string> versions) {
  std::optional<bool> pre = set.prereleases();
  Fields out = {"ok", set.to_string(), !pre ? "None" : (*pre ? "True" : "False")};
  for (const std::string& text : versions) {
    Result<pkg::Version> version = pkg::parse_version(text);
    if (!version) {
      out.emplace_back("???");
      continue;
    }
    std::string bits;
    for (std::optional<bool> mode : {std::optional<bool>(), std::optional<bool>(true),
                                     std::optional<bool>(false)}) {
      bits.push_back(set.contains(*version, mode) ? '1' : '0');
    }
    out.push_back(std::move(bits));
  }
  return out;
}

int mode_index(std::string_view mode) {
  for (int m = 0; m < 3; ++m) {
    if (mode == kModes[m]) return m;
  }
  return 0;
}

}  // namespace

Fields our_specifier(std::string_view set_text, std::span<const std::string> versions) {
  Result<pkg::SpecifierSet> set = pkg::parse_specifier_set(set_text);
  if (!set) return {error_answer(set.error())};
  return specifier_answer(*set, versions);
}

Fields our_intersection(std::string_view a, std::string_view b,
                        std::span<const std::string> versions) {
  Result<pkg::SpecifierSet> left = pkg::parse_specifier_set(a);
  if (!left) return {error_answer(left.error())};
  Result<pkg::SpecifierSet> right = pkg::parse_specifier_set(b);
  if (!right) return {error_answer(right.error())};
  return specifier_answer(left->intersect(*right), versions);
}

Fields our_name(std::string_view text) { return {pkg::normalize_name(text)}; }

Fields our_marker(std::string_view text, std::span<const Evaluation> evaluations) {
  Result<pkg::Marker> marker = pkg::parse_marker(text);
  if (!marker) return {error_answer(marker.error())};
  Fields out = {"ok", marker->to_string()};
  for (const Evaluation& evaluation : evaluations) {
    pkg::MarkerContext context;
    context.environment = evaluation.environment;
    if (!evaluation.extra.empty()) context.extras = std::span<const std::string>(&evaluation.extra, 1);
    out.push_back(evaluation_answer(marker->evaluate(context)));
  }
  return out;
}

Fields our_requirement(std::string_view text) {
  Result<pkg::Requirement> requirement = pkg::parse_requirement(text);
  if (!requirement) return {error_answer(requirement.error())};
  return {"ok",
          requirement->to_string(),
          requirement->name,
          join(requirement->extras, ","),
          requirement->specifier.to_string(),
          requirement->url.value_or(""),
          requirement->marker.to_string()};
}

std::string join_answer(const Fields& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += " | ";
    for (char c : fields[i]) {
      if (c == '|') {
        out += "\\x7c";
      } else {
        out.push_back(c);
      }
    }
  }
  return out;
}

std::string reduce_specifier(const Fields& fields, std::size_t index, int mode) {
  if (fields.empty() || fields[0] != "ok" || fields.size() < 3) return join_answer(fields);
  Fields single = {fields[0], fields[1], fields[2]};
  if (3 + index < fields.size() && fields[3 + index].size() == 3) {
    single.emplace_back(1, fields[3 + index][mode]);
  }
  return join_answer(single);
}

std::string reduce_marker(const Fields& fields, std::size_t index) {
  if (fields.empty() || fields[0] != "ok" || fields.size() < 2) return join_answer(fields);
  Fields single = {fields[0], fields[1]};
  if (2 + index < fields.size()) single.push_back(fields[2 + index]);
  return join_answer(single);
}

std::string reduce_order(const std::string& a, const std::string& b) {
  if (a == "x" || b == "x") return "invalid";
  std::uint64_t x = std::stoull(a);
  std::uint64_t y = std::stoull(b);
  return x < y ? "<" : (x > y ? ">" : "=");
}

std::string answer_case(Kind kind, std::span<const std::string> inputs) {
  switch (kind) {
    case Kind::kVersion: return join_answer(our_version(inputs[0]));
    case Kind::kOrder: {
      Fields ranks = our_order(inputs.subspan(0, 2));
      return reduce_order(ranks[0], ranks[1]);
    }
    case Kind::kSpecifier:
      return reduce_specifier(our_specifier(inputs[0], inputs.subspan(1, 1)), 0,
                              mode_index(inputs[2]));
    case Kind::kIntersection:
      return reduce_specifier(our_intersection(inputs[0], inputs[1], inputs.subspan(2, 1)), 0,
                              mode_index(inputs[3]));
    case Kind::kName: return join_answer(our_name(inputs[0]));
    case Kind::kMarker: {
      std::vector<std::string> values;
      for (std::string_view value : split(inputs[1], '|')) values.emplace_back(value);
      pkg::PreparedEnvironment environment(environment_from_values(values));
      Evaluation evaluation{&environment, inputs[2]};
      return reduce_marker(our_marker(inputs[0], std::span<const Evaluation>(&evaluation, 1)), 0);
    }
    case Kind::kRequirement: return join_answer(our_requirement(inputs[0]));
  }
  return "?";
}

namespace {

// The answer of packaging 26 for a printed form it cannot produce (oracle.py's UNPRINTABLE).
constexpr std::string_view kUnprintable = "unprintable: ValueError";

bool is_marker_like(Kind kind) { return kind == Kind::kMarker || kind == Kind::kRequirement; }

// Two single-case answers with the same number of fields, where `differs_only(a, b)` holds
// for every field that differs, and some field differs.
template <typename Allowed>
bool differ_only_where(const std::string& ours, const std::string& packaging, Allowed allowed) {
  std::vector<std::string> a = split_answer(ours);
  std::vector<std::string> b = split_answer(packaging);
  if (a.size() != b.size()) return false;
  bool some = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (!allowed(a[i], b[i])) return false;
    some = true;
  }
  return some;
}

// ---- the rules: each gives its verdict when the disagreement is of its class ---------------

std::optional<std::string> unicode_name(std::span<const std::string> inputs,
                                        const std::string& ours, const std::string& packaging) {
  // Only the non-ASCII letters may differ: without them the answers must be equal (or the
  // text holds one of the letters whose lower case is ASCII, as the Kelvin sign's is `k`).
  auto ascii_only = [](std::string_view text) {
    std::string out;
    for (char c : text) {
      if (static_cast<unsigned char>(c) < 0x80) out.push_back(c);
    }
    return out;
  };
  if (ascii_only(inputs[0]) != inputs[0] &&
      (ascii_only(ours) == ascii_only(packaging) || has_unicode_fold_letter(inputs[0]))) {
    return "spec: unicode-name: PEP 503 names are ASCII (core metadata); we lower-case "
           "ASCII letters only, packaging's str.lower() any letter (docs/pep508.md)";
  }
  return std::nullopt;
}

std::optional<std::string> big_number(Kind kind, std::span<const std::string> inputs,
                                      const std::string& ours, const std::string& packaging) {
  // Numbers above 2^64-1 (docs/pep440.md "Deviations"): we refuse them, packaging takes any.
  // In a marker the number decides whether `op + value` is a version specifier, and in a
  // specifier set whether a `===` operand is a (pre-release) version, so any answer may
  // differ; elsewhere only validity.
  if (packaging.starts_with("ok") && any_input(inputs, has_big_number) &&
      (ours == "unsupported" || ours == "invalid" || kind == Kind::kMarker ||
       (kind == Kind::kSpecifier && has_big_number(inputs[0])))) {
    return "spec: big-number: PEP 440 numbers above 2^64-1 are refused (docs/pep440.md)";
  }
  return std::nullopt;
}

std::optional<std::string> named_escape(Kind kind, std::span<const std::string> inputs,
                                        const std::string& ours, const std::string& packaging) {
  if (is_marker_like(kind) && ours == "invalid" && packaging.starts_with("ok") &&
      has_named_escape(inputs[0])) {
    return "spec: named-escape: \\N{...} escapes are refused (no Unicode name table); "
           "docs/pep508.md";
  }
  return std::nullopt;
}

std::optional<std::string> unicode_case(Kind kind, std::span<const std::string> inputs,
                                        bool validity_differs) {
  const bool arbitrary_fold = kind == Kind::kSpecifier &&
                              inputs[0].find("===") != std::string::npos &&
                              has_unicode_fold_letter(inputs[0]);
  // PEP 685 normalisation of `extra` values is canonicalize_name(), i.e. str.lower().
  // In a marker, whether `op + value` is a version specifier depends on the folding too
  // (`== "1.0+K"` with the Kelvin sign is one for packaging).
  const bool extra_fold = kind == Kind::kMarker || (kind == Kind::kRequirement &&
                                                    inputs[0].find("extra") != std::string::npos);
  if (any_input(inputs, has_unicode_fold_letter) &&
      (validity_differs || arbitrary_fold || extra_fold)) {
    return "spec: unicode-case: Python's re.IGNORECASE and str.lower() fold a few non-ASCII "
           "letters (U+017F, U+212A, U+0130, U+0131) to ASCII; we match ASCII case only "
           "(docs/pep440.md)";
  }
  return std::nullopt;
}

std::optional<std::string> extension_variable(Kind kind, std::span<const std::string> inputs,
                                              const std::string& ours,
                                              const std::string& packaging) {
  // PEP 825's variant_* are not packaging's; PEP 751's `extras` / `dependency_groups` are, in
  // any comparison, where we accept only `"x" in extras` / `"x" not in extras`.
  const bool ours_only = ours.starts_with("ok") && packaging == "invalid" &&
                         names_variant_variable(inputs[0]);
  const bool set_form = ours == "invalid" && packaging.starts_with("ok") &&
                        names_set_variable(inputs[0]);
  if (is_marker_like(kind) && (ours_only || set_form)) {
    return "spec: extension-variable: PEP 825 variant markers are ours; the PEP 751 sets "
           "`extras` and `dependency_groups` take only the membership form `\"x\" in extras` "
           "(docs/pep508.md)";
  }
  return std::nullopt;
}

std::optional<std::string> unprintable_value(Kind kind, const std::string& ours,
                                             const std::string& packaging) {
  // A value holding both quote characters cannot be quoted: packaging's str() raises
  // ValueError, our to_string() cannot fail and writes it in double quotes. Every other field
  // must agree.
  auto allowed = [](const std::string& a, const std::string& b) {
    return b == kUnprintable && a.find('"') != std::string::npos &&
           a.find('\'') != std::string::npos;
  };
  if (is_marker_like(kind) && differ_only_where(ours, packaging, allowed)) {
    return "spec: unprintable-value: a marker value holding both quote characters has no "
           "quoted form; packaging 26 raises ValueError from str(), our to_string() returns "
           "it double-quoted (errors are values, printing cannot fail); docs/pep508.md";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> explain(Kind kind, std::span<const std::string> inputs,
                                   const std::string& ours, const std::string& packaging) {
  if (kind == Kind::kIntersection) {
    // The rules of a single set, for the two sets' clauses written as one.
    const std::string joined = str_cat(inputs[0], ",", inputs[1]);
    const std::string as_set[] = {joined, inputs[2], inputs[3]};
    return explain(Kind::kSpecifier, as_set, ours, packaging);
  }
  if (kind == Kind::kName) return unicode_name(inputs, ours, packaging);
  const bool validity_differs = packaging.starts_with("ok") != ours.starts_with("ok");
  // The rules that prove their cause come first; unicode-case only sees that a feature is
  // present, so it must not stand in for another cause.
  for (auto rule : {big_number, named_escape, extension_variable}) {
    if (std::optional<std::string> verdict = rule(kind, inputs, ours, packaging)) return verdict;
  }
  if (auto verdict = unicode_case(kind, inputs, validity_differs)) return verdict;
  return unprintable_value(kind, ours, packaging);
}

std::string escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 >= text.size()) return std::nullopt;
    char c = text[++i];
    if (c == '\\') {
      out.push_back('\\');
    } else if (c == 't') {
      out.push_back('\t');
    } else if (c == 'n') {
      out.push_back('\n');
    } else if (c == 'r') {
      out.push_back('\r');
    } else if (c == 'x' && i + 2 < text.size()) {
      auto digit = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      int high = digit(text[i + 1]);
      int low = digit(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string case_line(std::span<const std::string> inputs, const std::string& expected,
                      const std::string& packaging, const std::string& verdict) {
  std::string line;
  for (const std::string& input : inputs) {
    line += escape(input);
    line.push_back('\t');
  }
  line += escape(expected);
  line.push_back('\t');
  line += escape(packaging);
  line.push_back('\t');
  line += escape(verdict);
  return line;
}

}  // namespace wv::differential
