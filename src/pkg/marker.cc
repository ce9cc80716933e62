#include "src/pkg/marker.h"

#include <algorithm>
#include <array>

#include "src/base/limits.h"
#include "src/base/str.h"
#include "src/pkg/marker_lexer.h"
#include "src/pkg/name.h"
#include "src/pkg/specifier.h"
#include "src/pkg/version_text.h"

namespace wv::pkg {

namespace {

constexpr std::array<std::string_view, 18> kVariableNames = {
    "implementation_name", "implementation_version",
    "os_name",             "platform_machine",
    "platform_python_implementation",
    "platform_release",    "platform_system",
    "platform_version",    "python_full_version",
    "python_version",      "sys_platform",
    "extra",               "extras",
    "dependency_groups",   "variant_label",
    "variant_properties",  "variant_features",
    "variant_namespaces"};

// Variables whose value is a set: only `"literal" in variable` / `not in` make sense.
bool is_set_variable(MarkerVariable variable) {
  switch (variable) {
    case MarkerVariable::kExtras:
    case MarkerVariable::kDependencyGroups:
    case MarkerVariable::kVariantProperties:
    case MarkerVariable::kVariantFeatures:
    case MarkerVariable::kVariantNamespaces:
      return true;
    default:
      return false;
  }
}

// The variables of PEP 508 (environment names and `extra`): the reference semantics.
bool is_pep508_variable(MarkerVariable variable) {
  return static_cast<std::size_t>(variable) <= static_cast<std::size_t>(MarkerVariable::kExtra);
}

// The variables packaging 26 compares as versions (MARKERS_REQUIRING_VERSION); every other one
// is a string.
bool is_version_variable(MarkerVariable variable) {
  switch (variable) {
    case MarkerVariable::kImplementationVersion:
    case MarkerVariable::kPlatformRelease:
    case MarkerVariable::kPythonFullVersion:
    case MarkerVariable::kPythonVersion:
      return true;
    default:
      return false;
  }
}

// Canonical `ns :: feature :: value` spelling: whitespace around each `::` removed, then
// joined with " :: " (reference/variants.md §4.5: whitespace around `::` is ignored).
std::string canonical_variant_text(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find("::", start);
    std::string_view piece = trim(text.substr(start, at == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : at - start));
    if (!out.empty() || start > 0) out += " :: ";
    out += piece;
    if (at == std::string_view::npos) break;
    start = at + 2;
  }
  return out;
}

// PEP 503/685 normalised equality without allocating: runs of -_. are one '-', ASCII case
// folded.
bool names_equal(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto is_sep = [](char c) { return c == '-' || c == '_' || c == '.'; };
  while (i < a.size() && j < b.size()) {
    if (is_sep(a[i]) && is_sep(b[j])) {
      while (i < a.size() && is_sep(a[i])) ++i;
      while (j < b.size() && is_sep(b[j])) ++j;
      continue;
    }
    if (to_ascii_lower(a[i]) != to_ascii_lower(b[j])) return false;
    ++i;
    ++j;
  }
  return i == a.size() && j == b.size();
}

}  // namespace

std::string_view marker_variable_name(MarkerVariable variable) {
  return kVariableNames[static_cast<std::size_t>(variable)];
}

std::optional<MarkerVariable> find_marker_variable(std::string_view name) {
  for (std::size_t i = 0; i < kVariableNames.size(); ++i) {
    if (kVariableNames[i] == name) return static_cast<MarkerVariable>(i);
  }
  return std::nullopt;
}

std::string_view marker_operator_string(MarkerOperator op) {
  switch (op) {
    case MarkerOperator::kEqual: return "==";
    case MarkerOperator::kNotEqual: return "!=";
    case MarkerOperator::kLess: return "<";
    case MarkerOperator::kLessEqual: return "<=";
    case MarkerOperator::kGreater: return ">";
    case MarkerOperator::kGreaterEqual: return ">=";
    case MarkerOperator::kCompatible: return "~=";
    case MarkerOperator::kArbitraryEqual: return "===";
    case MarkerOperator::kIn: return "in";
    case MarkerOperator::kNotIn: return "not in";
  }
  return "==";
}

