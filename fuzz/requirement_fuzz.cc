// PEP 508 requirements (src/pkg/requirement.h). Properties: the printed requirement parses back
// to the same name, extras, specifier and URL; printing is a fixed point from the second print
// on; the normalised name is idempotent.
#include "fuzz/fuzz_target.h"
#include "src/pkg/name.h"
#include "src/pkg/requirement.h"

WV_FUZZ_TARGET(requirement) {
  if (size > wv::fuzz::kMaxTextInput) return;
  auto requirement = wv::pkg::parse_requirement(wv::fuzz::as_text(data, size));
  if (!requirement) return;
  const wv::pkg::Requirement& r = requirement.value();
  // The marker part prints as packaging does, which is not quite a normal form (see
  // marker_fuzz.cc): with a backslash (an escape in a marker value) or both kinds of quotes
  // in the input, printing is not an inverse of parsing; otherwise the printed form parses
  // back and is a fixed point (from the second print on under packaging 23.0, whose `extra`
  // normalisation stopped at the first comparison; from the first now).
  const std::string_view input = wv::fuzz::as_text(data, size);
  if (input.find('\\') != std::string_view::npos ||
      (input.find('"') != std::string_view::npos && input.find('\'') != std::string_view::npos)) {
    return;
  }
  const std::string printed = r.to_string();
  auto again = wv::pkg::parse_requirement(printed);
  WV_FUZZ_CHECK(again.has_value(), "printed requirement `" + printed + "` does not parse");
  const wv::pkg::Requirement& r2 = again.value();
  WV_FUZZ_CHECK(r2.normalized_name() == r.normalized_name(), "name changed: `" + printed + "`");
  WV_FUZZ_CHECK(r2.extras == r.extras, "extras changed: `" + printed + "`");
  WV_FUZZ_CHECK(r2.specifier.to_string() == r.specifier.to_string(), "specifier changed: `" + printed + "`");
  WV_FUZZ_CHECK(r2.url == r.url, "url changed: `" + printed + "`");
  const std::string printed2 = r2.to_string();
  WV_FUZZ_CHECK(printed2 == printed, "printed requirement not a fixed point: `" + printed + "`");
  auto third = wv::pkg::parse_requirement(printed2);
  WV_FUZZ_CHECK(third.has_value() && third.value().to_string() == printed2,
                "printed requirement not idempotent: `" + printed2 + "`");
  const std::string normalized = r.normalized_name();
  WV_FUZZ_CHECK(wv::pkg::normalize_name(normalized) == normalized, "normalize_name not idempotent");
}
