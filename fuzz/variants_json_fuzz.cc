// `{name}-{version}-variants.json` and in-wheel `*.dist-info/variant.json`
// (src/index/variants_json.h). Properties: an accepted file passes
// pkg::validate_variants_metadata(); merging it with itself (PEP 825 §Metadata consistency)
// succeeds and changes nothing; each of its labels read as a one-label in-wheel variant.json
// gives that label's properties. The input's first byte picks which reader sees it first.
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "src/index/variants_json.h"
#include "src/pkg/variant.h"

namespace {

bool same(const wv::pkg::VariantsMetadata& a, const wv::pkg::VariantsMetadata& b) {
  return a.variants == b.variants && a.static_properties == b.static_properties &&
         a.default_priorities.namespaces == b.default_priorities.namespaces &&
         a.default_priorities.features == b.default_priorities.features &&
         a.default_priorities.properties == b.default_priorities.properties &&
         a.providers.size() == b.providers.size();
}

}  // namespace

WV_FUZZ_TARGET(variants_json) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  auto parsed = wv::index::parse_variants_json(text, "fuzz-1.0-variants.json");
  if (!parsed) {
    // Still exercise the in-wheel reader on the common labels.
    for (const char* label : {"null", "cu128", "x8664_v3"}) {
      (void)wv::index::parse_wheel_variant_json(text, label, "variant.json");
    }
    return;
  }
  const wv::pkg::VariantsMetadata& metadata = parsed.value();
  auto valid = wv::pkg::validate_variants_metadata(metadata);
  WV_FUZZ_CHECK(valid.has_value(), "accepted file fails validation: " + valid.error().message);
  auto merged = wv::index::merge_variants_metadata({metadata, metadata}, "fuzz 1.0");
  WV_FUZZ_CHECK(merged.has_value(), "merging a file with itself fails: " + merged.error().message);
  WV_FUZZ_CHECK(same(merged.value(), metadata), "merging a file with itself changes it");
  auto single = wv::index::merge_variants_metadata({metadata}, "fuzz 1.0");
  WV_FUZZ_CHECK(single.has_value() && same(single.value(), metadata), "merging one file changes it");
  std::size_t checked = 0;
  for (const auto& [label, properties] : metadata.variants) {
    if (++checked > 4) break;
    auto in_wheel = wv::index::parse_wheel_variant_json(text, label, "variant.json");
    if (metadata.variants.size() == 1) {
      WV_FUZZ_CHECK(in_wheel.has_value(), "a one-label file is refused as variant.json for `" + label +
                                              "`: " + (in_wheel ? "" : in_wheel.error().message));
    }
    if (in_wheel) {
      const auto* found = in_wheel.value().find_variant(label);
      WV_FUZZ_CHECK(found != nullptr && *found == properties, "variant.json lost label `" + label + "`");
    }
  }
}