VariantFacts make_variant_facts(std::string_view label, std::span<const std::string> properties) {
  VariantFacts facts;
  facts.label = std::string(label);
  for (const std::string& property : properties) {
    std::string canonical = canonical_variant_text(property);
    std::size_t first = canonical.find(" :: ");
    std::size_t second =
        first == std::string::npos ? std::string::npos : canonical.find(" :: ", first + 4);
    facts.namespaces.push_back(canonical.substr(0, first));
    if (first != std::string::npos) facts.features.push_back(canonical.substr(0, second));
    facts.properties.push_back(std::move(canonical));
  }
  for (auto* list : {&facts.properties, &facts.features, &facts.namespaces}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return facts;
}

PreparedEnvironment::PreparedEnvironment(MarkerEnvironment environment)
    : environment_(std::move(environment)) {
  // packaging 26's _repair_python_full_version: an untagged CPython build reports "3.13.1+",
  // which is read as the local version "3.13.1+local" (as a string too).
  if (environment_.python_full_version.ends_with('+')) environment_.python_full_version += "local";
  // Only the four version variables are ever compared as versions (packaging 26).
  for (std::size_t i = 0; i < kEnvironmentVariableCount; ++i) {
    if (!is_version_variable(static_cast<MarkerVariable>(i))) continue;
    std::string_view text = value(static_cast<MarkerVariable>(i));
    if (is_valid_version(text)) {
      Result<Version> parsed = parse_version(text);
      if (parsed) versions_[i] = std::move(*parsed);
    }
  }
}

std::string_view PreparedEnvironment::value(MarkerVariable variable) const {
  switch (variable) {
    case MarkerVariable::kImplementationName: return environment_.implementation_name;
    case MarkerVariable::kImplementationVersion: return environment_.implementation_version;
    case MarkerVariable::kOsName: return environment_.os_name;
    case MarkerVariable::kPlatformMachine: return environment_.platform_machine;
    case MarkerVariable::kPlatformPythonImplementation:
      return environment_.platform_python_implementation;
    case MarkerVariable::kPlatformRelease: return environment_.platform_release;
    case MarkerVariable::kPlatformSystem: return environment_.platform_system;
    case MarkerVariable::kPlatformVersion: return environment_.platform_version;
    case MarkerVariable::kPythonFullVersion: return environment_.python_full_version;
    case MarkerVariable::kPythonVersion: return environment_.python_version;
    case MarkerVariable::kSysPlatform: return environment_.sys_platform;
    default: return {};
  }
}

const Version* PreparedEnvironment::version(MarkerVariable variable) const {
  std::size_t index = static_cast<std::size_t>(variable);
  if (index >= kEnvironmentVariableCount || !versions_[index]) return nullptr;
  return &*versions_[index];
}

namespace detail {

/// One side of a comparison.
struct MarkerOperand {
  bool is_variable = false;
  MarkerVariable variable = MarkerVariable::kExtra;
  std::string value;  // the literal's value (for a variable: unused)

  std::string text() const {
    return is_variable ? std::string(marker_variable_name(variable)) : value;
  }
  // packaging 26's Value.serialize: double quotes, single ones when the value holds a `"`. A
  // value holding both has no quoting (packaging raises); it is printed in double quotes.
  std::string serialize() const {
    if (is_variable) return std::string(marker_variable_name(variable));
    const bool single = value.find('"') != std::string::npos &&
                        value.find('\'') == std::string::npos;
    return single ? str_cat("'", value, "'") : str_cat("\"", value, "\"");
  }
};

/// How a comparison is evaluated, decided once at parse time.
enum class MarkerPlan : std::uint8_t {
  kVariableFirst,  // environment variable / extra on the left, `compare_value` on the right
  kLiteralFirst,   // `compare_value` on the left, environment variable / extra on the right
  kUndefinedName,  // two literals, the right one naming no variable: the reference raises
  kSetMembership,  // `"x" in <set variable>` / `not in`
  kVariantLabel,   // variant_label against a literal, either side: string semantics
};

struct MarkerExpression {
  MarkerOperand lhs;
  MarkerOperator op = MarkerOperator::kEqual;
  MarkerOperand rhs;

  MarkerPlan plan = MarkerPlan::kVariableFirst;
  MarkerVariable variable = MarkerVariable::kExtra;  // the variable looked up
  bool variable_on_left = true;                      // for kVariantLabel
  std::string compare_value;  // the other side's value (PEP 685 normalised for `extra`)
  std::optional<Specifier> specifier;      // kVariableFirst: `op + compare_value`, when valid
  std::optional<Version> literal_version;  // kLiteralFirst: compare_value as a version

  std::string serialize() const {
    return str_cat(lhs.serialize(), " ", marker_operator_string(op), " ", rhs.serialize());
  }
};

struct MarkerItem {
  enum class Kind : std::uint8_t { kExpression, kGroup, kAnd, kOr };
  Kind kind = Kind::kExpression;
  std::uint32_t index = 0;
};

/// A parenthesised list: operands separated by `and` / `or` items (packaging's MarkerList).
struct MarkerGroup {
  std::vector<MarkerItem> items;
};

struct MarkerTree {
  std::vector<MarkerExpression> expressions;
  std::vector<MarkerGroup> groups;
  std::uint32_t root = 0;

  static Marker wrap(MarkerTree tree) {
    return Marker(std::make_shared<const MarkerTree>(std::move(tree)));
  }
  static const MarkerTree& of(const Marker& marker) { return *marker.tree_; }
};

namespace {

using Kind = MarkerItem::Kind;

// packaging's `Specifier(op + value)`, or nullopt where it raises InvalidSpecifier. The
// specifier regex is checked first with the tokenizer's matcher (the same regex, unanchored),
// so the common string comparisons (`os_name == "posix"`) build no error message.
std::optional<Specifier> specifier_for(MarkerOperator op, std::string_view value) {
  if (op == MarkerOperator::kIn || op == MarkerOperator::kNotIn) return std::nullopt;
  std::string text = str_cat(marker_operator_string(op), value);
  Cursor cursor(text);
  cursor.advance(cursor.match_specifier());
  // Only the pattern's trailing `\s*` may follow: Python's whitespace, Unicode spaces included
  // (`== "6a4\u00a0"` is the specifier `==6a4`).
  for (std::size_t i = cursor.position(); i < text.size();) {
    const std::size_t space = detail::python_space_length(text, i);
    if (space == 0) return std::nullopt;
    i += space;
  }
  Result<Specifier> specifier = parse_specifier(text);
  if (!specifier) return std::nullopt;
  return std::move(*specifier);
}

std::string evaluation_error_prefix(const MarkerExpression& expression) {
  return str_cat("cannot evaluate the marker ", in_backticks(expression.serialize()), ": ");
}

// Evaluation works on this small value and writes an Error only when one occurs, so the hot
// path moves no Result (a variant holding an Error) through every level.
enum class Outcome : std::uint8_t { kFalse, kTrue, kError };

Outcome outcome(bool value) { return value ? Outcome::kTrue : Outcome::kFalse; }

Outcome fail(Error* error, Error value) {
  *error = std::move(value);
  return Outcome::kError;
}

// packaging 26's `_operators` on two strings: equality, inequality and substring; `<=`/`>=`
// mean equal and `<`/`>` are false (strings have no order in a marker); `~=`/`===` are undefined.
Outcome compare_strings(const MarkerExpression& expression, std::string_view lhs,
                        std::string_view rhs, Error* error) {
  switch (expression.op) {
    case MarkerOperator::kEqual:
    case MarkerOperator::kLessEqual:
    case MarkerOperator::kGreaterEqual:
      return outcome(lhs == rhs);
    case MarkerOperator::kNotEqual: return outcome(lhs != rhs);
    case MarkerOperator::kLess:
    case MarkerOperator::kGreater:
      return Outcome::kFalse;
    case MarkerOperator::kIn: return outcome(rhs.find(lhs) != std::string_view::npos);
    case MarkerOperator::kNotIn: return outcome(rhs.find(lhs) == std::string_view::npos);
    case MarkerOperator::kCompatible:
    case MarkerOperator::kArbitraryEqual:
      break;
  }
  return fail(error, make_error(ErrorCode::kInvalidInput,
                                str_cat(evaluation_error_prefix(expression),
                                        "undefined comparison ",
                                        in_backticks(marker_operator_string(expression.op)),
                                        " between ", in_backticks(lhs), " and ", in_backticks(rhs),
                                        " (it compares versions: only python_version, "
                                        "python_full_version, implementation_version and "
                                        "platform_release are compared as versions)")));
}

// A version comparison (packaging 26's `_eval_op` for a version variable with a valid
// `op + rhs` specifier): the left value as written is contained or not; a left value that is
// not a version is simply not contained (`platform_release >= "5"` on `6.1.0-18-amd64`).
Outcome contains_version(const Specifier& specifier, std::string_view lhs,
                         const Version* lhs_version) {
  if (lhs_version != nullptr && specifier.op() != Operator::kArbitraryEqual) {
    return outcome(specifier.contains(*lhs_version, true));
  }
  return outcome(specifier.contains(lhs, true));
}

Outcome eval_variable_first(const MarkerExpression& expression, std::string_view lhs,
                            const Version* lhs_version, Error* error) {
  if (expression.specifier) return contains_version(*expression.specifier, lhs, lhs_version);
  return compare_strings(expression, lhs, expression.compare_value, error);
}

Outcome eval_literal_first(const MarkerExpression& expression, std::string_view rhs,
                           Error* error) {
  if (is_version_variable(expression.variable)) {
    if (std::optional<Specifier> specifier = specifier_for(expression.op, rhs)) {
      const Version* lhs_version = expression.literal_version ? &*expression.literal_version
                                                              : nullptr;
      return contains_version(*specifier, expression.compare_value, lhs_version);
    }
  }
  return compare_strings(expression, expression.compare_value, rhs, error);
}

// `extra` against each active extra (or "" when none): any match for positive operators,
// all for `!=` / `not in` ("x is not among the active extras").
template <class Evaluate>
Outcome over_extras(const MarkerExpression& expression, const MarkerContext& context,
                    Evaluate&& evaluate) {
  if (context.extras.empty()) return evaluate(std::string_view());
  const bool negative =
      expression.op == MarkerOperator::kNotEqual || expression.op == MarkerOperator::kNotIn;
  bool result = negative;
  for (const std::string& extra : context.extras) {
    std::string normalised = normalize_name(extra);
    Outcome one = evaluate(std::string_view(normalised));
    if (one == Outcome::kError) return one;
    result = negative ? (result && one == Outcome::kTrue) : (result || one == Outcome::kTrue);
  }
  return outcome(result);
}

bool contains_name(std::span<const std::string> names, std::string_view wanted) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& name) { return names_equal(name, wanted); });
}

