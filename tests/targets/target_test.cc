// Tests for targets/target.h: platform shorthands and their defaults.
#include "targets/target.h"

#include <catch2/catch.hpp>

namespace wv::targets {
namespace {

TEST_CASE("target: platform shorthands", "[targets][target]") {
  Result<Platform> musl = parse_platform("linux-musl-aarch64");
  REQUIRE(musl);
  CHECK(musl->os == OsKind::kLinux);
  CHECK(musl->arch == "aarch64");
  CHECK(musl->libc == LibcKind::kMusl);
  CHECK(default_platform_version(*musl) == MajorMinor{1, 2});
  Result<Platform> mac = parse_platform("macos-x86_64");
  REQUIRE(mac);
  CHECK(default_platform_version(*mac) == MajorMinor{13, 0});
  CHECK(default_platform_version(*parse_platform("linux-x86_64")) == MajorMinor{2, 28});
  Result<Platform> windows = parse_platform("windows-arm64");
  REQUIRE(windows);
  CHECK(windows->arch == "aarch64");
  Result<Platform> bad = parse_platform("linux");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("unknown platform `linux`") == 0);
}

TEST_CASE("target: tag platform of a Windows ARM and a free-threaded Linux host",
          "[targets][target]") {
  HostProfile host;
  host.os.set(OsKind::kWindows, FactSource::kDeclared);
  host.arch.set("aarch64", FactSource::kDeclared);
  host.python_version.set({3, 13}, FactSource::kDeclared);
  Result<pkg::TagPlatform> windows = tag_platform(host);
  REQUIRE(windows);
  CHECK(windows->os == pkg::OperatingSystem::kWindows);
  CHECK(windows->arch == "arm64");
  Result<pkg::MarkerEnvironment> markers = marker_environment(host);
  REQUIRE(markers);
  CHECK(markers->platform_machine == "ARM64");

  host.os.set(OsKind::kLinux, FactSource::kDeclared);
  host.arch.set("x86_64", FactSource::kDeclared);
  host.python_free_threaded.set(true, FactSource::kDeclared);
  Result<std::vector<pkg::Tag>> tags = compatible_tags(host);
  REQUIRE(tags);
  CHECK(tags->front().to_string() == "cp313-cp313t-manylinux_2_28_x86_64");
}

}  // namespace
}  // namespace wv::targets
