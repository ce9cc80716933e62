// Wheel file names with PEP 825 variant labels (src/pkg/wheel_filename.h). Properties: the
// canonical name parses back to an equal value and is idempotent; classify_filename() agrees.
#include "fuzz/fuzz_target.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/wheel_filename.h"

WV_FUZZ_TARGET(wheel_filename) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  const wv::pkg::ClassifiedFile classified = wv::pkg::classify_filename(text);
  auto wheel = wv::pkg::parse_wheel_filename(text);
  if (!wheel) return;
  const std::string canonical = wheel.value().to_string();
  auto again = wv::pkg::parse_wheel_filename(canonical);
  WV_FUZZ_CHECK(again.has_value(), "canonical name `" + canonical + "` does not parse");
  WV_FUZZ_CHECK(again.value() == wheel.value(), "canonical name `" + canonical + "` parses unequal");
  WV_FUZZ_CHECK(again.value().to_string() == canonical, "canonical name not idempotent: `" + canonical + "`");
  WV_FUZZ_CHECK(!wheel.value().tags.empty(), "a parsed wheel has no tags: `" + canonical + "`");
  WV_FUZZ_CHECK(classified.kind == wv::pkg::FileKind::kWheel && classified.wheel &&
                    *classified.wheel == wheel.value(),
                "classify_filename disagrees with parse_wheel_filename on `" + canonical + "`");
}