Outcome eval_expression(const MarkerExpression& expression, const MarkerContext& context,
                        Error* error) {
  if ((expression.plan == MarkerPlan::kVariableFirst ||
       expression.plan == MarkerPlan::kLiteralFirst) &&
      expression.variable != MarkerVariable::kExtra && context.environment == nullptr) {
    return fail(error, make_error(ErrorCode::kInvalidInput,
                                  str_cat(evaluation_error_prefix(expression),
                                          "no marker environment gives a value to ",
                                          in_backticks(marker_variable_name(expression.variable)))));
  }
  switch (expression.plan) {
    case MarkerPlan::kVariableFirst: {
      if (expression.variable == MarkerVariable::kExtra) {
        return over_extras(expression, context, [&](std::string_view extra) {
          return eval_variable_first(expression, extra, nullptr, error);
        });
      }
      return eval_variable_first(expression, context.environment->value(expression.variable),
                                 context.environment->version(expression.variable), error);
    }
    case MarkerPlan::kLiteralFirst: {
      if (expression.variable == MarkerVariable::kExtra) {
        return over_extras(expression, context, [&](std::string_view extra) {
          return eval_literal_first(expression, extra, error);
        });
      }
      return eval_literal_first(expression, context.environment->value(expression.variable),
                                error);
    }
    case MarkerPlan::kUndefinedName:
      return fail(error, make_error(ErrorCode::kInvalidInput,
                                    str_cat(evaluation_error_prefix(expression),
                                            "undefined environment name ",
                                            in_backticks(expression.rhs.value))));
    case MarkerPlan::kSetMembership: {
      bool found = false;
      std::string_view wanted = expression.compare_value;
      switch (expression.variable) {
        case MarkerVariable::kExtras:
          found = contains_name(context.extras, wanted);
          break;
        case MarkerVariable::kDependencyGroups:
          found = contains_name(context.dependency_groups, wanted);
          break;
        default:
          if (context.variant != nullptr) {
            const std::vector<std::string>& set =
                expression.variable == MarkerVariable::kVariantProperties
                    ? context.variant->properties
                : expression.variable == MarkerVariable::kVariantFeatures
                    ? context.variant->features
                    : context.variant->namespaces;
            found = std::find(set.begin(), set.end(), wanted) != set.end();
          }
      }
      return outcome(expression.op == MarkerOperator::kIn ? found : !found);
    }
    case MarkerPlan::kVariantLabel: {
      std::string_view label = context.variant != nullptr
                                   ? std::string_view(context.variant->label)
                                   : std::string_view();
      return expression.variable_on_left
                 ? compare_strings(expression, label, expression.compare_value, error)
                 : compare_strings(expression, expression.compare_value, label, error);
    }
  }
  return Outcome::kFalse;
}

