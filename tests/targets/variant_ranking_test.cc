// Tests for targets/variant_ranking.h: compatibility (AND across features, OR within), PEP 825
// ordering with PEP 817 priority overrides, the worked torch 2.10 example of
// reference/variants.md §4.4, and every variants.json of the conformance index ranked for a
// handful of host profiles.
#include "targets/variant_ranking.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // inside nlohmann's iterators (g++ 12)
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop
#include <sstream>

#include "tests/support/conformance.h"

namespace wv::targets {
namespace {

pkg::MarkerEnvironment markers(std::string_view system, std::string_view machine) {
  pkg::MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.12.0";
  env.os_name = system == "Windows" ? "nt" : "posix";
  env.platform_machine = std::string(machine);
  env.platform_python_implementation = "CPython";
  env.platform_system = std::string(system);
  env.python_full_version = "3.12.0";
  env.python_version = "3.12";
  env.sys_platform = system == "Linux" ? "linux" : system == "Darwin" ? "darwin" : "win32";
  return env;
}

HostProfile gpu_host(MajorMinor driver, MajorMinor sm) {
  HostProfile host;
  host.os.set(OsKind::kLinux, FactSource::kDeclared);
  host.arch.set("x86_64", FactSource::kDeclared);
  host.x86_64_level.set(3, FactSource::kDeclared);
  host.cuda_driver_version.set(driver, FactSource::kDeclared);
  host.compute_capabilities.set({sm}, FactSource::kDeclared);
  return host;
}

std::vector<pkg::VariantProperty> props(const std::string& ns,
                                        std::map<std::string, std::vector<std::string>> features) {
  std::vector<pkg::VariantProperty> out;
  for (const auto& [feature, values] : features) {
    for (const std::string& value : values) out.push_back({ns, feature, value});
  }
  return out;
}

// The torch-2.10.0 variants.json of reference/variants.md §2.2.
pkg::VariantsMetadata torch_2_10(bool with_priority) {
  pkg::VariantsMetadata m;
  m.default_priorities.namespaces = {"nvidia", "intel", "amd"};
  m.providers["amd"].enable_if = "platform_system == 'Linux'";
  m.providers["intel"].enable_if = "platform_system == 'Linux' or platform_system == 'Windows'";
  m.providers["nvidia"].enable_if = "platform_system == 'Linux' or platform_system == 'Windows'";
  if (with_priority) {
    m.default_priorities.namespaces.push_back("priority");
    m.providers["priority"].install_time = false;
    m.static_properties["priority"]["order"] = {"1", "2", "3"};
  }
  auto cuda = [&](const std::string& label, const std::string& lower,
                  std::vector<std::string> sm, const std::string& order) {
    auto p = props("nvidia", {{"cuda_version_lower_bound", {lower}}, {"sm_arch", sm}});
    if (with_priority) p.push_back({"priority", "order", order});
    std::sort(p.begin(), p.end());
    m.variants[label] = p;
  };
  cuda("cuda12.6", "12.0",
       {"50_real", "60_real", "70_real", "75_real", "80_real", "86_real", "90_real"}, "3");
  cuda("cuda12.8", "12.0",
       {"70_real", "75_real", "80_real", "86_real", "90_real", "100_real", "120_real"}, "2");
  cuda("cuda13.0", "13.0",
       {"75_real", "80_real", "86_real", "90_real", "100_real", "120_real", "120_virtual"}, "1");
  m.variants["null"] = {};
  const std::vector<std::string> gfx = {"gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150",
                                        "gfx1151", "gfx1200", "gfx1201", "gfx900",  "gfx906",
                                        "gfx908",  "gfx90a",  "gfx942",  "gfx950"};
  m.variants["rocm7.0"] = props("amd", {{"gfx_arch", gfx}, {"rocm_version", {"7.0"}}});
  m.variants["rocm7.1"] = props("amd", {{"gfx_arch", gfx}, {"rocm_version", {"7.1"}}});
  m.variants["xpu"] = props("intel", {{"device_ip", {"12.55.8", "12.60.7", "12.71.4", "12.74.4",
                                                     "20.1.0", "20.4.4", "30.0.4", "30.1.0"}}});
  REQUIRE(pkg::validate_variants_metadata(m));
  return m;
}

std::vector<std::string> compatible_labels(const pkg::VariantsMetadata& metadata,
                                           const HostProfile& host,
                                           const pkg::MarkerEnvironment& env) {
  const SupportedVariants supported = HostProviders(host, env).supported(metadata);
  std::vector<std::string> labels;
  for (const RankedVariant& ranked : rank_variants(metadata, supported)) {
    if (ranked.compatible()) labels.push_back(ranked.label);
  }
  return labels;
}

using Labels = std::vector<std::string>;

TEST_CASE("ranking: the torch 2.10 worked example (variants.md §4.4)", "[targets][ranking]") {
  const pkg::MarkerEnvironment linux = markers("Linux", "x86_64");
  const pkg::VariantsMetadata torch = torch_2_10(true);
  CHECK(compatible_labels(torch, gpu_host({12, 8}, {9, 0}), linux) ==
        Labels{"cuda12.8", "cuda12.6", "null"});
  CHECK(compatible_labels(torch, gpu_host({13, 0}, {9, 0}), linux) ==
        Labels{"cuda13.0", "cuda12.8", "cuda12.6", "null"});
  CHECK(compatible_labels(torch, gpu_host({12, 8}, {12, 0}), linux) ==
        Labels{"cuda12.8", "null"});
  CHECK(compatible_labels(torch, gpu_host({12, 4}, {8, 6}), linux) ==
        Labels{"cuda12.8", "cuda12.6", "null"});
  CHECK(compatible_labels(torch, gpu_host({11, 8}, {8, 6}), linux) == Labels{"null"});
  // Without the `priority` namespace equal keys fall through to the label.
  CHECK(compatible_labels(torch_2_10(false), gpu_host({12, 8}, {9, 0}), linux) ==
        Labels{"cuda12.6", "cuda12.8", "null"});
}

TEST_CASE("ranking: an incompatible variant names the first failing property",
          "[targets][ranking]") {
  const pkg::VariantsMetadata torch = torch_2_10(true);
  const HostProfile host = gpu_host({12, 8}, {12, 0});
  const SupportedVariants supported =
      HostProviders(host, markers("Linux", "x86_64")).supported(torch);
  VariantMatch match = match_variant("cuda12.6", torch, supported);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(match));
  const auto& why = std::get<IncompatibleVariant>(match);
  CHECK(why.property == pkg::VariantProperty{"nvidia", "sm_arch", "50_real"});
  CHECK(why.reason.find("`nvidia :: sm_arch`") != std::string::npos);
  CHECK(why.reason.find("`120_real`") != std::string::npos);

