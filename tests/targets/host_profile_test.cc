// Tests for targets/host_profile.h: versions, sources, the highest GPU.
#include "targets/host_profile.h"

#include <catch2/catch.hpp>

namespace wv::targets {
namespace {

TEST_CASE("host profile: major.minor parsing", "[targets][host_profile]") {
  CHECK(*parse_major_minor("12.8", "CUDA version") == MajorMinor{12, 8});
  CHECK(*parse_major_minor(" 2.28 ", "glibc version") == MajorMinor{2, 28});
  CHECK(*parse_major_minor("14", "macOS version", true) == MajorMinor{14, 0});
  CHECK(*parse_major_minor("6.4.1", "ROCm version", false, true) == MajorMinor{6, 4});
  for (const char* bad : {"", "12", "12.", ".8", "12.8.1", "a.b", "12.-1", "1.2.3.4", "99999999.1"}) {
    CAPTURE(bad);
    Result<MajorMinor> parsed = parse_major_minor(bad, "CUDA version");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message.find("invalid CUDA version") == 0);
  }
  CHECK_FALSE(parse_major_minor("6.4.1.2", "ROCm version", false, true));
  CHECK((MajorMinor{12, 10} > MajorMinor{12, 9}));
  CHECK(MajorMinor{12, 10}.to_string() == "12.10");
}

TEST_CASE("host profile: facts know their source; the highest GPU", "[targets][host_profile]") {
  HostProfile host;
  CHECK_FALSE(host.highest_compute_capability());
  host.compute_capabilities.set({{8, 6}, {9, 0}, {7, 5}}, FactSource::kNvml);
  CHECK(*host.highest_compute_capability() == MajorMinor{9, 0});
  CHECK(host.compute_capabilities.source == FactSource::kNvml);
  host.compute_capabilities.clear(FactSource::kOverride);
  CHECK_FALSE(host.compute_capabilities.known());
  CHECK(host.compute_capabilities.source == FactSource::kOverride);
  CHECK(to_string(FactSource::kNvidiaSmi) == "nvidia-smi");
  CHECK(to_string(FactSource::kDeclared) == "declared");
  CHECK(to_string(OsKind::kMacos) == "macos");
  CHECK(to_string(LibcKind::kMusl) == "musl");
}

}  // namespace
}  // namespace wv::targets
