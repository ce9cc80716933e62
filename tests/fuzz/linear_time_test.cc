// Inputs the fuzz runs found to take quadratic time (docs/fuzzing.md, "Bugs found"): each must
// stay far below a second at a size where the quadratic code took many seconds. The bound is
// generous (100x the linear time, also under sanitizers) so that the test cannot flake.
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "src/index/simple_page.h"
#include "src/pkg/name.h"
#include "src/pkg/sdist_filename.h"

namespace {

template <typename Body>
double seconds(Body body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string repeat(std::string_view unit, std::size_t size) {
  std::string out;
  while (out.size() < size) out += unit;
  return out;
}

}  // namespace

TEST_CASE("fuzz: entity decoding of a page of '&' takes linear time", "[fuzz][index]") {
  // Was about 7 s for 1 MiB: every '&' searched the rest of the page for ';'.
  const std::string page = "<a href=\"x\">" + std::string(1 << 20, '&') + "</a>";
  CHECK(seconds([&] { (void)wv::index::parse_html_project_page(page, "https://example.org/"); }) < 1.0);
  CHECK(seconds([&] { (void)wv::index::decode_html_entities(page); }) < 1.0);
}

TEST_CASE("fuzz: an sdist name with many dashes is split in linear time", "[fuzz][pkg]") {
  // Were about 12 s for 96 KiB: both sides parsed (and an error quoting the name built) at
  // every dash, and the prefix normalised afresh at every dash.
  const std::string name = repeat("a-", 96 * 1024) + ".tar.gz";
  const wv::pkg::PackageName project = wv::pkg::parse_package_name("a").value();
  CHECK(seconds([&] { (void)wv::pkg::parse_sdist_filename(name); }) < 1.0);
  CHECK(seconds([&] { (void)wv::pkg::parse_sdist_filename(name, project); }) < 1.0);
  const std::string spaces = repeat("x-1x", 32 * 1024) + std::string(64 * 1024, ' ') + ".tar.gz";
  CHECK(seconds([&] { (void)wv::pkg::parse_sdist_filename(spaces); }) < 1.0);
}
