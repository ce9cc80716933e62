#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "src/base/url.h"
#include "src/pkg/sdist_filename.h"
#include "tests/support/conformance.h"

using wv::pkg::classify_filename;
using wv::pkg::FileKind;
using wv::pkg::parse_package_name;
using wv::pkg::parse_sdist_filename;
using wv::pkg::parse_variants_json_filename;
using wv::pkg::SdistFormat;

TEST_CASE("sdist filename: name-version with .tar.gz and .zip", "[pkg][sdist_filename]") {
  auto tar = parse_sdist_filename("numpy-2.3.2.tar.gz");
  REQUIRE(tar);
  CHECK(tar->name.str() == "numpy");
  CHECK(tar->version.to_string() == "2.3.2");
  CHECK(tar->format == SdistFormat::kTarGz);

  auto zip = parse_sdist_filename("Django-1.11.zip");
  REQUIRE(zip);
  CHECK(zip->name.str() == "django");
  CHECK(zip->format == SdistFormat::kZip);

  auto escaped = parse_sdist_filename("typing_extensions-4.12.2.tar.gz");
  REQUIRE(escaped);
  CHECK(escaped->name.str() == "typing-extensions");
}

TEST_CASE("sdist filename: legacy dashed names and versions", "[pkg][sdist_filename]") {
  // The rightmost `-` whose sides parse: a dashed name.
  auto dateutil = parse_sdist_filename("python-dateutil-2.8.2.tar.gz");
  REQUIRE(dateutil);
  CHECK(dateutil->name.str() == "python-dateutil");
  CHECK(dateutil->version.to_string() == "2.8.2");

  // A dashed legacy version: the rightmost split gives version `beta`, which is invalid, so
  // the next dash to the left is used.
  auto beta = parse_sdist_filename("foo-1.0-beta.tar.gz");
  REQUIRE(beta);
  CHECK(beta->name.str() == "foo");
  CHECK(beta->version.to_string() == "1.0b0");

  // An ambiguous legacy name: without the project name, the rightmost split wins ...
  auto guess = parse_sdist_filename("foo-bar-2.0-1.tar.gz");
  REQUIRE(guess);
  CHECK(guess->name.str() == "foo-bar-2-0");
  // ... and the project name from the index page resolves it.
  auto known = parse_sdist_filename("foo-bar-2.0-1.tar.gz", parse_package_name("Foo_Bar").value());
  REQUIRE(known);
  CHECK(known->name.str() == "foo-bar");
  CHECK(known->version.to_string() == "2.0.post1");

  auto other = parse_sdist_filename("foo-bar-2.0.tar.gz", parse_package_name("baz").value());
  REQUIRE_FALSE(other);
  CHECK(other.error().message.find("`baz`") != std::string::npos);
  auto bad_version = parse_sdist_filename("foo-x.y.tar.gz", parse_package_name("foo").value());
  REQUIRE_FALSE(bad_version);
  CHECK(bad_version.error().message.find("PEP 440") != std::string::npos);
}

TEST_CASE("sdist filename: malformed names give reasons", "[pkg][sdist_filename]") {
  auto no_dash = parse_sdist_filename("numpy.tar.gz");
  REQUIRE_FALSE(no_dash);
  CHECK(no_dash.error().message.find("`name-version`") != std::string::npos);
  auto wrong_ext = parse_sdist_filename("numpy-1.0.tar.bz2");
  REQUIRE_FALSE(wrong_ext);
  CHECK(wrong_ext.error().message.find("`.tar.gz` or `.zip`") != std::string::npos);
  auto bad_version = parse_sdist_filename("numpy-one.tar.gz");
  REQUIRE_FALSE(bad_version);
  CHECK(bad_version.error().message.find("version") != std::string::npos);
  CHECK_FALSE(parse_sdist_filename("-1.0.tar.gz"));
  CHECK_FALSE(parse_sdist_filename(".tar.gz"));
  CHECK_FALSE(parse_sdist_filename("numpy-.zip"));
}

TEST_CASE("sdist filename: to_string round trips", "[pkg][sdist_filename]") {
  for (const char* name : {"numpy-2.3.2.tar.gz", "typing_extensions-4.12.2.zip",
                           "python_dateutil-2.8.2.tar.gz"}) {
    auto sdist = parse_sdist_filename(name);
    REQUIRE(sdist);
    CHECK(sdist->to_string() == name);
    CHECK(parse_sdist_filename(sdist->to_string()).value() == *sdist);
  }
  CHECK(parse_sdist_filename("Foo.Bar-01.0.tar.gz")->to_string() == "foo_bar-1.0.tar.gz");
}

TEST_CASE("variants.json filename: name and version", "[pkg][sdist_filename]") {
  auto json = parse_variants_json_filename("nvidia_cublas-12.8.4.1-variants.json");
  REQUIRE(json);
  CHECK(json->name.str() == "nvidia-cublas");
  CHECK(json->version.to_string() == "12.8.4.1");
  CHECK(json->to_string() == "nvidia_cublas-12.8.4.1-variants.json");
  auto pre = parse_variants_json_filename("cudf-25.12.0a135-variants.json");
  REQUIRE(pre);
  CHECK(pre->version.is_prerelease());
  CHECK_FALSE(parse_variants_json_filename("variants.json"));
  CHECK_FALSE(parse_variants_json_filename("torch-variants.json"));
  CHECK_FALSE(parse_variants_json_filename("torch-x.y-variants.json"));
  CHECK_FALSE(parse_variants_json_filename("-1.0-variants.json"));
}

