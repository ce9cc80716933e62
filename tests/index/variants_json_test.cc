#include <catch2/catch.hpp>

#include <random>

#include "src/index/variants_json.h"

using namespace wv::index;
using wv::pkg::VariantProperty;
using wv::pkg::VariantsMetadata;
using wv::pkg::VariantsSchema;

namespace {

// The torch 2.10.0 file of reference/variants.md §2.2, abridged (v0.0.3).
const char* kTorch = R"({
  "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
  "default-priorities": {"namespace": ["nvidia", "amd", "priority"]},
  "providers": {
    "amd": {"enable-if": "platform_system == 'Linux'", "plugin-api": "amd_variant_provider.plugin:AMDVariantPlugin",
            "requires": ["amd-variant-provider>=0.0.2,<1.0.0"]},
    "nvidia": {"enable-if": "platform_system == 'Linux' or platform_system == 'Windows'",
               "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
               "requires": ["nvidia-variant-provider>=0.0.2,<1.0.0"], "future-key": {"x": 1}},
    "priority": {"install-time": false, "requires": []}
  },
  "static-properties": {"priority": {"order": ["1", "2", "3"]}},
  "variants": {
    "cuda12.8": {"nvidia": {"cuda_version_lower_bound": ["12.0"], "sm_arch": ["90_real", "100_real", "80_real"]},
                 "priority": {"order": ["2"]}},
    "null": {},
    "rocm7.0": {"amd": {"gfx_arch": ["gfx942", "gfx90a"], "rocm_version": ["7.0"]}}
  }
})";

VariantsMetadata parse_ok(const std::string& text) {
  auto parsed = parse_variants_json(text, "test-1.0-variants.json");
  if (!parsed) FAIL(parsed.error().to_string());
  return *parsed;
}

std::string reject(const std::string& text) {
  auto parsed = parse_variants_json(text, "bad-1.0-variants.json");
  if (parsed) FAIL("accepted: " << text);
  CHECK(parsed.error().message.find("`bad-1.0-variants.json`") != std::string::npos);
  return parsed.error().message;
}

}  // namespace

TEST_CASE("variants json: v0.0.3 with providers and static properties", "[index][variants]") {
  VariantsMetadata metadata = parse_ok(kTorch);
  CHECK(metadata.schema == VariantsSchema::kV0_0_3);
  CHECK(metadata.default_priorities.namespaces == std::vector<std::string>{"nvidia", "amd", "priority"});
  REQUIRE(metadata.providers.size() == 3);
  CHECK(metadata.providers.at("nvidia").requirements ==
        std::vector<std::string>{"nvidia-variant-provider>=0.0.2,<1.0.0"});
  CHECK(metadata.providers.at("nvidia").plugin_api.value() == "nvidia_variant_provider.plugin:NvidiaVariantPlugin");
  CHECK(metadata.providers.at("amd").enable_if.value() == "platform_system == 'Linux'");
  CHECK(metadata.providers.at("nvidia").install_time);
  CHECK_FALSE(metadata.providers.at("priority").install_time);
  CHECK(metadata.is_static_namespace("priority"));
  CHECK(metadata.static_properties.at("priority").at("order") == std::vector<std::string>{"1", "2", "3"});
  REQUIRE(metadata.variants.size() == 3);
  CHECK(metadata.variants.at("null").empty());
  const auto& cuda = metadata.variants.at("cuda12.8");
  // Sorted by (namespace, feature, value), as strings.
  REQUIRE(cuda.size() == 5);
  CHECK(cuda[0] == VariantProperty{"nvidia", "cuda_version_lower_bound", "12.0"});
  CHECK(cuda[1] == VariantProperty{"nvidia", "sm_arch", "100_real"});
  CHECK(cuda[3] == VariantProperty{"nvidia", "sm_arch", "90_real"});
  CHECK(cuda[4] == VariantProperty{"priority", "order", "2"});
}