Outcome eval_group(const MarkerTree& tree, std::uint32_t group_index,
                   const MarkerContext& context, Error* error) {
  // Every comparison is evaluated (no short circuit), like the reference, so an error anywhere
  // surfaces; `and` binds tighter than `or`.
  bool any = false;
  bool all = true;
  for (const MarkerItem& item : tree.groups[group_index].items) {
    Outcome value = Outcome::kTrue;
    switch (item.kind) {
      case Kind::kExpression:
        value = eval_expression(tree.expressions[item.index], context, error);
        break;
      case Kind::kGroup:
        value = eval_group(tree, item.index, context, error);
        break;
      case Kind::kOr:
        any = any || all;
        all = true;
        continue;
      case Kind::kAnd:
        continue;
    }
    if (value == Outcome::kError) return value;
    all = all && value == Outcome::kTrue;
  }
  return outcome(any || all);
}

// packaging 26's _format_marker: a redundant `((...))` wrapper is unwrapped but keeps its
// nesting, so `a and ((b or c))` prints `a and (b or c)` (packaging 23.0 dropped the
// parentheses, printing a marker of another meaning).
void format_group(const MarkerTree& tree, std::uint32_t group_index, bool first, std::string& out) {
  const MarkerGroup& group = tree.groups[group_index];
  if (group.items.size() == 1) {
    const MarkerItem& only = group.items.front();
    if (only.kind == Kind::kGroup) return format_group(tree, only.index, first, out);
    if (only.kind == Kind::kExpression) {
      out += tree.expressions[only.index].serialize();
      return;
    }
  }
  if (!first) out += '(';
  for (std::size_t i = 0; i < group.items.size(); ++i) {
    if (i > 0) out += ' ';
    const MarkerItem& item = group.items[i];
    switch (item.kind) {
      case Kind::kExpression: out += tree.expressions[item.index].serialize(); break;
      case Kind::kGroup: format_group(tree, item.index, false, out); break;
      case Kind::kAnd: out += "and"; break;
      case Kind::kOr: out += "or"; break;
    }
  }
  if (!first) out += ')';
}