TEST_CASE("classify: wheels, sdists, variants.json and the rest", "[pkg][sdist_filename]") {
  auto variant = classify_filename("torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  REQUIRE(variant.kind == FileKind::kWheel);
  REQUIRE(variant.wheel);
  CHECK(variant.wheel->variant_label == std::optional<std::string>("cu128"));
  CHECK_FALSE(variant.sdist);
  CHECK_FALSE(variant.variants_json);

  auto plain = classify_filename("torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  REQUIRE(plain.kind == FileKind::kWheel);
  CHECK_FALSE(plain.wheel->is_variant());

  auto sdist = classify_filename("numpy-2.3.2.tar.gz");
  REQUIRE(sdist.kind == FileKind::kSdist);
  CHECK(sdist.sdist->name.str() == "numpy");

  auto json = classify_filename("torch-2.9.0-variants.json");
  REQUIRE(json.kind == FileKind::kVariantsJson);
  CHECK(json.variants_json->name.str() == "torch");

  for (const char* other : {"python_32x32.ico", "index.html", "", "dir/a-1.0.tar.gz",
                            "numpy-2.3.2-cp312.whl", "numpy-2.3.2.tar.bz2", "README",
                            "numpy-2.3.2.tar.gz.metadata"}) {
    auto c = classify_filename(other);
    INFO(other);
    CHECK(c.kind == FileKind::kOther);
    CHECK_FALSE(c.reason.empty());
    CHECK_FALSE(c.wheel);
    CHECK_FALSE(c.sdist);
  }
  CHECK(classify_filename("numpy-2.3.2.tar.bz2").reason.find("legacy") != std::string::npos);
}

namespace {

// The href values of an HTML page, by plain string search (the pages are simple).
std::vector<std::string> hrefs_of(const std::string& html) {
  std::vector<std::string> out;
  const std::string key = "href=\"";
  for (std::size_t at = html.find(key); at != std::string::npos; at = html.find(key, at)) {
    at += key.size();
    const std::size_t end = html.find('"', at);
    if (end == std::string::npos) break;
    out.push_back(html.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace

TEST_CASE("classify: every file on the variants-index project pages classifies sensibly",
          "[pkg][sdist_filename][conformance]") {
  const std::optional<std::string> dir = wv::test::conformance_dir();
  if (!dir) return;
  const std::filesystem::path root = std::filesystem::path(*dir) / "variants-index";
  if (!std::filesystem::is_directory(root)) {
    WARN("skipping: " << root.string() << " is absent");
    return;
  }
  int passed = 0;
  int failed = 0;
  int wheels = 0, variant_wheels = 0, build_tagged = 0, json_files = 0, others = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const std::string project = entry.path().filename().string();
    std::ifstream in(entry.path() / "index.html", std::ios::binary);
    if (!in) continue;
    std::stringstream buffer;
    buffer << in.rdbuf();
    for (const std::string& href : hrefs_of(buffer.str())) {
      const std::string name = wv::url_filename(href);
      const auto c = classify_filename(name);
      std::string problem;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".whl") {
        if (c.kind != FileKind::kWheel) {
          problem = "a .whl that is not a wheel: " + c.reason;
        } else if (c.wheel->name.str() != wv::pkg::normalize_name(project)) {
          problem = "wheel of project `" + c.wheel->name.str() + "`";
        } else {
          ++wheels;
          if (c.wheel->is_variant()) ++variant_wheels;
          if (c.wheel->build) ++build_tagged;
        }
      } else if (name.find("-variants.json") != std::string::npos) {
        if (c.kind != FileKind::kVariantsJson) {
          problem = "a variants.json that does not classify: " + c.reason;
        } else if (c.variants_json->name.str() != wv::pkg::normalize_name(project)) {
          problem = "variants.json of project `" + c.variants_json->name.str() + "`";
        } else {
          ++json_files;
          // The variants.json the page lists must be one of the files in the folder.
          if (!std::filesystem::exists(entry.path() / name)) problem = "listed but absent";
        }
      } else if (c.kind != FileKind::kOther) {
        problem = "an icon or link classified as a distribution";
      } else {
        ++others;
      }
      if (problem.empty()) {
        ++passed;
      } else {
        ++failed;
        std::cerr << project << "/index.html: `" << name << "`: " << problem << "\n";
      }
    }
  }
  wv::test::print_tally("variants-index hrefs", passed, failed);
  std::cout << "variants-index hrefs: " << wheels << " wheels (" << variant_wheels
            << " with a variant label, " << build_tagged << " with a build tag), " << json_files << " variants.json, " << others
            << " other links\n";
  CHECK(wheels > 0);
  CHECK(variant_wheels > 0);
  CHECK(build_tagged > 0);
  CHECK(json_files > 0);
  REQUIRE(failed == 0);
}

TEST_CASE("sdist filename: arbitrary bytes never crash the parsers", "[pkg][sdist_filename]") {
  unsigned state = 77;
  auto next = [&] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  const std::string seeds[] = {"python-dateutil-2.8.2.tar.gz", "torch-2.9.0-variants.json",
                               "six-1.16.0-py2.py3-none-any.whl"};
  for (int round = 0; round < 3000; ++round) {
    std::string text = seeds[round % 3];
    for (int e = 0; e < 1 + static_cast<int>(next() % 4) && !text.empty(); ++e) {
      const std::size_t at = next() % text.size();
      if (next() % 2) {
        text[at] = "-._0a\xff\0/"[next() % 8];
      } else {
        text.erase(at, 1 + next() % 3);
      }
    }
    auto c = classify_filename(text);
    CHECK((c.kind == FileKind::kOther) == !c.reason.empty());
    auto s = parse_sdist_filename(text);
    if (s) CHECK(parse_sdist_filename(s->to_string()).value() == *s);
  }
}
