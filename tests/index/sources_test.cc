// IndexSource over the fixture ecosystem (fixtures/generate.py): a find-links folder, the
// PEP 503/691 tree by path and by file://, precedence, PEP 658 with hashes, variants, limits.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <random>
#include <iostream>

#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/index/sources.h"
#include "src/base/url.h"
#include "index_test_support.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;
using wv::path_to_file_url;
using wv::pkg::CoreMetadataAvailability;
using wv::pkg::Distribution;
using wv::pkg::DistributionKind;
namespace fs = std::filesystem;

namespace {

wv::pkg::PackageName name(std::string_view text) { return *wv::pkg::parse_package_name(text); }

const Distribution* find_file(const std::vector<Distribution>& files, std::string_view filename) {
  for (const Distribution& file : files) {
    if (file.filename == filename) return &file;
  }
  return nullptr;
}

#define NEED_FIXTURES()                                                   \
  auto ecosystem = wv::test::fixture_ecosystem();                         \
  if (!ecosystem) {                                                       \
    WARN("fixture ecosystem not generated (build wv_fixtures); skipped"); \
    return;                                                               \
  }

}  // namespace

TEST_CASE("sources: a find-links folder lists wheels, sdists and variants files", "[index][sources]") {
  NEED_FIXTURES();
  wv::RealFileSystem file_system;
  std::string folder = *ecosystem + "/find-links";
  IndexSource source({{LocationKind::kFlatFolder, folder}}, file_system, nullptr);
  auto files = source.distributions(name("Flash_Attn"));
  REQUIRE(files);
  const Distribution* wheel = find_file(*files, "flash_attn-2.8.3-cp312-cp312-manylinux_2_28_x86_64-cu12_sm90.whl");
  REQUIRE(wheel != nullptr);
  CHECK(wheel->kind == DistributionKind::kWheel);
  CHECK(wheel->variant_label == "cu12_sm90");
  CHECK(wheel->version.to_string() == "2.8.3");
  CHECK(wheel->url == folder + "/" + wheel->filename);
  CHECK(wheel->index == folder);
  CHECK(wheel->hashes.empty());
  CHECK(wheel->size.value() == fs::file_size(wheel->url));
  CHECK(wheel->core_metadata == CoreMetadataAvailability::kUnknown);
  const Distribution* variants = find_file(*files, "flash_attn-2.8.3-variants.json");
  REQUIRE(variants != nullptr);
  CHECK(variants->kind == DistributionKind::kVariantsJson);

  // No hash listed: computed from the file, and equal to what the simple index lists.
  auto hash = source.file_sha256(*wheel);
  REQUIRE(hash);
  CHECK(*hash == *wv::sha256_file_hex(wheel->url));
  IndexSource simple({{LocationKind::kSimpleIndex, *ecosystem + "/simple"}}, file_system, nullptr);
  auto listed = simple.distributions(name("flash-attn"));
  REQUIRE(listed);
  const Distribution* same = find_file(*listed, wheel->filename);
  REQUIRE(same != nullptr);
  CHECK(same->sha256() == *hash);
  CHECK(*simple.file_sha256(*same) == *hash);

  // METADATA from the zip equals the PEP 658 file the index serves beside the wheel.
  auto from_zip = source.wheel_metadata(*wheel);
  REQUIRE(from_zip);
  auto from_658 = simple.wheel_metadata(*same);
  REQUIRE(from_658);
  CHECK(*from_zip == *from_658);
  CHECK(from_zip->find("Name: flash-attn") != std::string::npos);
  CHECK(source.stats().metadata_local_zip == 1);
  CHECK(simple.stats().metadata_pep658 == 1);

  auto absent = source.distributions(name("no-such-project"));
  REQUIRE_FALSE(absent);
  CHECK(absent.error().code == wv::ErrorCode::kNotFound);
  CHECK(absent.error().message.find("`no-such-project`") != std::string::npos);
}