TEST_CASE("variants json: feature and property priorities (variantlib shape)", "[index][variants]") {
  VariantsMetadata metadata = parse_ok(R"({
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["x86_64", "blas_lapack"],
                           "feature": {"blas_lapack": ["provider"]},
                           "property": {"blas_lapack": {"provider": ["accelerate", "openblas", "mkl"]}}},
    "providers": {"x86_64": {"requires": ["provider-variant-x86-64"], "install-time": true},
                  "blas_lapack": {"install-time": false, "requires": ["blas-lapack-variant-provider"]}},
    "static-properties": {"blas_lapack": {"provider": ["accelerate", "openblas", "mkl"]}},
    "variants": {"openblas": {"blas_lapack": {"provider": ["openblas"]}},
                 "x8664v4_mkl": {"blas_lapack": {"provider": ["mkl"]}, "x86_64": {"level": ["v4"]}}}})");
  CHECK(metadata.default_priorities.features.at("blas_lapack") == std::vector<std::string>{"provider"});
  CHECK(metadata.default_priorities.properties.at("blas_lapack").at("provider").front() == "accelerate");
  CHECK(metadata.variants.at("x8664v4_mkl").size() == 2);
}

TEST_CASE("variants json: v0.0.2 plugin-use, v0.1.1 and v0.2.0 shapes", "[index][variants]") {
  VariantsMetadata old = parse_ok(R"({
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.2.json",
    "default-priorities": {"namespace": ["ns", "aot"]},
    "providers": {"ns": {"requires": ["p"], "plugin-use": "all"},
                  "aot": {"requires": ["q"], "plugin-use": "none"}},
    "static-properties": {"aot": {"f": ["a"]}},
    "variants": {"v1": {"ns": {"f": ["x"]}}, "v2": {"aot": {"f": ["a"]}}}})");
  CHECK(old.schema == VariantsSchema::kV0_0_2);
  CHECK(old.providers.at("ns").install_time);
  CHECK_FALSE(old.providers.at("aot").install_time);

  VariantsMetadata pep825 = parse_ok(R"({
    "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["x86_64", "nvidia"]},
    "variants": {"x8664v3": {"x86_64": {"level": ["v3"]}}, "null": {}}})");
  CHECK(pep825.schema == VariantsSchema::kV0_1);
  CHECK(pep825.providers.empty());
  CHECK(pep825.variants.size() == 2);

  VariantsMetadata providers = parse_ok(R"({
    "$schema": "https://variants-schema.wheelnext.dev/peps/826/v0.2.0.json",
    "default-priorities": {"namespace": ["nvidia", "blas"], "feature": {}, "property": {}},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider"], "plugin-api": "nv:P"},
                  "blas": {"static-properties": {"provider": ["openblas", "mkl"]}}},
    "variants": {"mkl": {"blas": {"provider": ["mkl"]}}}})");
  CHECK(providers.schema == VariantsSchema::kV0_2);
  CHECK_FALSE(providers.providers.at("blas").install_time);
  CHECK(providers.is_static_namespace("blas"));
  CHECK(providers.static_properties.at("blas").at("provider") == std::vector<std::string>{"openblas", "mkl"});
}

TEST_CASE("variants json: invalid files are rejected with the reason", "[index][variants]") {
  CHECK(reject("not json").find("not valid JSON") != std::string::npos);
  CHECK(reject("[]").find("must be an object") != std::string::npos);
  CHECK(reject(R"({"variants": {}})").find("default-priorities") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": ["a"]}})").find("missing `variants`") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": "a"}, "variants": {}})")
            .find("`default-priorities.namespace` must be a list of strings") != std::string::npos);
  CHECK(reject(R"({"$schema": "https://x/v1.0.0.json", "default-priorities": {"namespace": []}, "variants": {}})")
            .find("major version 1") != std::string::npos);
  // The null variant must be empty; other labels must not be.
  CHECK(reject(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
                   "default-priorities": {"namespace": ["a"]}, "variants": {"null": {"a": {"f": ["v"]}}}})")
            .find("`null`") != std::string::npos);
  CHECK(reject(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
                   "default-priorities": {"namespace": ["a"]}, "variants": {"x": {"a": {"f": []}}}})")
            .find("no values") != std::string::npos);
  CHECK(reject(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
                   "default-priorities": {"namespace": ["a"]}, "variants": {"x": {"b": {"f": ["v"]}}}})")
            .find("`b`") != std::string::npos);
  CHECK(reject(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
                   "default-priorities": {"namespace": ["a"]}, "variants": {"X": {"a": {"f": ["v"]}}}})")
            .find("`X`") != std::string::npos);
  // v0.0.3 consistency (variantlib): providers match namespaces, AoT providers have statics.
  CHECK(reject(R"({"default-priorities": {"namespace": ["a", "b"]},
                   "providers": {"a": {"requires": ["p"]}}, "variants": {}})")
            .find("`b` is in `default-priorities.namespace` but has no provider") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": ["a"]},
                   "providers": {"a": {"install-time": false}}, "variants": {"x": {"a": {"f": ["1"]}}}})")
            .find("no `static-properties`") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": ["a"]},
                   "providers": {"a": {"requires": []}}, "variants": {}})")
            .find("has no `requires`") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": ["a"]},
                   "providers": {"a": {"install-time": false}},
                   "static-properties": {"a": {"f": ["1"], "g": ["2"]}}, "variants": {}})")
            .find("not ordered in `default-priorities.feature`") != std::string::npos);
  CHECK(reject(R"({"default-priorities": {"namespace": ["a", "a"]},
                   "providers": {"a": {"requires": ["p"]}}, "variants": {}})")
            .find("listed twice") != std::string::npos);
}

