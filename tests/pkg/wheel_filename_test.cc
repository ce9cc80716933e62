#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "src/pkg/wheel_filename.h"

using wv::pkg::BuildTag;
using wv::pkg::parse_build_tag;
using wv::pkg::parse_wheel_filename;
using wv::pkg::WheelFilename;

namespace {

std::vector<std::string> tag_strings(const WheelFilename& wheel) {
  std::vector<std::string> out;
  for (const auto& tag : wheel.tags) out.push_back(tag.to_string());
  return out;
}

}  // namespace

TEST_CASE("wheel filename: a plain five-part wheel", "[pkg][wheel_filename]") {
  auto wheel = parse_wheel_filename("numpy-2.3.2-cp312-cp312-manylinux_2_17_x86_64.whl");
  REQUIRE(wheel);
  CHECK(wheel->name.str() == "numpy");
  CHECK(wheel->version.to_string() == "2.3.2");
  CHECK_FALSE(wheel->build);
  CHECK_FALSE(wheel->is_variant());
  CHECK(tag_strings(*wheel) == std::vector<std::string>{"cp312-cp312-manylinux_2_17_x86_64"});
}

TEST_CASE("wheel filename: a six-part name with a variant label", "[pkg][wheel_filename]") {
  auto torch = parse_wheel_filename("torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  REQUIRE(torch);
  CHECK(torch->name.str() == "torch");
  CHECK_FALSE(torch->build);
  REQUIRE(torch->variant_label);
  CHECK(*torch->variant_label == "cu128");
  CHECK(torch->platform_tag == "manylinux_2_28_x86_64");

  auto numpy = parse_wheel_filename("numpy-2.3.2-cp312-cp312-manylinux_2_28_x86_64-x8664v3.whl");
  REQUIRE(numpy);
  CHECK(numpy->variant_label == std::optional<std::string>("x8664v3"));

  auto dotted = parse_wheel_filename("torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl");
  REQUIRE(dotted);
  CHECK(*dotted->variant_label == "cuda12.8");
  CHECK(dotted->tags.size() == 1);  // the dot in the label does not make a compressed tag set

  auto null = parse_wheel_filename("torch-2.9.0-cp312-none-macosx_11_0_arm64-null.whl");
  REQUIRE(null);
  CHECK(null->is_null_variant());
  CHECK_FALSE(dotted->is_null_variant());
}

TEST_CASE("wheel filename: a six-part name with a build tag", "[pkg][wheel_filename]") {
  auto wheel = parse_wheel_filename("nvidia_cudnn_cu12-9.1.0.70-1-py3-none-manylinux2014_x86_64.whl");
  REQUIRE(wheel);
  CHECK(wheel->name.str() == "nvidia-cudnn-cu12");
  REQUIRE(wheel->build);
  CHECK(*wheel->build == BuildTag{1, ""});
  CHECK_FALSE(wheel->is_variant());
  CHECK(wheel->python_tag == "py3");
}

TEST_CASE("wheel filename: seven parts are build tag and variant label", "[pkg][wheel_filename]") {
  auto wheel =
      parse_wheel_filename("numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64-x86_64_v3.whl");
  REQUIRE(wheel);
  CHECK(wheel->build == std::optional<BuildTag>(BuildTag{1, ""}));
  CHECK(wheel->variant_label == std::optional<std::string>("x86_64_v3"));
  CHECK(wheel->abi_tag == "cp313t");

  // Seven parts where the third is not a build tag is an error, naming the build tag.
  auto bad = parse_wheel_filename("numpy-2.3.2-cp313-cp313-cp313t-musllinux_1_2_x86_64-v3.whl");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("build tag") != std::string::npos);
}

TEST_CASE("wheel filename: compressed tag sets expand to the cross product",
          "[pkg][wheel_filename]") {
  auto six = parse_wheel_filename("six-1.16.0-py2.py3-none-any.whl");
  REQUIRE(six);
  CHECK(tag_strings(*six) == std::vector<std::string>{"py2-none-any", "py3-none-any"});
  CHECK(six->python_tag == "py2.py3");

  auto cudf = parse_wheel_filename(
      "cudf-25.12.0a135-cp310-cp310-manylinux_2_24_x86_64.manylinux_2_28_x86_64-cuda12.whl");
  REQUIRE(cudf);
  CHECK(cudf->version.is_prerelease());
  CHECK(tag_strings(*cudf) == std::vector<std::string>{"cp310-cp310-manylinux_2_24_x86_64",
                                                       "cp310-cp310-manylinux_2_28_x86_64"});
  CHECK(cudf->variant_label == std::optional<std::string>("cuda12"));

  auto many = parse_wheel_filename(
      "pillow-10.0.0-cp311.cp312-abi3.none-macosx_10_9_x86_64.macosx_11_0_arm64.whl");
  REQUIRE(many);
  CHECK(many->tags.size() == 8);
}