TEST_CASE("sources: the simple index by path and by file:// URL", "[index][sources]") {
  NEED_FIXTURES();
  wv::RealFileSystem file_system;
  std::string root = *ecosystem + "/simple";
  std::string root_url = path_to_file_url(fs::absolute(root).lexically_normal().string());
  for (const std::string& location : {root, root_url}) {
    INFO(location);
    IndexSource source({{LocationKind::kSimpleIndex, location}}, file_system, nullptr);
    auto files = source.distributions(name("requests"));
    REQUIRE(files);
    const Distribution* yanked = find_file(*files, "requests-2.32.0-py3-none-any.whl");
    REQUIRE(yanked != nullptr);
    CHECK(yanked->yanked);
    CHECK(yanked->yanked_reason == "Yanked due to conflicts with CVE-2024-35195 mitigation");
    CHECK(yanked->requires_python == ">=3.8");
    CHECK(yanked->sha256().size() == 64);
    CHECK(yanked->size.has_value());  // JSON page (PEP 700)
    CHECK(yanked->core_metadata == CoreMetadataAvailability::kAvailable);
    CHECK(yanked->core_metadata_hashes.at("sha256").size() == 64);
    const Distribution* sdist = find_file(*files, "requests-2.32.0.tar.gz");
    REQUIRE(sdist != nullptr);
    CHECK(sdist->kind == DistributionKind::kSdist);
    if (location == root_url) {
      CHECK(yanked->url.rfind("file:///", 0) == 0);
    } else {
      CHECK(yanked->url == root + "/requests/requests-2.32.0-py3-none-any.whl");
    }
    auto metadata = source.wheel_metadata(*yanked);
    REQUIRE(metadata);
    CHECK(metadata->find("Version: 2.32.0") != std::string::npos);
    CHECK(source.stats().metadata_pep658 == 1);
    CHECK(source.stats().pages == 1);
    // Cached: no second page read.
    REQUIRE(source.distributions(name("requests")));
    CHECK(source.stats().pages == 1);
    // Sdists have no METADATA to read without a build.
    auto sdist_metadata = source.wheel_metadata(*sdist);
    REQUIRE_FALSE(sdist_metadata);
    CHECK(sdist_metadata.error().code == wv::ErrorCode::kUnsupported);
  }
}

TEST_CASE("sources: variants files and in-wheel variant.json of the fixtures", "[index][sources]") {
  NEED_FIXTURES();
  wv::RealFileSystem file_system;
  IndexSource source({{LocationKind::kSimpleIndex, *ecosystem + "/simple"}}, file_system, nullptr);
  auto files = source.distributions(name("torch"));
  REQUIRE(files);
  int variant_wheels = 0, checked = 0;
  for (const Distribution& file : *files) {
    if (file.variant_label.empty()) continue;
    ++variant_wheels;
    auto metadata = source.variants_metadata(file.name, file.version);
    REQUIRE(metadata);
    // Every variant wheel's label is described by its version's variants file, and the
    // wheel's own variant.json says the same about it.
    const auto* properties = metadata->find_variant(file.variant_label);
    REQUIRE(properties != nullptr);
    if (checked < 6) {
      auto in_wheel = source.wheel_variant_metadata(file);
      REQUIRE(in_wheel);
      CHECK(*in_wheel->find_variant(file.variant_label) == *properties);
      ++checked;
    }
  }
  CHECK(variant_wheels > 10);
  CHECK(source.stats().variants_files >= 2);  // each version's file read once

  auto none = source.variants_metadata(name("requests"), *wv::pkg::parse_version("2.32.3"));
  REQUIRE_FALSE(none);
  CHECK(none.error().code == wv::ErrorCode::kNotFound);
  CHECK(none.error().message.find("requests-2.32.3-variants.json") != std::string::npos);
}