// ---------------------------------------------------------------------------------------------
// Parsing: packaging's _parse_marker / _parse_marker_atom / _parse_marker_item, one function
// each, with the same whitespace handling so that exactly the same inputs are accepted.

// Decides how `expression` is evaluated, and refuses forms the newer variables do not allow.
std::optional<std::string> plan_expression(MarkerExpression& expression) {
  const MarkerOperand& lhs = expression.lhs;
  const MarkerOperand& rhs = expression.rhs;
  const bool lhs_new = lhs.is_variable && !is_pep508_variable(lhs.variable);
  const bool rhs_new = rhs.is_variable && !is_pep508_variable(rhs.variable);
  if (lhs_new || rhs_new) {
    const MarkerVariable variable = lhs_new ? lhs.variable : rhs.variable;
    const std::string_view name = marker_variable_name(variable);
    if (lhs.is_variable && rhs.is_variable) {
      return str_cat(in_backticks(name), " can only be compared with a quoted string");
    }
    expression.variable = variable;
    const std::string& literal = lhs_new ? rhs.value : lhs.value;
    if (is_set_variable(variable)) {
      if (lhs_new || (expression.op != MarkerOperator::kIn &&
                      expression.op != MarkerOperator::kNotIn)) {
        return str_cat(in_backticks(name), " is a set: write `\"value\" in ", name,
                       "` or `\"value\" not in ", name, "`");
      }
      expression.plan = MarkerPlan::kSetMembership;
      bool variant_set = variable == MarkerVariable::kVariantProperties ||
                         variable == MarkerVariable::kVariantFeatures ||
                         variable == MarkerVariable::kVariantNamespaces;
      // Stored (and printed) canonically, so equal markers print equally in a lockfile.
      expression.lhs.value =
          variant_set ? canonical_variant_text(literal) : normalize_name(literal);
      expression.compare_value = expression.lhs.value;
      return std::nullopt;
    }
    expression.plan = MarkerPlan::kVariantLabel;
    expression.variable_on_left = lhs_new;
    expression.compare_value = literal;
    return std::nullopt;
  }
  if (lhs.is_variable) {
    // The reference uses the right side's `.value` as is: for a variable, its name.
    expression.plan = MarkerPlan::kVariableFirst;
    expression.variable = lhs.variable;
    // No normalisation here: packaging 26 normalises only a quoted string compared with
    // `extra` (normalize_extra_values, at parse), never a variable's name on the right.
    expression.compare_value = rhs.text();
    if (is_version_variable(expression.variable)) {
      expression.specifier = specifier_for(expression.op, expression.compare_value);
    }
    return std::nullopt;
  }
  // A literal on the left: the right side names the variable (a literal naming one counts).
  std::optional<MarkerVariable> variable =
      rhs.is_variable ? std::optional<MarkerVariable>(rhs.variable)
                      : find_marker_variable(rhs.value);
  if (!variable || !is_pep508_variable(*variable)) {
    expression.plan = MarkerPlan::kUndefinedName;
    return std::nullopt;
  }
  expression.plan = MarkerPlan::kLiteralFirst;
  expression.variable = *variable;
  expression.compare_value = lhs.value;  // `"a_b" == "extra"` compares "a_b" as written
  if (is_version_variable(*variable) && is_valid_version(expression.compare_value)) {
    Result<Version> version = parse_version(expression.compare_value);
    if (version) expression.literal_version = std::move(*version);
  }
  return std::nullopt;
}

