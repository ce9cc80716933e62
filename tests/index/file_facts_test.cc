// What the lockfile records of a file beyond its hash: its size where an HTML index gives none
// (a local file's, or learned by the range requests or download that read the wheel, kept for
// later runs), and PEP 700's upload time from a JSON page.
#include <catch2/catch.hpp>

#include <map>

#include "src/base/derived_cache.h"
#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/index/sources.h"
#include "index_test_support.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;
using wv::pkg::Distribution;

namespace {

wv::pkg::PackageName name(std::string_view text) { return *wv::pkg::parse_package_name(text); }

constexpr const char* kWheel = "tqdm-4.67.1-py3-none-any.whl";

class MemoryDerivedCache final : public wv::DerivedCache {
 public:
  std::map<std::string, std::string, std::less<>> values;
  std::optional<std::string> load_derived(std::string_view key) override {
    auto found = values.find(key);
    if (found == values.end()) return std::nullopt;
    return found->second;
  }
  void store_derived(std::string_view key, std::string_view value) override {
    values[std::string(key)] = std::string(value);
  }
};

// A PEP 503 page for tqdm linking `href` (which gives no size: HTML cannot).
std::string html_page(const std::string& href, const std::string& sha256) {
  return "<a href=\"" + href + "#sha256=" + sha256 + "\">" + kWheel + "</a>";
}

}  // namespace

TEST_CASE("file facts: a remote HTML index's wheel gets the size its range reads or download "
          "learned, and a later run reusing those reads knows it too", "[index][file-facts]") {
  auto ecosystem = wv::test::fixture_ecosystem();
  if (!ecosystem) {
    WARN("fixture ecosystem not generated (build wv_fixtures); skipped");
    return;
  }
  wv::RealFileSystem file_system;
  auto bytes = file_system.read_file(*ecosystem + "/simple/tqdm/" + kWheel);
  REQUIRE(bytes);
  const std::string index = "https://index.example/simple";
  for (bool ignore_ranges : {false, true}) {
    INFO("server ignores ranges: " << ignore_ranges);
    wv::test::MemoryFetcher fetcher;
    fetcher.ignore_ranges = ignore_ranges;
    fetcher.files[index + "/tqdm/"] = html_page(kWheel, wv::sha256_hex(*bytes));
    fetcher.files[index + "/tqdm/" + kWheel] = *bytes;
    MemoryDerivedCache derived;
    IndexSource source({{LocationKind::kSimpleIndex, index}}, file_system, &fetcher);
    source.set_derived_cache(&derived);
    auto files = source.distributions(name("tqdm"));
    REQUIRE(files);
    REQUIRE(files->size() == 1);
    const Distribution& wheel = files->front();
    CHECK_FALSE(wheel.size);
    CHECK_FALSE(source.file_size(wheel));  // nothing has read it yet
    REQUIRE(source.wheel_metadata(wheel));
    CHECK(source.file_size(wheel) == bytes->size());

    // Another run over the same derived cache reads no byte of the wheel, and still knows.
    wv::test::MemoryFetcher pages_only;
    pages_only.files[index + "/tqdm/"] = fetcher.files[index + "/tqdm/"];
    IndexSource later({{LocationKind::kSimpleIndex, index}}, file_system, &pages_only);
    later.set_derived_cache(&derived);
    auto again = later.distributions(name("tqdm"));
    REQUIRE(again);
    REQUIRE(later.wheel_metadata(again->front()));
    CHECK(later.stats().dist_info_reused == 1);
    CHECK(later.file_size(again->front()) == bytes->size());
  }
}

TEST_CASE("file facts: a local HTML index's wheel has the size on disk, a JSON page's file its "
          "size and upload time", "[index][file-facts]") {
  auto ecosystem = wv::test::fixture_ecosystem();
  if (!ecosystem) {
    WARN("fixture ecosystem not generated (build wv_fixtures); skipped");
    return;
  }
  wv::RealFileSystem file_system;
  auto bytes = file_system.read_file(*ecosystem + "/simple/tqdm/" + kWheel);
  REQUIRE(bytes);
  wv::test::TempDir dir;
  REQUIRE(file_system.create_directories(dir.path() + "/html/tqdm"));
  REQUIRE(file_system.write_file_atomic(dir.path() + "/html/tqdm/" + kWheel, *bytes));
  REQUIRE(file_system.write_file_atomic(dir.path() + "/html/tqdm/index.html",
                                        html_page(kWheel, wv::sha256_hex(*bytes))));
  IndexSource local({{LocationKind::kSimpleIndex, dir.path() + "/html"}}, file_system, nullptr);
  auto files = local.distributions(name("tqdm"));
  REQUIRE(files);
  CHECK_FALSE(files->front().size);
  CHECK(local.file_size(files->front()) == bytes->size());
  CHECK(files->front().upload_time.empty());

  // PEP 691/700: the page's size wins over the disk, its upload time is kept in UTC.
  wv::test::MemoryFetcher fetcher;
  const std::string index = "https://index.example/simple";
  fetcher.files[index + "/tqdm/"] = wv::str_cat(
      R"({"meta": {"api-version": "1.1"}, "name": "tqdm", "files": [{"filename": ")", kWheel,
      R"(", "url": ")", kWheel, R"(", "hashes": {"sha256": ")", wv::sha256_hex(*bytes),
      R"("}, "size": 78000, "upload-time": "2024-11-24T16:27:28.412Z"}]})");
  fetcher.content_types[index + "/tqdm/"] = "application/vnd.pypi.simple.v1+json";
  IndexSource remote({{LocationKind::kSimpleIndex, index}}, file_system, &fetcher);
  auto listed = remote.distributions(name("tqdm"));
  REQUIRE(listed);
  CHECK(listed->front().upload_time == "2024-11-24T16:27:28.412Z");
  CHECK(remote.file_size(listed->front()) == 78000u);
}