TEST_CASE("sources: the first location that knows a project answers alone", "[index][sources]") {
  wv::test::TempDir dir;
  wv::RealFileSystem file_system;
  fs::create_directories(dir.file("a"));
  fs::create_directories(dir.file("b/simple/demo"));
  fs::create_directories(dir.file("b/simple/other"));
  REQUIRE(file_system.write_file_atomic(dir.file("a/demo-1.0-py3-none-any.whl"), "x"));
  REQUIRE(file_system.write_file_atomic(dir.file("a/readme.txt"), "not a distribution"));
  REQUIRE(file_system.write_file_atomic(
      dir.file("b/simple/demo/index.html"),
      R"(<a href="demo-2.0-py3-none-any.whl#sha256=00">demo-2.0-py3-none-any.whl</a>)"));
  REQUIRE(file_system.write_file_atomic(
      dir.file("b/simple/other/index.html"),
      R"(<a href="other-1.0.tar.gz">other-1.0.tar.gz</a><a href="demo-9.0.tar.gz">demo-9.0.tar.gz</a>)"
      R"(<a href="other-1.0-py3-none-any.whl.metadata">other-1.0-py3-none-any.whl.metadata</a>)"));
  IndexSource source({{LocationKind::kFlatFolder, dir.file("a")},
                      {LocationKind::kSimpleIndex, dir.file("b/simple")}},
                     file_system, nullptr);
  auto demo = source.distributions(name("demo"));
  REQUIRE(demo);
  REQUIRE(demo->size() == 1);  // 2.0 from the index is not mixed in
  CHECK(demo->front().version.to_string() == "1.0");
  CHECK(demo->front().index == dir.file("a"));
  auto other = source.distributions(name("other"));
  REQUIRE(other);
  REQUIRE(other->size() == 1);  // another project's file and a non-distribution are dropped
  CHECK(other->front().filename == "other-1.0.tar.gz");
  CHECK(other->front().index == dir.file("b/simple"));

  // A find-links folder given as a file:// URL lists file:// URLs that read back.
  std::string folder_url = path_to_file_url(fs::absolute(dir.file("a")).lexically_normal().string());
  IndexSource by_url({{LocationKind::kFlatFolder, folder_url}}, file_system, nullptr);
  auto listed = by_url.distributions(name("demo"));
  REQUIRE(listed);
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().url == folder_url + "/demo-1.0-py3-none-any.whl");
  CHECK(*by_url.file_sha256(listed->front()) == wv::sha256_hex("x"));
  CHECK(listed->front().size.value() == 1);

  // A broken location is an error, not a reason to ask the next one.
  IndexSource broken({{LocationKind::kFlatFolder, dir.file("missing")},
                      {LocationKind::kSimpleIndex, dir.file("b/simple")}},
                     file_system, nullptr);
  auto failed = broken.distributions(name("other"));
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code == wv::ErrorCode::kIo);
  // A remote index without a fetcher says so.
  IndexSource offline({{LocationKind::kSimpleIndex, "https://pypi.org/simple"}}, file_system, nullptr);
  auto remote = offline.distributions(name("demo"));
  REQUIRE_FALSE(remote);
  CHECK(remote.error().code == wv::ErrorCode::kUnsupported);
}

TEST_CASE("sources: PEP 658 hashes are checked and limits name themselves", "[index][sources]") {
  NEED_FIXTURES();
  wv::test::TempDir dir;
  wv::RealFileSystem file_system;
  fs::create_directories(dir.file("simple"));
  fs::copy(*ecosystem + "/simple/requests", dir.file("simple/requests"), fs::copy_options::recursive);
  // Tamper with one .metadata file: the listed sha256 no longer matches.
  std::string metadata_path = dir.file("simple/requests/requests-2.32.4-py3-none-any.whl.metadata");
  REQUIRE(fs::exists(metadata_path));
  std::string text = *file_system.read_file(metadata_path);
  REQUIRE(file_system.write_file_atomic(metadata_path, text + "Requires-Dist: evil\n"));
  IndexSource source({{LocationKind::kSimpleIndex, dir.file("simple")}}, file_system, nullptr);
  auto files = source.distributions(name("requests"));
  REQUIRE(files);
  const Distribution* wheel = find_file(*files, "requests-2.32.4-py3-none-any.whl");
  REQUIRE(wheel != nullptr);
  auto tampered = source.wheel_metadata(*wheel);
  REQUIRE_FALSE(tampered);
  CHECK(tampered.error().code == wv::ErrorCode::kIntegrity);
  CHECK(tampered.error().message.find("requests-2.32.4-py3-none-any.whl.metadata") != std::string::npos);

  // A missing .metadata despite the listing: read from the wheel instead.
  fs::remove(metadata_path);
  IndexSource fresh({{LocationKind::kSimpleIndex, dir.file("simple")}}, file_system, nullptr);
  auto fallback = fresh.wheel_metadata(*wheel);
  REQUIRE(fallback);
  CHECK(fallback->find("Version: 2.32.4") != std::string::npos);
  CHECK(fresh.stats().metadata_local_zip == 1);

  SourceLimits limits;
  limits.max_page_bytes = 100;
  IndexSource limited({{LocationKind::kSimpleIndex, dir.file("simple")}}, file_system, nullptr, limits);
  auto page = limited.distributions(name("requests"));
  REQUIRE_FALSE(page);
  CHECK(page.error().code == wv::ErrorCode::kLimit);
  CHECK(page.error().message.find("over the page-bytes limit of 100 bytes") != std::string::npos);
  CHECK(page.error().to_string().find("WVLOCK_LIMIT_PAGE_BYTES=N") != std::string::npos);
}