TEST_CASE("wheel filename: names normalise, versions parse", "[pkg][wheel_filename]") {
  auto wheel = parse_wheel_filename("Typing_Extensions-4.12.2-py3-none-any.whl");
  REQUIRE(wheel);
  CHECK(wheel->name.str() == "typing-extensions");
  auto dotted = parse_wheel_filename("zope.interface-6.0-cp312-cp312-win_amd64.whl");
  REQUIRE(dotted);
  CHECK(dotted->name.str() == "zope-interface");
  auto local = parse_wheel_filename("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl");
  REQUIRE(local);
  CHECK(local->version.local() == "cu124");
  auto digits = parse_wheel_filename("3to2-1.1.1-py3-none-any.whl");
  REQUIRE(digits);
  CHECK(digits->name.str() == "3to2");
  auto escaped_version = parse_wheel_filename("foo-1.0_post1-py3-none-any.whl");
  REQUIRE(escaped_version);
  CHECK(escaped_version->version.to_string() == "1.0.post1");
  auto upper = parse_wheel_filename("Foo-1.0-CP312-CP312-WIN_AMD64.whl");
  REQUIRE(upper);
  CHECK(upper->tags.front().to_string() == "cp312-cp312-win_amd64");
}

TEST_CASE("wheel filename: to_string round trips", "[pkg][wheel_filename]") {
  for (const char* name : {
           "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
           "numpy-2.3.2-cp312-cp312-manylinux_2_28_x86_64-x8664v3.whl",
           "nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl",
           "numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64-x86_64_v3.whl",
           "six-1.16.0-py2.py3-none-any.whl",
           "pkg-1.0-2abc.d-py3-none-any.whl",
           "torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl",
       }) {
    auto wheel = parse_wheel_filename(name);
    REQUIRE(wheel);
    CHECK(wheel->to_string() == name);
    CHECK(parse_wheel_filename(wheel->to_string()).value() == *wheel);
  }
  // Non-canonical spellings round trip to the canonical form, which parses to an equal value.
  auto messy = parse_wheel_filename("Foo.Bar-01.0-py3-none-any.whl");
  REQUIRE(messy);
  CHECK(messy->to_string() == "foo_bar-1.0-py3-none-any.whl");
  CHECK(parse_wheel_filename(messy->to_string()).value() == *messy);
}

TEST_CASE("wheel filename: build tags order as (number, rest)", "[pkg][wheel_filename]") {
  CHECK(parse_build_tag("1").value() < parse_build_tag("2").value());
  CHECK(parse_build_tag("2").value() < parse_build_tag("10").value());  // numeric, not textual
  CHECK(parse_build_tag("1").value() < parse_build_tag("1a").value());
  CHECK(parse_build_tag("1a").value() < parse_build_tag("1b").value());
  CHECK(parse_build_tag("007").value() == BuildTag{7, ""});
  CHECK_FALSE(parse_build_tag(""));
  CHECK_FALSE(parse_build_tag("a1"));
  CHECK_FALSE(parse_build_tag("1+x"));
  auto huge = parse_build_tag("99999999999999999999999");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().code == wv::ErrorCode::kUnsupported);
}

TEST_CASE("wheel filename: malformed names give reasons", "[pkg][wheel_filename]") {
  struct Case {
    const char* filename;
    const char* reason;
  };
  for (const Case& c : std::vector<Case>{
           {"numpy-2.3.2-cp312-cp312-manylinux_2_17_x86_64.zip", "`.whl`"},
           {".whl", "`.whl`"},
           {"numpy-2.3.2-cp312-manylinux_2_17_x86_64.whl", "5 to 7"},
           {"a-1-2-cp3-cp3-any-lbl-x.whl", "5 to 7"},
           {"numpy--cp312-cp312-any.whl", "empty part"},
           {"-1.0-py3-none-any.whl", "empty part"},
           {"num py-1.0-py3-none-any.whl", "project name"},
           {"numpy-1.0.x-py3-none-any.whl", "PEP 440"},
           {"numpy-1.0-1-3py-none-any.whl", "Python tag"},
           {"numpy-1.0-py3-none-any-CUDA.whl", "variant label"},
           {"numpy-1.0-py3-none-any-cu+12.whl", "variant label"},
           {"numpy-1.0-py3-none-any..whl", "tags"},
           {"numpy-1.0-1x+-py3-none-any.whl", "build tag"},
       }) {
    auto wheel = parse_wheel_filename(c.filename);
    INFO(c.filename);
    REQUIRE_FALSE(wheel);
    CHECK(wheel.error().code == wv::ErrorCode::kParse);
    CHECK(wheel.error().message.find(c.reason) != std::string::npos);
    CHECK(wheel.error().message.find("wheel filename") != std::string::npos);
  }
}

TEST_CASE("wheel filename: arbitrary bytes never crash the parser", "[pkg][wheel_filename]") {
  const std::string seeds[] = {"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
                               "numpy-2.3.2-1-cp313-cp313t-musllinux_1_2_x86_64-x86_64_v3.whl",
                               "six-1.16.0-py2.py3-none-any.whl"};
  unsigned state = 2024;
  auto next = [&] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = seeds[round % 3];
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = next() % text.size();
      switch (next() % 3) {
        case 0: text[at] = static_cast<char>(next() & 0xff); break;
        case 1: text.erase(at, 1 + next() % 3); break;
        default: text.insert(at, 1, "-._0a\xff"[next() % 6]); break;
      }
    }
    auto wheel = parse_wheel_filename(text);
    if (wheel) {
      ++parsed;
      CHECK(parse_wheel_filename(wheel->to_string()).value() == *wheel);
    }
  }
  CHECK(parsed > 0);
}