TEST_CASE("variants json: in-wheel variant.json holds exactly its label", "[index][variants]") {
  const std::string one = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["installable_plugin", "non_existing_plugin"]},
    "providers": {"installable_plugin": {"requires": ["test-plugin-package"]},
                  "non_existing_plugin": {"optional": true, "requires": ["do-not-install-me"]}},
    "variants": {"foo": {"installable_plugin": {"feat1": ["val1c"]}}}})";
  auto parsed = parse_wheel_variant_json(one, "foo", "test_package-0-py3-none-any-foo.whl");
  REQUIRE(parsed);
  CHECK(parsed->providers.at("non_existing_plugin").optional);
  auto wrong = parse_wheel_variant_json(one, "bar", "test_package-0-py3-none-any-bar.whl");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("exactly the label `bar`, found [foo]") != std::string::npos);
}

TEST_CASE("variants json: merging follows PEP 825 and is order-independent", "[index][variants]") {
  const char* a = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["nvidia"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider>=0.0.2"]}},
    "variants": {"cu126": {"nvidia": {"sm_arch": ["80_real"]}}, "null": {}}})";
  const char* b = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["nvidia", "x86_64"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider<1"]}, "x86_64": {"requires": ["x"]}},
    "variants": {"cu128": {"nvidia": {"sm_arch": ["90_real"]}}, "null": {}, "v3": {"x86_64": {"level": ["v3"]}}}})";
  VariantsMetadata first = parse_ok(a);
  VariantsMetadata second = parse_ok(b);
  auto ab = merge_variants_metadata({first, second}, "torch 2.9.0");
  auto ba = merge_variants_metadata({second, first}, "torch 2.9.0");
  REQUIRE(ab);
  REQUIRE(ba);
  CHECK(ab->default_priorities.namespaces == std::vector<std::string>{"nvidia", "x86_64"});
  CHECK(ab->variants.size() == 4);
  CHECK(ab->variants == ba->variants);
  CHECK(ab->default_priorities.namespaces == ba->default_priorities.namespaces);
  CHECK(ab->providers.at("nvidia").requirements.size() == 2);

  // Same label, different properties: a conflict.
  VariantsMetadata clash = first;
  clash.variants["cu126"] = {VariantProperty{"nvidia", "sm_arch", "70_real"}};
  auto conflict = merge_variants_metadata({first, clash}, "torch 2.9.0");
  REQUIRE_FALSE(conflict);
  CHECK(conflict.error().message.find("label `cu126`") != std::string::npos);

  // Namespace orders that are not prefixes of each other.
  VariantsMetadata reordered = second;
  reordered.default_priorities.namespaces = {"x86_64", "nvidia"};
  auto order = merge_variants_metadata({first, reordered}, "torch 2.9.0");
  REQUIRE_FALSE(order);
  CHECK(order.error().message.find("namespace order") != std::string::npos);

  CHECK(merge_variants_metadata({}, "x").error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("variants json: arbitrary bytes never crash the reader", "[index][variants]") {
  const std::string text = kTorch;
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    auto parsed = parse_variants_json(std::string_view(text).substr(0, cut), "cut");
    CHECK_FALSE(parsed);
  }
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string mutated = text;
    for (int k = 0; k < 3; ++k) {
      mutated[random() % mutated.size()] = "{}[]\",:0a \\"[random() % 11];
    }
    auto parsed = parse_variants_json(mutated, "mutated");
    if (parsed) CHECK(wv::pkg::validate_variants_metadata(*parsed));
  }
}