TEST_CASE("sources: invalid variants files make that version's variants unusable",
          "[index][sources]") {
  wv::test::TempDir dir;
  wv::RealFileSystem file_system;
  REQUIRE(file_system.write_file_atomic(dir.file("demo-1.0-cp312-cp312-linux_x86_64-gpu.whl"), "x"));
  REQUIRE(file_system.write_file_atomic(dir.file("demo-1.0-variants.json"), R"({"variants": {}})"));
  REQUIRE(file_system.write_file_atomic(dir.file("demo-2.0-variants.json"),
      R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
          "default-priorities": {"namespace": ["nvidia"]},
          "variants": {"gpu": {"nvidia": {"sm_arch": ["90_real"]}}}})"));
  REQUIRE(file_system.write_file_atomic(dir.file("Demo-2.0-variants.json"),
      R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
          "default-priorities": {"namespace": ["nvidia", "x86_64"]},
          "variants": {"cpu": {"x86_64": {"level": ["v3"]}}}})"));
  IndexSource source({{LocationKind::kFlatFolder, dir.path()}}, file_system, nullptr);
  auto bad = source.variants_metadata(name("demo"), *wv::pkg::parse_version("1.0"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("`demo-1.0-variants.json`") != std::string::npos);
  CHECK(bad.error().message.find("default-priorities") != std::string::npos);
  // Two files of one version are merged.
  auto merged = source.variants_metadata(name("demo"), *wv::pkg::parse_version("2.0"));
  REQUIRE(merged);
  CHECK(merged->variants.size() == 2);
  CHECK(merged->default_priorities.namespaces == std::vector<std::string>{"nvidia", "x86_64"});
}

TEST_CASE("sources: reading all metadata of the fixture ecosystem from local folders",
          "[index][sources][figures]") {
  NEED_FIXTURES();
  wv::RealFileSystem file_system;
  for (LocationKind kind : {LocationKind::kSimpleIndex, LocationKind::kFlatFolder}) {
    std::string location = *ecosystem + (kind == LocationKind::kSimpleIndex ? "/simple" : "/find-links");
    IndexSource source({{kind, location}}, file_system, nullptr);
    auto start = std::chrono::steady_clock::now();
    int wheels = 0, projects = 0;
    for (const auto& entry : fs::directory_iterator(*ecosystem + "/simple")) {
      if (!entry.is_directory()) continue;
      auto files = source.distributions(name(entry.path().filename().string()));
      if (!files) continue;  // find-links may lack a project the index has
      ++projects;
      std::vector<Distribution> batch;
      for (const Distribution& file : *files) {
        if (file.kind == DistributionKind::kWheel) batch.push_back(file);
      }
      for (auto& metadata : source.wheel_metadata_batch(batch)) {
        REQUIRE(metadata);
        CHECK(metadata->rfind("Metadata-Version:", 0) == 0);
        ++wheels;
      }
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cout << "  figures: " << (kind == LocationKind::kSimpleIndex ? "simple index (PEP 658)" : "find-links (zip)")
              << ": " << projects << " projects, " << wheels << " wheel METADATA in " << ms << " ms\n";
    CHECK(wheels > 300);
  }
}

namespace {

// A MemoryFetcher that answers one URL with a fixed status (500, 406 on JSON Accept, ...).
class ScriptedFetcher final : public wv::Fetcher {
 public:
  wv::test::MemoryFetcher memory;
  std::map<std::string, int> status;  // url -> status to answer instead
  std::map<std::string, std::string> redirect;  // url -> effective url
  bool refuse_json_accept = false;
  std::vector<std::string> accepts;

  wv::Result<wv::FetchResponse> fetch(const wv::FetchRequest& request) override {
    for (const auto& [key, value] : request.headers) {
      if (key == "Accept") accepts.push_back(value);
    }
    if (auto found = status.find(request.url); found != status.end()) {
      wv::FetchResponse response;
      response.status = found->second;
      return response;
    }
    if (refuse_json_accept && !accepts.empty() && accepts.back() != "text/html") {
      wv::FetchResponse response;
      response.status = 406;
      return response;
    }
    std::string url = request.url;
    if (auto target = redirect.find(url); target != redirect.end()) url = target->second;
    wv::FetchRequest forwarded = request;
    forwarded.url = url;
    auto response = memory.fetch(forwarded);
    if (response) response->effective_url = url;
    return response;
  }
};

}  // namespace

TEST_CASE("sources: HTTP precedence, errors, 406, redirects and garbage pages", "[index][sources]") {
  wv::RealFileSystem file_system;
  ScriptedFetcher fetcher;
  const std::string first = "https://one.example/simple";
  const std::string second = "https://two.example/simple";
  fetcher.memory.files[second + "/demo/"] =
      R"(<a href="../../files/demo-1.0-py3-none-any.whl#sha256=aa">demo-1.0-py3-none-any.whl</a>)";
  fetcher.memory.files[first + "/json/"] =
      R"({"meta": {"api-version": "1.0"}, "files": [{"filename": "json-2.0.tar.gz", "url": "json-2.0.tar.gz", "hashes": {}}]})";
  fetcher.memory.content_types[first + "/json/"] = "application/vnd.pypi.simple.v1+json";

  IndexSource source({{LocationKind::kSimpleIndex, first}, {LocationKind::kSimpleIndex, second}},
                     file_system, &fetcher);
  // 404 on the first index: the second answers; relative URLs resolve against its page.
  auto demo = source.distributions(name("demo"));
  REQUIRE(demo);
  REQUIRE(demo->size() == 1);
  CHECK(demo->front().url == "https://two.example/files/demo-1.0-py3-none-any.whl");
  CHECK(demo->front().index == second);
  CHECK(fetcher.accepts.front().find("application/vnd.pypi.simple.v1+json") == 0);
  auto json = source.distributions(name("json"));
  REQUIRE(json);
  CHECK(json->front().url == first + "/json/json-2.0.tar.gz");

  // A server error on the first index stops the search.
  fetcher.status[first + "/broken/"] = 500;
  fetcher.memory.files[second + "/broken/"] = "<a href='broken-1.0.tar.gz'>broken-1.0.tar.gz</a>";
  auto broken = source.distributions(name("broken"));
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == wv::ErrorCode::kNetwork);
  CHECK(broken.error().message.find("HTTP status 500") != std::string::npos);

  // 406 to the negotiated Accept: retried as plain HTML.
  ScriptedFetcher strict;
  strict.refuse_json_accept = true;
  strict.memory.files[first + "/demo/"] = "<a href='demo-3.0.tar.gz'>demo-3.0.tar.gz</a>";
  IndexSource strict_source({{LocationKind::kSimpleIndex, first}}, file_system, &strict);
  auto retried = strict_source.distributions(name("demo"));
  REQUIRE(retried);
  CHECK(retried->front().version.to_string() == "3.0");
  CHECK(strict.accepts.back() == "text/html");

  // Redirects: hrefs resolve against where the page really came from.
  ScriptedFetcher moved;
  moved.redirect[first + "/demo/"] = "https://mirror.example/pypi/demo/";
  moved.memory.files["https://mirror.example/pypi/demo/"] = "<a href='demo-4.0.tar.gz'>demo-4.0.tar.gz</a>";
  IndexSource moved_source({{LocationKind::kSimpleIndex, first}}, file_system, &moved);
  auto redirected = moved_source.distributions(name("demo"));
  REQUIRE(redirected);
  CHECK(redirected->front().url == "https://mirror.example/pypi/demo/demo-4.0.tar.gz");

  // Garbage pages, HTML and JSON: values, never crashes.
  std::mt19937 random(5);
  for (int round = 0; round < 500; ++round) {
    ScriptedFetcher junk;
    std::string body;
    static const char kAlphabet[] = "<a href='x-1.0.tar.gz#sha256=0'>{}[]\":,-_.whl \n\xff";
    for (int i = 0; i < 300; ++i) body.push_back(kAlphabet[random() % (sizeof kAlphabet - 1)]);
    junk.memory.files[first + "/x/"] = body;
    if (round % 2) junk.memory.content_types[first + "/x/"] = "application/vnd.pypi.simple.v1+json";
    IndexSource junk_source({{LocationKind::kSimpleIndex, first}}, file_system, &junk);
    auto result = junk_source.distributions(name("x"));
    if (result) {
      for (const Distribution& file : *result) CHECK(file.name == name("x"));
    }
  }
}
