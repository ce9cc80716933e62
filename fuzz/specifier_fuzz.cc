// PEP 440 specifier sets (src/pkg/specifier.h). Input: a specifier set, optionally a version
// after the first newline. Properties: the printed set parses back to the same printed form and
// the same answers; with pre-releases allowed the set contains a version exactly when every
// clause does; a set intersected with itself answers as the set.
#include "fuzz/fuzz_target.h"
#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

WV_FUZZ_TARGET(specifier) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  const std::size_t newline = text.find('\n');
  auto set = wv::pkg::parse_specifier_set(text.substr(0, newline));
  if (!set) return;
  const std::string printed = set.value().to_string();
  auto again = wv::pkg::parse_specifier_set(printed);
  WV_FUZZ_CHECK(again.has_value(), "printed set `" + printed + "` does not parse");
  WV_FUZZ_CHECK(again.value().to_string() == printed, "printed set not idempotent: `" + printed + "`");
  WV_FUZZ_CHECK(again.value().prereleases() == set.value().prereleases(), "prereleases(): `" + printed + "`");
  for (const wv::pkg::Specifier& clause : set.value().specifiers()) {
    auto clause_again = wv::pkg::parse_specifier(clause.to_string());
    WV_FUZZ_CHECK(clause_again.has_value() && clause_again.value().to_string() == clause.to_string(),
                  "clause `" + clause.to_string() + "` does not round-trip");
  }
  if (newline == std::string_view::npos) return;
  auto version = wv::pkg::parse_version(text.substr(newline + 1));
  if (!version) return;
  const wv::pkg::Version& v = version.value();
  const std::string what = "`" + printed + "` on `" + v.to_string() + "`";
  for (std::optional<bool> pre : {std::optional<bool>{}, std::optional<bool>{true}, std::optional<bool>{false}}) {
    WV_FUZZ_CHECK(set.value().contains(v, pre) == again.value().contains(v, pre), "reparsed set answers differently: " + what);
    WV_FUZZ_CHECK(set.value().intersect(set.value()).contains(v, pre) == set.value().contains(v, pre),
                  "set & set answers differently: " + what);
  }
  bool all = true;
  for (const wv::pkg::Specifier& clause : set.value().specifiers()) all = all && clause.contains(v, true);
  WV_FUZZ_CHECK(set.value().contains(v, true) == all, "set is not the AND of its clauses: " + what);
}
