// Tests for src/pkg/variant.h: property grammar (variants.md §4.1), schema URLs, validation.
#include "src/pkg/variant.h"

#include <catch2/catch.hpp>
#include <random>

namespace wv::pkg {
namespace {

TEST_CASE("variant: a property parses with or without spaces around ::", "[pkg][variant]") {
  for (const char* text : {"nvidia :: sm_arch :: 90_real", "nvidia::sm_arch::90_real",
                           "  nvidia ::sm_arch::  90_real \t"}) {
    Result<VariantProperty> property = parse_variant_property(text);
    REQUIRE(property);
    CHECK(property->namespace_ == "nvidia");
    CHECK(property->feature == "sm_arch");
    CHECK(property->value == "90_real");
    CHECK(property->to_string() == "nvidia :: sm_arch :: 90_real");
    CHECK(property->feature_key() == "nvidia :: sm_arch");
    // Round trip.
    Result<VariantProperty> again = parse_variant_property(property->to_string());
    REQUIRE(again);
    CHECK(*again == *property);
  }
  Result<VariantProperty> dotted = parse_variant_property("nvidia :: cuda_version_lower_bound :: 12.8");
  REQUIRE(dotted);
  CHECK(dotted->value == "12.8");
}

TEST_CASE("variant: malformed properties are rejected with the input named", "[pkg][variant]") {
  for (const char* text : {"", "nvidia", "nvidia :: sm_arch", "nvidia :: sm_arch :: 90 :: x",
                           "NVIDIA :: sm_arch :: 90", "nvidia :: sm.arch :: 90",
                           "nvidia :: sm_arch :: 9-0", ":: a :: b", "a :: :: b", "a :: b ::",
                           "a : b : c", "a :: b :: c d", "\xff :: b :: c"}) {
    Result<VariantProperty> property = parse_variant_property(text);
    CAPTURE(text);
    REQUIRE_FALSE(property);
    CHECK(property.error().message.find("variant property") != std::string::npos);
  }
  CHECK_FALSE(make_variant_property("nvidia", "sm_arch", "90 real"));
  CHECK(make_variant_property("x86_64", "level", "v3"));
}

TEST_CASE("variant: properties order by namespace, feature, value", "[pkg][variant]") {
  VariantProperty a{"amd", "gfx_arch", "gfx90a"}, b{"nvidia", "sm_arch", "80_real"},
      c{"nvidia", "sm_arch", "90_real"};
  CHECK(a < b);
  CHECK(b < c);
  std::vector<VariantFeatureGroup> groups = group_by_feature({a, b, c, c});
  REQUIRE(groups.size() == 2);
  CHECK(groups[1].values == std::vector<std::string>{"80_real", "90_real"});
}

TEST_CASE("variant: label grammar accepts any length of [0-9a-z_.]", "[pkg][variant]") {
  CHECK(is_valid_variant_label("cuda12.8"));
  CHECK(is_valid_variant_label("a_very_long_label_over_sixteen"));
  CHECK_FALSE(is_valid_variant_label(""));
  CHECK_FALSE(is_valid_variant_label("Cuda"));
  CHECK_FALSE(is_valid_variant_label("cu-12"));
}

TEST_CASE("variant: schema URLs map to the shape to read", "[pkg][variant]") {
  CHECK(classify_variants_schema("https://variants-schema.wheelnext.dev/v0.0.3.json") ==
        VariantsSchema::kV0_0_3);
  CHECK(classify_variants_schema("https://variants-schema.wheelnext.dev/v0.0.2.json") ==
        VariantsSchema::kV0_0_2);
  CHECK(classify_variants_schema("https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json") ==
        VariantsSchema::kV0_1);
  CHECK(classify_variants_schema("https://variants-schema.wheelnext.dev/peps/9999/v0.2.0.json") ==
        VariantsSchema::kV0_2);
  CHECK(classify_variants_schema("") == VariantsSchema::kUnknown);
  CHECK(classify_variants_schema("https://x/v1.0.0.json") == VariantsSchema::kUnknown);
  CHECK(classify_variants_schema("https://x/vx.0.0.json") == VariantsSchema::kUnknown);
  std::optional<SchemaVersion> version = parse_variants_schema_version("v0.1.1.json");
  REQUIRE(version);
  CHECK(*version == SchemaVersion{0, 1, 1});
}

TEST_CASE("variant: validation enforces null <=> empty and declared namespaces",
          "[pkg][variant]") {
  VariantsMetadata metadata;
  metadata.default_priorities.namespaces = {"nvidia"};
  metadata.variants["null"] = {};
  metadata.variants["cu128"] = {{"nvidia", "sm_arch", "90_real"}};
  CHECK(validate_variants_metadata(metadata));
  CHECK(metadata.find_variant("cu128") != nullptr);
  CHECK(metadata.find_variant("cu129") == nullptr);

  VariantsMetadata bad_null = metadata;
  bad_null.variants["null"] = {{"nvidia", "sm_arch", "90_real"}};
  CHECK_FALSE(validate_variants_metadata(bad_null));

  VariantsMetadata empty_label = metadata;
  empty_label.variants["cpu"] = {};
  CHECK_FALSE(validate_variants_metadata(empty_label));

  VariantsMetadata undeclared = metadata;
  undeclared.variants["rocm"] = {{"amd", "gfx_arch", "gfx942"}};
  Result<void> result = validate_variants_metadata(undeclared);
  REQUIRE_FALSE(result);
  CHECK(result.error().message.find("`amd`") != std::string::npos);

  VariantsMetadata aot = metadata;
  aot.providers["priority"].install_time = false;
  CHECK(aot.is_static_namespace("priority"));
  CHECK_FALSE(aot.is_static_namespace("nvidia"));
}

TEST_CASE("variant: arbitrary bytes never crash the property parser; valid ones round-trip",
          "[pkg][variant]") {
  std::mt19937 random(42);
  const std::string alphabet = "ab_0.: \t\xff-Z";
  const std::vector<std::string> separators = {"::", " :: ", "\t::", ":", ":::", " "};
  auto piece = [&] {
    std::string out;
    const std::size_t length = random() % 5;
    for (std::size_t i = 0; i < length; ++i) out.push_back(alphabet[random() % alphabet.size()]);
    return out;
  };
  int valid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = piece() + separators[random() % separators.size()] + piece() +
                       separators[random() % separators.size()] + piece();
    Result<VariantProperty> property = parse_variant_property(text);
    if (!property) continue;
    ++valid;
    Result<VariantProperty> again = parse_variant_property(property->to_string());
    REQUIRE(again);
    CHECK(*again == *property);
  }
  CHECK(valid > 0);
  for (std::string_view url : {"", "v", ".json", "v.json", "v1.2.json", "/v0.0.3.json",
                               "v99999999999999999999.0.0.json", "v0.0.3.jso"}) {
    (void)classify_variants_schema(url);
  }
}

}  // namespace
}  // namespace wv::pkg