  match = match_variant("cuda13.0", torch, supported);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(match));
  CHECK(std::get<IncompatibleVariant>(match).property.feature == "cuda_version_lower_bound");
  CHECK(std::get<IncompatibleVariant>(match).property.value == "13.0");

  match = match_variant("rocm7.0", torch, supported);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(match));
  CHECK(std::get<IncompatibleVariant>(match).reason.find("reports nothing") != std::string::npos);

  match = match_variant("cuda99", torch, supported);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(match));
  CHECK(std::get<IncompatibleVariant>(match).reason.find("`cuda99`") != std::string::npos);

  // On macOS the enable-if disables nvidia: the reason says so.
  const SupportedVariants mac = HostProviders(host, markers("Darwin", "arm64")).supported(torch);
  match = match_variant("cuda12.8", torch, mac);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(match));
  CHECK(std::get<IncompatibleVariant>(match).reason.find("disabled") != std::string::npos);
}

TEST_CASE("ranking: the variant_properties marker set keeps only supported values",
          "[targets][ranking]") {
  const pkg::VariantsMetadata torch = torch_2_10(true);
  const SupportedVariants supported =
      HostProviders(gpu_host({12, 8}, {9, 0}), markers("Linux", "x86_64")).supported(torch);
  const std::vector<pkg::VariantProperty> kept =
      supported_properties(*torch.find_variant("cuda12.8"), supported);
  // An SM 9.0 GPU supports 90_real and 90_virtual only (the provider's list), not 80_real.
  CHECK(kept == std::vector<pkg::VariantProperty>{{"nvidia", "cuda_version_lower_bound", "12.0"},
                                                  {"nvidia", "sm_arch", "90_real"},
                                                  {"priority", "order", "2"}});
}

