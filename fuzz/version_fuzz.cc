// PEP 440 versions (src/pkg/version.h). Input: one version, optionally a second after the first
// newline. Properties: the normal form parses back to an equal version with the same order key,
// hash and normal form; public/base versions round-trip; the order of two versions agrees with
// compare_full() and the compact key is monotone with it.
#include "fuzz/fuzz_target.h"
#include "src/pkg/version.h"

namespace {

using wv::pkg::Version;

std::string show(const Version& v) { return "`" + v.to_string() + "`"; }

void check_round_trip(const Version& version) {
  const std::string text = version.to_string();
  auto again = wv::pkg::parse_version(text);
  WV_FUZZ_CHECK(again.has_value(), "normal form " + show(version) + " does not parse");
  WV_FUZZ_CHECK(again.value() == version, "normal form of " + show(version) + " parses unequal");
  WV_FUZZ_CHECK(again.value().to_string() == text, "normal form not idempotent: " + show(version));
  WV_FUZZ_CHECK(again.value().compact_key() == version.compact_key(), "key differs: " + show(version));
  WV_FUZZ_CHECK(again.value().hash() == version.hash(), "hash differs: " + show(version));
  WV_FUZZ_CHECK(Version::compare_full(again.value(), version) == 0, "compare_full differs: " + show(version));
  WV_FUZZ_CHECK(wv::pkg::is_valid_version(text), "is_valid_version refuses " + show(version));
  WV_FUZZ_CHECK(version.public_version() <= version, "public after its version: " + show(version));
  WV_FUZZ_CHECK(!version.public_version().has_local(), "public version has a local label");
  WV_FUZZ_CHECK(version.compare_public(version.public_version()) == 0, "compare_public: " + show(version));
  const Version base = version.base_version();
  auto base_again = wv::pkg::parse_version(base.to_string());
  WV_FUZZ_CHECK(base_again.has_value() && base_again.value() == base, "base version: " + show(version));
}

void check_order(const Version& a, const Version& b) {
  const auto order = a <=> b;
  const auto full = Version::compare_full(a, b);
  WV_FUZZ_CHECK(order == full, "<=> and compare_full disagree: " + show(a) + " " + show(b));
  WV_FUZZ_CHECK((b <=> a) == (0 <=> order), "order not antisymmetric: " + show(a) + " " + show(b));
  WV_FUZZ_CHECK((a == b) == (order == 0), "== and <=> disagree: " + show(a) + " " + show(b));
  if (order < 0) WV_FUZZ_CHECK(a.compact_key() <= b.compact_key(), "key not monotone: " + show(a) + " " + show(b));
  if (a == b) WV_FUZZ_CHECK(a.hash() == b.hash(), "equal versions hash differently: " + show(a) + " " + show(b));
  if (a.has_compact_key() && b.has_compact_key())
    WV_FUZZ_CHECK((a.compact_key() == b.compact_key()) == (a == b), "exact keys: " + show(a) + " " + show(b));
}

}  // namespace

WV_FUZZ_TARGET(version) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  const std::size_t newline = text.find('\n');
  const std::string_view first = text.substr(0, newline);
  auto a = wv::pkg::parse_version(first);
  WV_FUZZ_CHECK(a.has_value() == wv::pkg::is_valid_version(first), "is_valid_version disagrees");
  if (a) check_round_trip(a.value());
  if (newline == std::string_view::npos) return;
  auto b = wv::pkg::parse_version(text.substr(newline + 1));
  if (!b) return;
  check_round_trip(b.value());
  if (a) check_order(a.value(), b.value());
}
