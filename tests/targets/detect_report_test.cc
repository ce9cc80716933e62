// Tests for targets/detect_report.h: the text and JSON reports of `wvlock detect`.
#include "src/base/json_writer.h"
#include "targets/detect_report.h"

#include <catch2/catch.hpp>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // inside nlohmann's iterators (g++ 12)
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

namespace wv::targets {
namespace {

HostProfile h100() {
  HostProfile host;
  host.os.set(OsKind::kLinux, FactSource::kUname);
  host.arch.set("x86_64", FactSource::kUname);
  host.libc.set(LibcKind::kGlibc, FactSource::kLibc);
  host.libc_version.set({2, 36}, FactSource::kLibc);
  host.x86_64_level.set(3, FactSource::kCpuid);
  host.cuda_driver_version.set({12, 8}, FactSource::kNvml);
  host.compute_capabilities.set({{9, 0}, {8, 0}}, FactSource::kNvml);
  host.properties["blas_lapack"]["provider"] = {"openblas"};
  host.notes.push_back("amd: no KFD topology \"quoted\"\tand tabbed");
  return host;
}

TEST_CASE("detect report: text lists facts with sources and provider outputs",
          "[targets][detect_report]") {
  const std::string text = render_detect_report(h100(), false);
  CHECK(text.find("host: linux x86_64 glibc 2.36 x86-64-v3 cuda 12.8 sm 9.0,8.0\n") == 0);
  CHECK(text.find("cuda_driver_version   12.8  (nvml)") != std::string::npos);
  CHECK(text.find("compute_capabilities  9.0, 8.0  (nvml)") != std::string::npos);
  CHECK(text.find("rocm_version          -\n") != std::string::npos);
  CHECK(text.find("nvidia :: sm_arch :: 90_real, 90_virtual\n") != std::string::npos);
  CHECK(text.find("x86_64 :: level :: v3, v2, v1\n") != std::string::npos);
  CHECK(text.find("amd: nothing supported\n") != std::string::npos);
  CHECK(text.find("blas_lapack :: provider :: openblas") != std::string::npos);
  CHECK(text.find("notes:\n  amd: no KFD") != std::string::npos);
}

TEST_CASE("detect report: JSON is valid and carries every fact and provider",
          "[targets][detect_report]") {
  const std::string text = render_detect_report(h100(), true);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  CHECK(doc["facts"]["cuda_driver_version"]["value"] == "12.8");
  CHECK(doc["facts"]["cuda_driver_version"]["source"] == "nvml");
  CHECK(doc["facts"]["x86_64_level"]["value"] == 3);
  CHECK(doc["facts"]["rocm_version"]["value"].is_null());
  CHECK(doc["facts"]["compute_capabilities"]["value"] == nlohmann::json({"9.0", "8.0"}));
  const auto& nvidia = doc["providers"]["nvidia"];
  REQUIRE(nvidia.size() == 3);
  CHECK(nvidia[2]["feature"] == "sm_arch");
  CHECK(nvidia[2]["multi_value"] == true);
  CHECK(nvidia[0]["values"][0] == "12.8");
  CHECK(doc["providers"]["amd"].empty());
  CHECK(doc["properties"]["blas_lapack"]["provider"][0] == "openblas");
  CHECK(doc["notes"][0] == "amd: no KFD topology \"quoted\"\tand tabbed");
  // An empty profile is valid JSON too, and rendering is deterministic.
  const HostProfile empty;
  CHECK_FALSE(nlohmann::json::parse(render_detect_report(empty, true), nullptr, false).is_discarded());
  CHECK(render_detect_report(h100(), true) == text);
  CHECK(json_quote(std::string("a\x01") + "b") == "\"a\\u0001b\"");
}

}  // namespace
}  // namespace wv::targets