TEST_CASE("ranking: AMD needs the exact ROCm version and one matching gfx",
          "[targets][ranking]") {
  const pkg::VariantsMetadata torch = torch_2_10(true);
  HostProfile host;
  host.os.set(OsKind::kLinux, FactSource::kDeclared);
  host.arch.set("x86_64", FactSource::kDeclared);
  host.rocm_version.set({7, 1}, FactSource::kDeclared);
  host.gfx_archs.set({"gfx942"}, FactSource::kDeclared);
  CHECK(compatible_labels(torch, host, markers("Linux", "x86_64")) == Labels{"rocm7.1", "null"});
  host.gfx_archs.set({"gfx803"}, FactSource::kDeclared);
  CHECK(compatible_labels(torch, host, markers("Linux", "x86_64")) == Labels{"null"});
}

TEST_CASE("ranking: score comparison rules", "[targets][ranking]") {
  VariantScore a{VariantClass::kVariant, {{0, 0, 1}}, "b"};
  VariantScore b{VariantClass::kVariant, {{0, 0, 1}, {1, 0, 0}}, "a"};
  VariantScore null_score{VariantClass::kNull, {}, "null"};
  CHECK(compare_variant_scores(b, a) < 0);  // the longer list wins on a shared prefix
  CHECK(compare_variant_scores(a, null_score) < 0);
  CHECK(compare_variant_scores(null_score, non_variant_score()) < 0);
  VariantScore c{VariantClass::kVariant, {{0, 0, 0}}, "z"};
  CHECK(compare_variant_scores(c, a) < 0);  // lower value index wins
  VariantScore d{VariantClass::kVariant, {{0, 0, 1}}, "a"};
  CHECK(compare_variant_scores(d, a) < 0);  // label tiebreak
  CHECK(compare_variant_scores(a, a) == 0);
}

TEST_CASE("ranking: default-priorities feature and property overrides (PEP 817)",
          "[targets][ranking]") {
  pkg::VariantsMetadata m;
  m.default_priorities.namespaces = {"x86_64", "blas_lapack"};
  m.providers["blas_lapack"].install_time = false;
  m.static_properties["blas_lapack"]["provider"] = {"accelerate", "openblas", "mkl"};
  m.default_priorities.properties["blas_lapack"]["provider"] = {"mkl"};
  m.variants["openblas"] = {{"blas_lapack", "provider", "openblas"}};
  m.variants["mkl"] = {{"blas_lapack", "provider", "mkl"}};
  m.variants["v3"] = {{"x86_64", "level", "v3"}};
  m.variants["v3avx2"] = {{"x86_64", "avx2", "on"}, {"x86_64", "level", "v3"}};
  m.variants["avx2"] = {{"x86_64", "avx2", "on"}};
  m.variants["v4"] = {{"x86_64", "level", "v4"}};
  HostProfile host;
  host.arch.set("x86_64", FactSource::kDeclared);
  host.x86_64_level.set(3, FactSource::kDeclared);
  const pkg::MarkerEnvironment env = markers("Linux", "x86_64");
  // More matched features win on a shared prefix; level before extensions (provider order);
  // mkl promoted over openblas by the property override; v4 is unsupported.
  CHECK(compatible_labels(m, host, env) == Labels{"v3avx2", "v3", "avx2", "mkl", "openblas"});
  // A feature override puts avx2 before level.
  m.default_priorities.features["x86_64"] = {"avx2"};
  CHECK(compatible_labels(m, host, env) == Labels{"v3avx2", "avx2", "v3", "mkl", "openblas"});
}

