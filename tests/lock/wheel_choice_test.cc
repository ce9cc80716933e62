// The near miss a failure quotes when no wheel of a version matches a target's platform: the
// wheel for the same machine first, and what the target would have to declare for it.
#include <catch2/catch.hpp>

#include "lock/wheel_choice.h"

namespace {

std::vector<wv::pkg::Distribution> files(const std::vector<std::string>& names) {
  std::vector<wv::pkg::Distribution> out;
  for (const std::string& name : names) {
    wv::pkg::Distribution file;
    file.filename = name;
    out.push_back(file);
  }
  return out;
}

}  // namespace

TEST_CASE("closest wheel: the same machine and C library, and the glibc it needs",
          "[lock][wheel_choice]") {
  // The aarch64 wheel is listed first; the x86_64 one is the near miss of an x86_64 target.
  auto wheels = files({"torch-2.9.0-cp311-cp311-manylinux_2_28_aarch64.whl",
                       "torch-2.9.0-cp311-cp311-win_amd64.whl",
                       "torch-2.9.0-cp311-cp311-manylinux_2_28_x86_64.whl"});
  wv::lock::NearMiss near = wv::lock::closest_wheel(wheels, {"cp311", "cp311", "manylinux_2_17_x86_64"});
  REQUIRE(near.file != nullptr);
  CHECK(near.file->filename == "torch-2.9.0-cp311-cp311-manylinux_2_28_x86_64.whl");
  CHECK(near.needs == ": it needs glibc 2.28, the target declares 2.17; if its machines have 2.28, "
                      "declare `glibc = \"2.28\"` on the target");
  // Another interpreter's wheel is a near miss, but no glibc would make it fit.
  auto other = files({"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl"});
  near = wv::lock::closest_wheel(other, {"cp311", "cp311", "manylinux_2_17_x86_64"});
  CHECK(near.file->filename == "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(near.needs.empty());
}

TEST_CASE("closest wheel: macOS versions, and wheels for other machines only",
          "[lock][wheel_choice]") {
  auto mac = files({"numpy-2.2.6-cp311-cp311-manylinux_2_17_x86_64.whl",
                    "numpy-2.2.6-cp311-cp311-macosx_14_0_arm64.whl"});
  wv::lock::NearMiss near = wv::lock::closest_wheel(mac, {"cp311", "cp311", "macosx_13_0_arm64"});
  CHECK(near.file->filename == "numpy-2.2.6-cp311-cp311-macosx_14_0_arm64.whl");
  CHECK(near.needs.find("it needs macOS 14.0, the target declares 13.0") != std::string::npos);
  CHECK(near.needs.find("`macos = \"14.0\"`") != std::string::npos);
  auto windows = files({"x-1.0-cp311-cp311-win_amd64.whl"});
  near = wv::lock::closest_wheel(windows, {"cp311", "cp311", "manylinux_2_28_x86_64"});
  CHECK(near.file->filename == "x-1.0-cp311-cp311-win_amd64.whl");
  CHECK(near.needs.empty());
}
