// The listing and variants-file parts alone (index/listing.h, index/variants_files.h) over an
// in-memory index: which pages a prefetch sends, as how many batches, what it says is ready,
// and that the listing then uses the prefetched answers instead of asking again.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "src/base/file_system.h"
#include "src/index/listing.h"
#include "src/index/location_reader.h"
#include "src/index/prefetch.h"
#include "src/index/small_files.h"
#include "src/index/variants_files.h"
#include "tests/index/index_test_support.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;
using wv::pkg::Distribution;

namespace {

wv::pkg::PackageName name(std::string_view text) { return *wv::pkg::parse_package_name(text); }
wv::pkg::Version version(std::string_view text) { return *wv::pkg::parse_version(text); }

const std::string kA = "https://a.example/simple";
const std::string kB = "https://b.example/simple";

// The memory index, with each batch's size recorded.
class BatchFetcher final : public wv::Fetcher {
 public:
  wv::test::MemoryFetcher server;
  std::vector<std::size_t> batches;

  wv::Result<wv::FetchResponse> fetch(const wv::FetchRequest& request) override {
    return server.fetch(request);
  }
  std::vector<wv::Result<wv::FetchResponse>> fetch_all(
      const std::vector<wv::FetchRequest>& requests) override {
    batches.push_back(requests.size());
    return Fetcher::fetch_all(requests);
  }
};

std::string page(const std::vector<std::string>& files) {
  std::string html = "<html><body>\n";
  for (const std::string& file : files) html += "<a href=\"" + file + "\">" + file + "</a>\n";
  return html + "</body></html>\n";
}

constexpr const char* kVariants = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
  "default-priorities": {"namespace": ["nvidia"]},
  "providers": {"nvidia": {"requires": ["nvidia-variant-provider"]}},
  "variants": {"null": {}, "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}}})";

// The parts an IndexSource wires, over `locations` and `fetcher` (null: offline).
struct Parts {
  Parts(std::vector<SourceLocation> locations, wv::Fetcher* fetcher)
      : store(fetcher),
        reader(std::move(locations), file_system, fetcher, store, limits, refresh, stats),
        listing(reader, store),
        small_files(file_system, fetcher, store, stats),
        variants(small_files, store, limits, refresh, stats) {}

  wv::RealFileSystem file_system;
  SourceLimits limits;
  RefreshPolicy refresh;
  SourceStats stats;
  PrefetchStore store;
  LocationReader reader;
  Listing listing;
  SmallFiles small_files;
  VariantsFiles variants;
};

}  // namespace

TEST_CASE("listing: a prefetch sends the first page each project's walk needs, as one batch",
          "[index][listing]") {
  BatchFetcher fetcher;
  fetcher.server.files[kA + "/demo/"] = page({"demo-1.0-py3-none-any.whl"});
  fetcher.server.files[kB + "/other/"] = page({"other-2.0-py3-none-any.whl"});
  Parts parts({{LocationKind::kSimpleIndex, kA}, {LocationKind::kSimpleIndex, kB}}, &fetcher);
  const Scope scope = parts.listing.default_chain();

  // demo is on A (ready); other is not (A's 404 ends what the batch can decide); demo twice
  // shares one request.
  CHECK(parts.listing.prefetch(scope, {name("demo"), name("other"), name("demo")}) ==
        std::vector<bool>{true, false, true});
  CHECK(fetcher.batches == std::vector<std::size_t>{2});
  CHECK(fetcher.server.requests == 2);

  auto demo = parts.listing.list(scope, name("demo"));
  REQUIRE(demo);
  REQUIRE(demo->size() == 1);
  CHECK((*demo)[0].url == kA + "/demo/demo-1.0-py3-none-any.whl");
  CHECK(fetcher.server.requests == 2);  // the prefetched page, not asked again
  auto other = parts.listing.list(scope, name("other"));
  REQUIRE(other);
  CHECK((*other)[0].version.to_string() == "2.0");
  CHECK(fetcher.server.requests == 3);  // A's 404 was held; B's page asked now
  CHECK(parts.stats.pages == 3);

  // Listed projects are ready at once, with no batch.
  CHECK(parts.listing.prefetch(scope, {name("demo"), name("other")}) ==
        std::vector<bool>{true, true});
  CHECK(fetcher.batches.size() == 1);
  CHECK(parts.listing.listed("", name("demo")) != nullptr);
  CHECK(parts.listing.listed("pinned:x", name("demo")) == nullptr);
}

TEST_CASE("listing: a local location that lists a project ends the walk without a page",
          "[index][listing]") {
  wv::test::TempDir dir;
  wv::RealFileSystem file_system;
  REQUIRE(file_system.write_file_atomic(dir.file("demo-1.0-py3-none-any.whl"), "not read"));
  BatchFetcher fetcher;
  fetcher.server.files[kA + "/other/"] = page({"other-2.0-py3-none-any.whl"});
  Parts parts({{LocationKind::kFlatFolder, dir.path()}, {LocationKind::kSimpleIndex, kA}},
              &fetcher);
  const Scope scope = parts.listing.default_chain();
  CHECK(parts.listing.prefetch(scope, {name("demo"), name("other")}) ==
        std::vector<bool>{true, true});
  CHECK(fetcher.batches == std::vector<std::size_t>{1});  // other's page on A only
  REQUIRE(parts.listing.list(scope, name("demo")));
  REQUIRE(parts.listing.list(scope, name("other")));
  CHECK(fetcher.server.requests == 1);
}

TEST_CASE("listing: best match walks every location, so a prefetch never decides it",
          "[index][listing]") {
  BatchFetcher fetcher;
  fetcher.server.files[kA + "/demo/"] = page({"demo-1.0-py3-none-any.whl"});
  fetcher.server.files[kB + "/demo/"] =
      page({"demo-1.0-py3-none-any.whl", "demo-2.0-py3-none-any.whl"});
  Parts parts({{LocationKind::kSimpleIndex, kA}, {LocationKind::kSimpleIndex, kB}}, &fetcher);
  Scope scope = parts.listing.default_chain();
  scope.merge = true;
  CHECK(parts.listing.prefetch(scope, {name("demo")}) == std::vector<bool>{false});
  CHECK(fetcher.batches == std::vector<std::size_t>{1});
  auto demo = parts.listing.list(scope, name("demo"));
  REQUIRE(demo);
  REQUIRE(demo->size() == 2);
  CHECK((*demo)[0].url == kA + "/demo/demo-1.0-py3-none-any.whl");  // 1.0 from A, first
  CHECK((*demo)[1].url == kB + "/demo/demo-2.0-py3-none-any.whl");
  CHECK(fetcher.server.requests == 2);
}

TEST_CASE("listing: offline, a remote location's walk is decided without the network",
          "[index][listing]") {
  Parts parts({{LocationKind::kSimpleIndex, kA}}, nullptr);
  const Scope scope = parts.listing.default_chain();
  CHECK(parts.listing.prefetch(scope, {name("demo")}) == std::vector<bool>{true});
  auto demo = parts.listing.list(scope, name("demo"));
  REQUIRE(!demo);
  CHECK(demo.error().code == wv::ErrorCode::kUnsupported);
  CHECK(demo.error().message.find(kA) != std::string::npos);
}

TEST_CASE("listing: a pinned scope asks only the locations of that name, explicit or not",
          "[index][listing]") {
  Parts parts({{LocationKind::kSimpleIndex, kA, "alpha", false},
               {LocationKind::kSimpleIndex, kB, "beta", true}},
              nullptr);
  CHECK(parts.listing.default_chain().locations == std::vector<std::size_t>{0});
  auto beta = parts.listing.pinned("beta");
  REQUIRE(beta);
  CHECK(beta->key == "pinned:beta");
  CHECK(beta->locations == std::vector<std::size_t>{1});
  CHECK(!beta->merge);
  CHECK(parts.listing.pinned("gamma").error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("variants files: a prefetch fetches the listed remote files of each version as one "
          "batch, and reading them asks nothing more", "[index][listing][variants]") {
  BatchFetcher fetcher;
  fetcher.server.files[kA + "/demo/"] =
      page({"demo-1.0-py3-none-any.whl", "demo-1.0-variants.json", "demo-2.0-py3-none-any.whl"});
  fetcher.server.files[kA + "/demo/demo-1.0-variants.json"] = kVariants;
  Parts parts({{LocationKind::kSimpleIndex, kA}}, &fetcher);
  const Scope scope = parts.listing.default_chain();
  auto files = parts.listing.list(scope, name("demo"));
  REQUIRE(files);
  REQUIRE(fetcher.server.requests == 1);

  // 1.0 has a file (fetched), 2.0 none (ready: nothing to read), unlisted is not listed yet.
  CHECK(parts.variants.prefetch(parts.listing, scope.key,
                                {{name("demo"), version("1.0")},
                                 {name("demo"), version("2.0")},
                                 {name("unlisted"), version("1.0")}}) ==
        std::vector<bool>{true, true, false});
  CHECK(fetcher.batches == std::vector<std::size_t>{1});
  CHECK(fetcher.server.requests == 2);

  auto merged = parts.variants.read(scope.key, *files, name("demo"), version("1.0"));
  REQUIRE(merged);
  CHECK(fetcher.server.requests == 2);  // the prefetched answer
  CHECK(parts.stats.variants_files == 1);
  auto none = parts.variants.read(scope.key, *files, name("demo"), version("2.0"));
  REQUIRE(!none);
  CHECK(none.error().code == wv::ErrorCode::kNotFound);
  // Read once per scope and version: a second prefetch needs no batch.
  CHECK(parts.variants.prefetch(parts.listing, scope.key, {{name("demo"), version("1.0")}}) ==
        std::vector<bool>{true});
  CHECK(fetcher.batches.size() == 1);
}