class MarkerParser {
 public:
  MarkerParser(Cursor& cursor, std::string_view what, MarkerTree& tree)
      : cursor_(cursor), what_(what), tree_(tree) {}

  // marker = marker_atom (BOOLOP marker_atom)*
  Result<std::uint32_t> parse_marker(std::size_t depth) {
    std::vector<MarkerItem> items;
    WV_ASSIGN_OR_RETURN(MarkerItem first, parse_atom(depth));
    items.push_back(first);
    while (std::size_t length = cursor_.match_boolean_operator()) {
      std::string_view word = cursor_.take(length);
      items.push_back({word == "and" ? Kind::kAnd : Kind::kOr, 0});
      WV_ASSIGN_OR_RETURN(MarkerItem next, parse_atom(depth));
      items.push_back(next);
    }
    tree_.groups.push_back(MarkerGroup{std::move(items)});
    return static_cast<std::uint32_t>(tree_.groups.size() - 1);
  }

 private:
  // marker_atom = WS? '(' WS? marker WS? ')' WS? | WS? marker_item WS?
  Result<MarkerItem> parse_atom(std::size_t depth) {
    cursor_.skip_whitespace();
    MarkerItem item;
    if (cursor_.match_char('(')) {
      const std::size_t open = cursor_.position();
      if (depth + 1 > max_depth_) {
        Error error = cursor_.error(what_, open,
                                    str_cat("parentheses nest deeper than the marker-depth limit of ",
                                            max_depth_, " levels"));
        error.code = ErrorCode::kLimit;
        error.notes.push_back(limit_raise_hint(Limit::kMarkerDepth));
        return error;
      }
      cursor_.advance(1);
      cursor_.skip_whitespace();
      WV_ASSIGN_OR_RETURN(std::uint32_t group, parse_marker(depth + 1));
      cursor_.skip_whitespace();
      if (!cursor_.match_char(')')) {
        return cursor_.error(what_, cursor_.position(),
                             str_cat("expected `)` to close the `(` at column ", open + 1));
      }
      cursor_.advance(1);
      item = {Kind::kGroup, group};
    } else {
      WV_ASSIGN_OR_RETURN(std::uint32_t expression, parse_item());
      item = {Kind::kExpression, expression};
    }
    cursor_.skip_whitespace();
    return item;
  }

  // marker_item = WS? marker_var WS? marker_op WS? marker_var WS?
  Result<std::uint32_t> parse_item() {
    MarkerExpression expression;
    cursor_.skip_whitespace();
    const std::size_t start = cursor_.position();
    WV_ASSIGN_OR_RETURN(expression.lhs, parse_operand());
    cursor_.skip_whitespace();
    WV_ASSIGN_OR_RETURN(expression.op, parse_operator());
    cursor_.skip_whitespace();
    WV_ASSIGN_OR_RETURN(expression.rhs, parse_operand());
    cursor_.skip_whitespace();
    if (std::optional<std::string> refused = plan_expression(expression)) {
      return cursor_.error(what_, start, *refused);
    }
    tree_.expressions.push_back(std::move(expression));
    return static_cast<std::uint32_t>(tree_.expressions.size() - 1);
  }

