// Source distribution and `*-variants.json` file names (src/pkg/sdist_filename.h). Properties:
// canonical names parse back to equal values, also with the project name given; classify_filename()
// never fails.
#include "fuzz/fuzz_target.h"
#include "src/base/url.h"
#include "src/pkg/sdist_filename.h"

WV_FUZZ_TARGET(sdist_filename) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  (void)wv::pkg::classify_filename(text);
  (void)wv::url_filename(text);
  if (auto sdist = wv::pkg::parse_sdist_filename(text)) {
    const std::string canonical = sdist.value().to_string();
    auto again = wv::pkg::parse_sdist_filename(canonical);
    WV_FUZZ_CHECK(again.has_value() && again.value() == sdist.value(),
                  "canonical sdist name `" + canonical + "` does not parse back equal");
    WV_FUZZ_CHECK(again.value().to_string() == canonical, "canonical sdist name not idempotent");
    auto with_project = wv::pkg::parse_sdist_filename(canonical, sdist.value().name);
    WV_FUZZ_CHECK(with_project.has_value() && with_project.value() == sdist.value(),
                  "canonical sdist name `" + canonical + "` with its project does not parse back");
    // The index knows the project: the name as written must be accepted with it too.
    auto known = wv::pkg::parse_sdist_filename(text, sdist.value().name);
    WV_FUZZ_CHECK(known.has_value(), "`" + std::string(text) + "` refused with its own project name");
  }
  if (auto variants = wv::pkg::parse_variants_json_filename(text)) {
    const std::string canonical = variants.value().to_string();
    auto again = wv::pkg::parse_variants_json_filename(canonical);
    WV_FUZZ_CHECK(again.has_value() && again.value() == variants.value(),
                  "canonical variants.json name `" + canonical + "` does not parse back equal");
  }
}
