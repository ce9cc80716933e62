// Random inputs for the differential test (docs/differential.md): PEP 440 versions and
// specifier sets, PEP 508 markers, marker environments and requirements, project names, built from their
// grammars with every spelling the specs allow, then sometimes mutated into invalid text.
// Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "src/pkg/marker_environment.h"

namespace wv::differential {

/// Generates inputs from a seed. Not thread-safe; one per thread.
class Generator {
 public:
  explicit Generator(std::uint64_t seed) : random_(seed) {}

  /// A version string: grammar-based with any spelling, whitespace, case, v-prefix; sometimes
  /// huge numbers; sometimes mutated (then often invalid).
  std::string version();
  /// A list of versions for ordering: variations of a few bases (trailing zeros, suffixes,
  /// local labels, epochs), so that ties and neighbours are common. All valid, small numbers.
  std::vector<std::string> version_list();
  /// A specifier set (every operator, wildcards, local versions, ===, whitespace, invalid
  /// forms) and `versions` (valid, small numbers) near its operands.
  std::string specifier_set(std::vector<std::string>& versions);
  /// A marker: nested and/or with parentheses, every variable (legacy spellings, extra),
  /// both quotes, escapes, version and string comparisons, in / not in; sometimes mutated.
  std::string marker();
  /// A marker environment with plausible and odd values (never containing '|').
  pkg::MarkerEnvironment environment();
  /// An extra to evaluate a marker with ("" for none).
  std::string extra();
  /// A requirement: name, extras, specifiers with or without parentheses, URLs, markers;
  /// sometimes mutated.
  std::string requirement();
  /// A project name to normalise: runs of `-_.`, mixed case, digits; sometimes mutated (any
  /// text, non-ASCII letters included).
  std::string project_name();
  /// A uniform draw in [0, n) from the same stream (0 when n is 0).
  std::uint64_t draw(std::uint64_t n) { return below(n); }

 private:
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : random_() % n; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  template <typename T, std::size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(N)];
  }
  std::string number(bool allow_big);
  std::string release(bool allow_big, int max_parts);
  std::string separator();
  std::string random_case(std::string_view word);
  std::string suffixes(bool allow_big);
  std::string local_label();
  std::string whitespace();
  std::string clean_version();
  std::string near_version(const std::string& base);
  std::string clause(std::vector<std::string>& operands);
  std::string marker_value_for(std::string_view variable);
  std::string quoted(const std::string& value);
  std::string marker_expression(int depth);
  std::string marker_whitespace();
  std::string name();
  std::string url();
  std::string mutate(std::string text);

  std::mt19937_64 random_;
};

}  // namespace wv::differential