  Result<MarkerOperand> parse_operand() {
    MarkerOperand operand;
    const std::size_t at = cursor_.position();
    if (std::size_t length = cursor_.match_variable()) {
      std::string name(cursor_.take(length));
      std::replace(name.begin(), name.end(), '.', '_');
      if (name == "python_implementation") name = "platform_python_implementation";
      operand.is_variable = true;
      operand.variable = *find_marker_variable(name);
      return operand;
    }
    if (std::size_t length = cursor_.match_quoted_string()) {
      Result<std::string> value = python_string_value(cursor_.take(length));
      if (!value) return cursor_.error(what_, at, value.error().message);
      operand.value = std::move(*value);
      return operand;
    }
    return cursor_.error(what_, at, "expected a marker variable or a quoted string");
  }

  Result<MarkerOperator> parse_operator() {
    const std::size_t at = cursor_.position();
    if (std::size_t length = cursor_.match_keyword("in")) {
      cursor_.advance(length);
      return MarkerOperator::kIn;
    }
    if (std::size_t length = cursor_.match_keyword("not")) {
      cursor_.advance(length);
      std::size_t space = cursor_.match_whitespace();
      if (space == 0) return cursor_.error(what_, cursor_.position(), "expected whitespace after `not`");
      cursor_.advance(space);
      std::size_t in = cursor_.match_keyword("in");
      if (in == 0) return cursor_.error(what_, cursor_.position(), "expected `in` after `not`");
      cursor_.advance(in);
      return MarkerOperator::kNotIn;
    }
    if (std::size_t length = cursor_.match_comparison_operator()) {
      std::string_view op = cursor_.take(length);
      static constexpr std::array<std::pair<std::string_view, MarkerOperator>, 8> kOperators = {{
          {"===", MarkerOperator::kArbitraryEqual},
          {"==", MarkerOperator::kEqual},
          {"~=", MarkerOperator::kCompatible},
          {"!=", MarkerOperator::kNotEqual},
          {"<=", MarkerOperator::kLessEqual},
          {">=", MarkerOperator::kGreaterEqual},
          {"<", MarkerOperator::kLess},
          {">", MarkerOperator::kGreater},
      }};
      for (const auto& [text, value] : kOperators) {
        if (text == op) return value;
      }
    }
    return cursor_.error(what_, at,
                         "expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, "
                         "not in");
  }

  Cursor& cursor_;
  std::string_view what_;
  MarkerTree& tree_;
  const std::uint64_t max_depth_ = limit_value(Limit::kMarkerDepth);
};

// packaging 26's _normalize_extra_values: in every comparison of `extra` with a quoted
// string, the string is normalised (PEP 685) for printing and comparing.
void normalize_extra_values(MarkerTree& tree) {
  for (MarkerExpression& expression : tree.expressions) {
    MarkerOperand* literal = nullptr;
    if (expression.lhs.is_variable && expression.lhs.variable == MarkerVariable::kExtra &&
        !expression.rhs.is_variable) {
      literal = &expression.rhs;
    } else if (expression.rhs.is_variable && expression.rhs.variable == MarkerVariable::kExtra &&
               !expression.lhs.is_variable) {
      literal = &expression.lhs;
    }
    if (literal == nullptr) continue;
    literal->value = normalize_name(literal->value);
    expression.specifier.reset();
    expression.literal_version.reset();
    (void)plan_expression(expression);  // only PEP 508 variables get here: never refused
  }
}

// Copies group `index` of `from` (and everything under it) into `to`; returns its new index.
std::uint32_t copy_group(const MarkerTree& from, std::uint32_t index, MarkerTree& to) {
  MarkerGroup copy;
  for (const MarkerItem& item : from.groups[index].items) {
    MarkerItem moved = item;
    if (item.kind == Kind::kExpression) {
      to.expressions.push_back(from.expressions[item.index]);
      moved.index = static_cast<std::uint32_t>(to.expressions.size() - 1);
    } else if (item.kind == Kind::kGroup) {
      moved.index = copy_group(from, item.index, to);
    }
    copy.items.push_back(moved);
  }
  to.groups.push_back(std::move(copy));
  return static_cast<std::uint32_t>(to.groups.size() - 1);
}

