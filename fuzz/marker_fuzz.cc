// PEP 508 markers with the PEP 751 and PEP 825 variables (src/pkg/marker.h), parsed and then
// evaluated. Properties: printing is a fixed point from the second print on (the first may
// differ: packaging's quirks, below); the original and the reparsed marker evaluate alike
// (value or error) in every context; the convenience evaluate() agrees with the prepared one;
// `m and m` and `m or m` answer as m.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "src/pkg/marker.h"
#include "src/pkg/marker_environment.h"

namespace {

using wv::pkg::Marker;
using wv::pkg::MarkerEnvironment;

MarkerEnvironment linux_cpython() {
  MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.12.4";
  env.os_name = "posix";
  env.platform_machine = "x86_64";
  env.platform_python_implementation = "CPython";
  env.platform_release = "6.8.0-45-generic";
  env.platform_system = "Linux";
  env.platform_version = "#45-Ubuntu SMP PREEMPT_DYNAMIC";
  env.python_full_version = "3.12.4";
  env.python_version = "3.12";
  env.sys_platform = "linux";
  return env;
}

MarkerEnvironment mac_pypy() {
  MarkerEnvironment env;
  env.implementation_name = "pypy";
  env.implementation_version = "7.3.17";
  env.os_name = "posix";
  env.platform_machine = "arm64";
  env.platform_python_implementation = "PyPy";
  env.platform_release = "23.6.0";
  env.platform_system = "Darwin";
  env.platform_version = "Darwin Kernel Version 23.6.0";
  env.python_full_version = "3.10.14+";
  env.python_version = "3.10";
  env.sys_platform = "darwin";
  return env;
}

// Equal results: both values and equal, or both errors.
bool same(const wv::Result<bool>& a, const wv::Result<bool>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || a.value() == b.value();
}

}  // namespace

WV_FUZZ_TARGET(marker) {
  if (size > wv::fuzz::kMaxTextInput) return;
  auto parsed = wv::pkg::parse_marker(wv::fuzz::as_text(data, size));
  if (!parsed) return;
  const Marker& marker = parsed.value();
  // packaging's str(Marker), which to_string() reproduces (docs/pep508.md), is not quite a
  // normal form: values are read as Python literals (escapes) but printed raw, so a value
  // written with a backslash does not print back to itself, and one holding both quote
  // characters has no printed form. Hence, unless the input has a backslash or both kinds of
  // quotes: the printed form parses and evaluates as the original, and the second print is a
  // fixed point. (Under packaging 23.0 an `extra` value was normalised only in the first
  // comparison of the top-level list, so the first reprint of a marker mentioning `extra`
  // could differ; packaging 26 normalises every one at parse.)
  const std::string_view input = wv::fuzz::as_text(data, size);
  const bool unprintable = input.find('\\') != std::string_view::npos ||
                           (input.find('"') != std::string_view::npos &&
                            input.find('\'') != std::string_view::npos);
  const std::string printed = marker.to_string();
  std::optional<Marker> again;
  std::optional<Marker> reprinted;
  if (!unprintable) {
    auto reparsed = wv::pkg::parse_marker(printed);
    WV_FUZZ_CHECK(reparsed.has_value(), "printed marker `" + printed + "` does not parse");
    again = reparsed.value();
    const std::string printed2 = again->to_string();
    auto third = wv::pkg::parse_marker(printed2);
    WV_FUZZ_CHECK(third.has_value(), "reprinted marker `" + printed2 + "` does not parse");
    WV_FUZZ_CHECK(third.value().to_string() == printed2, "printed marker not idempotent: `" + printed2 + "`");
    WV_FUZZ_CHECK(third.value() == *again, "reparsed marker unequal: `" + printed2 + "`");
    reprinted = third.value();
  }

  static const std::array<MarkerEnvironment, 2> kEnvironments = {linux_cpython(), mac_pypy()};
  static const std::array<wv::pkg::PreparedEnvironment, 2> kPrepared = {
      wv::pkg::PreparedEnvironment(kEnvironments[0]), wv::pkg::PreparedEnvironment(kEnvironments[1])};
  static const std::vector<std::string> kExtras = {"Cuda_12", "test"};
  static const std::vector<std::string> kGroups = {"dev"};
  static const std::vector<std::string> kProperties = {"nvidia :: sm_arch :: 90_real",
                                                        "nvidia::cuda_version_lower_bound::12.8"};
  static const wv::pkg::VariantFacts kVariant = wv::pkg::make_variant_facts("cu128", kProperties);
  const Marker both = marker.and_(marker);
  const Marker either = marker.or_(marker);
  for (std::size_t e = 0; e < kEnvironments.size(); ++e) {
    for (int shape = 0; shape < 3; ++shape) {
      wv::pkg::MarkerContext context;
      context.environment = &kPrepared[e];
      if (shape >= 1) {
        context.extras = kExtras;
        context.dependency_groups = kGroups;
      }
      if (shape == 2) context.variant = &kVariant;
      const wv::Result<bool> result = marker.evaluate(context);
      const std::string what = "`" + printed + "` in environment " + std::to_string(e) + "/" +
                               std::to_string(shape);
      if (again) {
        WV_FUZZ_CHECK(same(result, again->evaluate(context)), "reparsed marker evaluates differently: " + what);
      }
      if (again && reprinted) {
        WV_FUZZ_CHECK(same(again->evaluate(context), reprinted->evaluate(context)),
                      "reprinted marker evaluates differently: " + what);
      }
      if (result) {
        WV_FUZZ_CHECK(same(result, both.evaluate(context)), "m and m differs from m: " + what);
        WV_FUZZ_CHECK(same(result, either.evaluate(context)), "m or m differs from m: " + what);
      }
    }
    WV_FUZZ_CHECK(same(marker.evaluate(kEnvironments[e], "test"), [&] {
                    const std::vector<std::string> extra = {"test"};
                    wv::pkg::MarkerContext context;
                    context.environment = &kPrepared[e];
                    context.extras = extra;
                    return marker.evaluate(context);
                  }()),
                  "evaluate(environment, extra) disagrees with the prepared context: `" + printed + "`");
  }
}