// A lenient reader of the published shapes, for this test only (src/index owns the real one).
const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!object.is_object()) return kEmpty;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? kEmpty : *it;
}

pkg::VariantsMetadata read_metadata(const nlohmann::json& doc) {
  pkg::VariantsMetadata m;
  auto strings = [](const nlohmann::json& j) {
    std::vector<std::string> out;
    if (j.is_array()) {
      for (const auto& item : j) {
        if (item.is_string()) out.push_back(item.get<std::string>());
      }
    }
    return out;
  };
  auto feature_values = [&](const nlohmann::json& j) {
    pkg::FeatureValues out;
    if (j.is_object()) {
      for (const auto& [feature, values] : j.items()) out[feature] = strings(values);
    }
    return out;
  };
  if (doc.contains("$schema") && doc["$schema"].is_string()) {
    m.schema_url = doc["$schema"].get<std::string>();
    m.schema = pkg::classify_variants_schema(m.schema_url);
  }
  const auto& priorities = member(doc, "default-priorities");
  m.default_priorities.namespaces = strings(member(priorities, "namespace"));
  for (const auto& [ns, list] : member(priorities, "feature").items()) {
    m.default_priorities.features[ns] = strings(list);
  }
  for (const auto& [ns, features] :
       member(priorities, "property").items()) {
    m.default_priorities.properties[ns] = feature_values(features);
  }
  for (const auto& [ns, provider] : member(doc, "providers").items()) {
    pkg::VariantProvider& p = m.providers[ns];
    p.requirements = strings(member(provider, "requires"));
    if (provider.contains("enable-if") && provider["enable-if"].is_string()) {
      p.enable_if = provider["enable-if"].get<std::string>();
    }
    if (!provider.is_object()) continue;
    p.optional = provider.value("optional", nlohmann::json(false)) == true;
    p.install_time = provider.value("install-time", nlohmann::json(true)) != false;
    if (provider.value("plugin-use", nlohmann::json()) == "none") p.install_time = false;
    if (provider.contains("static-properties")) {
      p.install_time = false;
      m.static_properties[ns] = feature_values(provider["static-properties"]);
    }
  }
  for (const auto& [ns, features] :
       member(doc, "static-properties").items()) {
    m.static_properties[ns] = feature_values(features);
  }
  for (const auto& [label, namespaces] : member(doc, "variants").items()) {
    std::vector<pkg::VariantProperty>& list = m.variants[label];
    for (const auto& [ns, features] : namespaces.items()) {
      for (const auto& [feature, values] : feature_values(features)) {
        for (const std::string& value : values) list.push_back({ns, feature, value});
      }
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return m;
}

TEST_CASE("ranking: every conformance variants.json ranks on several hosts",
          "[targets][ranking][conformance]") {
  const std::optional<std::string> root = test::conformance_dir();
  const std::filesystem::path dir = std::filesystem::path(root.value_or("")) / "variants-index";
  if (!root || !std::filesystem::is_directory(dir)) {
    WARN("conformance variants-index not found; skipping");
    return;
  }
  std::vector<std::pair<std::string, HostProfile>> hosts;
  hosts.emplace_back("h100 cuda 12.8", gpu_host({12, 8}, {9, 0}));
  hosts.emplace_back("a100 cuda 13.0", gpu_host({13, 0}, {8, 0}));
  hosts.emplace_back("t4 cuda 12.4", gpu_host({12, 4}, {7, 5}));
  HostProfile cpu;
  cpu.os.set(OsKind::kLinux, FactSource::kDeclared);
  cpu.arch.set("x86_64", FactSource::kDeclared);
  cpu.x86_64_level.set(4, FactSource::kDeclared);
  hosts.emplace_back("cpu v4", cpu);
  HostProfile mi300 = cpu;
  mi300.rocm_version.set({6, 4}, FactSource::kDeclared);
  mi300.gfx_archs.set({"gfx942"}, FactSource::kDeclared);
  hosts.emplace_back("mi300 rocm 6.4", mi300);

  int files = 0, passed = 0, failed = 0, ranked_cuda = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 14 || name.substr(name.size() - 14) != "-variants.json") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(buffer.str(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      ++failed;
      UNSCOPED_INFO("unparsable: " << name);
      continue;
    }
    const pkg::VariantsMetadata metadata = read_metadata(doc);
    bool ok = true;
    for (const auto& [host_name, host] : hosts) {
      const SupportedVariants supported =
          HostProviders(host, markers("Linux", "x86_64")).supported(metadata);
      const std::vector<RankedVariant> ranked = rank_variants(metadata, supported);
      // Every label is ranked once; compatible ones first and in non-decreasing order.
      if (ranked.size() != metadata.variants.size()) ok = false;
      bool seen_incompatible = false;
      const VariantScore* previous = nullptr;
      for (const RankedVariant& r : ranked) {
        if (!r.compatible()) {
          seen_incompatible = true;
          if (std::get<IncompatibleVariant>(r.match).reason.empty()) ok = false;
          continue;
        }
        if (seen_incompatible) ok = false;
        const VariantScore& score = std::get<VariantScore>(r.match);
        if (previous && compare_variant_scores(*previous, score) > 0) ok = false;
        previous = &score;
        if (score.kind == VariantClass::kVariant && r.label.rfind("cu", 0) == 0 &&
            host_name.find("cuda") != std::string::npos) {
          ++ranked_cuda;
        }
      }
      // The null variant, when present, is always compatible.
      if (metadata.find_variant("null") != nullptr) {
        bool null_ok = false;
        for (const RankedVariant& r : ranked) null_ok |= r.label == "null" && r.compatible();
        if (!null_ok) ok = false;
      }
    }
    ok ? ++passed : ++failed;
  }
  test::print_tally("variants-index/*-variants.json (5 hosts)", passed, failed);
  CHECK(files > 50);
  CHECK(ranked_cuda > 0);  // CUDA hosts do pick CUDA builds somewhere in the index
  REQUIRE(failed == 0);
}

}  // namespace
}  // namespace wv::targets