// Appends `marker` as one operand of a `connective` chain: its items spliced in when it is
// already a chain of that connective (or a single comparison), else as a parenthesised group.
void append_operand(const MarkerTree& from, std::vector<MarkerItem>& items, Kind connective,
                    MarkerTree& to) {
  std::uint32_t index = from.root;
  while (from.groups[index].items.size() == 1 &&
         from.groups[index].items.front().kind == Kind::kGroup) {
    index = from.groups[index].items.front().index;
  }
  const std::vector<MarkerItem>& source = from.groups[index].items;
  const bool splice = std::all_of(source.begin(), source.end(), [&](const MarkerItem& item) {
    return item.kind != Kind::kAnd && item.kind != Kind::kOr ? true : item.kind == connective;
  });
  if (!splice) {
    items.push_back({Kind::kGroup, copy_group(from, index, to)});
    return;
  }
  for (const MarkerItem& item : source) {
    MarkerItem moved = item;
    if (item.kind == Kind::kExpression) {
      to.expressions.push_back(from.expressions[item.index]);
      moved.index = static_cast<std::uint32_t>(to.expressions.size() - 1);
    } else if (item.kind == Kind::kGroup) {
      moved.index = copy_group(from, item.index, to);
    }
    items.push_back(moved);
  }
}

Marker combine(const Marker& a, const Marker& b, Kind connective) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  MarkerTree tree;
  std::vector<MarkerItem> items;
  append_operand(MarkerTree::of(a), items, connective, tree);
  items.push_back({connective, 0});
  append_operand(MarkerTree::of(b), items, connective, tree);
  tree.groups.push_back(MarkerGroup{std::move(items)});
  tree.root = static_cast<std::uint32_t>(tree.groups.size() - 1);
  return MarkerTree::wrap(std::move(tree));
}

}  // namespace

Result<Marker> parse_marker_at(std::string_view source, std::size_t& position,
                               std::string_view what) {
  Cursor cursor(source, position);
  MarkerTree tree;
  MarkerParser parser(cursor, what, tree);
  WV_ASSIGN_OR_RETURN(tree.root, parser.parse_marker(0));
  normalize_extra_values(tree);
  position = cursor.position();
  return MarkerTree::wrap(std::move(tree));
}

}  // namespace detail

Result<Marker> parse_marker(std::string_view text) {
  std::size_t position = 0;
  WV_ASSIGN_OR_RETURN(Marker marker, detail::parse_marker_at(text, position, "marker"));
  detail::Cursor cursor(text, position);
  if (!cursor.at_end()) {
    return cursor.error("marker", position, "expected `and`, `or` or the end of the marker");
  }
  return marker;
}

std::string Marker::to_string() const {
  std::string out;
  if (tree_ != nullptr) detail::format_group(*tree_, tree_->root, true, out);
  return out;
}

Result<bool> Marker::evaluate(const MarkerContext& context) const {
  if (tree_ == nullptr) return true;
  Error error;
  switch (detail::eval_group(*tree_, tree_->root, context, &error)) {
    case detail::Outcome::kTrue: return true;
    case detail::Outcome::kFalse: return false;
    case detail::Outcome::kError: break;
  }
  return error;
}

Result<bool> Marker::evaluate(const MarkerEnvironment& environment, std::string_view extra) const {
  PreparedEnvironment prepared(environment);
  std::string extra_text(extra);
  MarkerContext context;
  context.environment = &prepared;
  if (!extra.empty()) context.extras = std::span<const std::string>(&extra_text, 1);
  return evaluate(context);
}

bool Marker::references(MarkerVariable variable) const {
  if (tree_ == nullptr) return false;
  for (const detail::MarkerExpression& expression : tree_->expressions) {
    const bool looked_up = expression.plan != detail::MarkerPlan::kUndefinedName &&
                           expression.variable == variable;
    const bool named = (expression.lhs.is_variable && expression.lhs.variable == variable) ||
                       (expression.rhs.is_variable && expression.rhs.variable == variable);
    if (looked_up || named) return true;
  }
  return false;
}

Marker Marker::and_(const Marker& other) const {
  return detail::combine(*this, other, detail::Kind::kAnd);
}

Marker Marker::or_(const Marker& other) const {
  return detail::combine(*this, other, detail::Kind::kOr);
}

bool operator==(const Marker& a, const Marker& b) {
  if (a.tree_ == b.tree_) return true;
  return a.to_string() == b.to_string();
}

}  // namespace wv::pkg