namespace wv::targets {
namespace {

std::optional<pkg::VariantsMetadata> load_conformance(const std::string& relative,
                                                     const std::string& folder = "variants-index") {
  const std::optional<std::string> root = test::conformance_dir();
  if (!root) return std::nullopt;
  std::ifstream in(std::filesystem::path(*root) / folder / relative);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  return read_metadata(doc);
}

TEST_CASE("ranking: published torch 2.9.0 and numpy 2.3.3 pick the expected builds",
          "[targets][ranking][conformance]") {
  const std::optional<pkg::VariantsMetadata> torch = load_conformance("torch/torch-2.9.0-variants.json");
  const std::optional<pkg::VariantsMetadata> numpy = load_conformance("numpy/numpy-2.3.3-variants.json");
  if (!torch || !numpy) {
    WARN("conformance variants-index not found; skipping");
    return;
  }
  const pkg::MarkerEnvironment linux = markers("Linux", "x86_64");
  CHECK(compatible_labels(*torch, gpu_host({12, 8}, {9, 0}), linux) ==
        Labels{"cuda12.8", "cuda12.6", "null"});
  CHECK(compatible_labels(*torch, gpu_host({13, 0}, {12, 0}), linux) ==
        Labels{"cuda13.0", "cuda12.8", "null"});
  HostProfile mi300;
  mi300.os.set(OsKind::kLinux, FactSource::kDeclared);
  mi300.arch.set("x86_64", FactSource::kDeclared);
  mi300.rocm_version.set({6, 4}, FactSource::kDeclared);
  mi300.gfx_archs.set({"gfx942"}, FactSource::kDeclared);
  CHECK(compatible_labels(*torch, mi300, linux) == Labels{"rocm6.4", "null"});
  HostProfile cpu = mi300;
  cpu.rocm_version.clear(FactSource::kUnknown);
  cpu.gfx_archs.clear(FactSource::kUnknown);
  cpu.x86_64_level.set(4, FactSource::kDeclared);
  CHECK(compatible_labels(*torch, cpu, linux) == Labels{"null"});
  // numpy: the v4+MKL build first on an x86-64-v4 CPU, never on v3; blas by static priority.
  const Labels v4 = compatible_labels(*numpy, cpu, linux);
  REQUIRE_FALSE(v4.empty());
  CHECK(v4.front() == "x8664v4_mkl");
  cpu.x86_64_level.set(3, FactSource::kDeclared);
  const Labels v3 = compatible_labels(*numpy, cpu, linux);
  CHECK(std::find(v3.begin(), v3.end(), "x8664v4_mkl") == v3.end());
  // On an aarch64 machine the x86_64 provider is disabled by its enable-if.
  HostProfile arm = cpu;
  arm.arch.set("aarch64", FactSource::kDeclared);
  const Labels on_arm = compatible_labels(*numpy, arm, markers("Linux", "aarch64"));
  CHECK(std::find(on_arm.begin(), on_arm.end(), "x8664v4_mkl") == on_arm.end());
}

TEST_CASE("ranking: variantlib's test package with user-supplied provider values",
          "[targets][ranking][conformance]") {
  const std::optional<pkg::VariantsMetadata> package = load_conformance(
      "tests/artifacts/test-package/dist/test_package-0-variants.json", "variantlib");
  const std::optional<pkg::VariantsMetadata> dummy = load_conformance(
      "tests/artifacts/variant_json_files/dummy_project-1.0.0-variants.json", "variantlib");
  if (!package || !dummy) {
    WARN("conformance variantlib files not found; skipping");
    return;
  }
  HostProfile host;
  host.os.set(OsKind::kLinux, FactSource::kDeclared);
  host.arch.set("x86_64", FactSource::kDeclared);
  host.properties["installable_plugin"]["feat1"] = {"val1a", "val1c"};
  host.properties["installable_plugin"]["feat2"] = {"val2b"};
  // Two matched features beat one; equal keys fall to the label; null last.
  CHECK(compatible_labels(*package, host, markers("Linux", "x86_64")) ==
        Labels{"5d8be4b9", "60567bd9", "foo", "bar", "fbe82642", "null"});
  // Without values for feat2, the labels needing it are out, with a reason.
  host.properties["installable_plugin"].erase("feat2");
  const SupportedVariants supported =
      HostProviders(host, markers("Linux", "x86_64")).supported(*package);
  const VariantMatch bar = match_variant("bar", *package, supported);
  REQUIRE(std::holds_alternative<IncompatibleVariant>(bar));
  CHECK(std::get<IncompatibleVariant>(bar).property ==
        pkg::VariantProperty{"installable_plugin", "feat2", "val2b"});
  CHECK(compatible_labels(*package, host, markers("Linux", "x86_64")) ==
        Labels{"60567bd9", "foo", "null"});

  // dummy_project: fictional_hw is enabled only where python_version >= '3.12'.
  HostProfile fictional;
  fictional.properties["fictional_hw"]["compute_capability"] = {"8", "5", "4"};
  pkg::MarkerEnvironment py311 = markers("Linux", "x86_64");
  py311.python_version = "3.11";
  py311.python_full_version = "3.11.0";
  const Labels on_311 = compatible_labels(*dummy, fictional, py311);
  const Labels on_312 = compatible_labels(*dummy, fictional, markers("Linux", "x86_64"));
  CHECK(on_311 == Labels{"null"});
  CHECK(std::find(on_312.begin(), on_312.end(), "3351fc6a") != on_312.end());
}

}  // namespace
}  // namespace wv::targets
