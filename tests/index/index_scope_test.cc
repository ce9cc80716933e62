// IndexSource over named locations (DESIGN.md §2.1): which locations the default chain asks
// (explicit ones never), first-index against unsafe-best-match, and pinned() views that list
// from one named index only, over real PEP 503 trees written into a temporary folder.
//
// The three locations: A (`alpha`, non-explicit), B (`beta`, explicit), C (`gamma`,
// non-explicit, the default, asked last).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/index/sources.h"
#include "tests/support/temp_dir.h"

using namespace wv::index;
using wv::pkg::Distribution;
using wv::pkg::DistributionKind;
namespace fs = std::filesystem;

namespace {

wv::pkg::PackageName name(std::string_view text) { return *wv::pkg::parse_package_name(text); }
wv::pkg::Version version(std::string_view text) { return *wv::pkg::parse_version(text); }

// A variants file whose only non-null variant is `label` (so each index's file is told apart).
std::string variants_json(const std::string& label) {
  return R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
  "default-priorities": {"namespace": ["nvidia"]},
  "providers": {"nvidia": {"requires": ["nvidia-variant-provider"]}},
  "variants": {"null": {}, ")" +
         label + R"(": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}}})";
}

// Three PEP 503 trees under one temporary folder.
class ThreeIndexes {
 public:
  ThreeIndexes() {
    // A: demo 1.0 (one wheel) and 1.5, with a variants file for 1.0; only-a.
    page("a", "demo", {"demo-1.0-py3-none-any.whl", "demo-1.5-py3-none-any.whl",
                       "demo-1.0-variants.json"});
    write("a/demo/demo-1.0-variants.json", variants_json("from_a"));
    page("a", "only-a", {"only_a-1.0-py3-none-any.whl"});
    // B (explicit): demo 1.0 and 3.0 (the newest anywhere), its own variants file; only-b.
    page("b", "demo", {"demo-1.0-py3-none-any.whl", "demo-3.0-py3-none-any.whl",
                       "demo-1.0-variants.json"});
    write("b/demo/demo-1.0-variants.json", variants_json("from_b"));
    page("b", "only-b", {"only_b-1.0-py3-none-any.whl"});
    // C (default): demo 1.0 with one more wheel than A's 1.0, and 2.0; only-c.
    page("c", "demo", {"demo-1.0-py3-none-any.whl", "demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl",
                       "demo-2.0-py3-none-any.whl"});
    page("c", "only-c", {"only_c-1.0-py3-none-any.whl"});
  }

  std::string root(const char* index) const { return dir_.file(index); }

  std::vector<SourceLocation> locations() const {
    return {{LocationKind::kSimpleIndex, root("a"), "alpha", false},
            {LocationKind::kSimpleIndex, root("b"), "beta", true},
            {LocationKind::kSimpleIndex, root("c"), "gamma", false}};
  }

  wv::RealFileSystem file_system;

 private:
  void write(const std::string& leaf, const std::string& text) {
    std::string path = dir_.file(leaf);
    fs::create_directories(fs::path(path).parent_path());
    REQUIRE(file_system.write_file_atomic(path, text));
  }
  void page(const char* index, const char* project, const std::vector<std::string>& files) {
    std::string html = "<html><body>\n";
    for (const std::string& file : files) html += "<a href=\"" + file + "\">" + file + "</a>\n";
    write(std::string(index) + "/" + project + "/index.html", html + "</body></html>\n");
  }

  wv::test::TempDir dir_;
};

std::set<std::string> versions_of(const std::vector<Distribution>& files) {
  std::set<std::string> out;
  for (const Distribution& file : files) out.insert(file.version.to_string());
  return out;
}

std::vector<const Distribution*> files_of(const std::vector<Distribution>& files,
                                          std::string_view version_text) {
  std::vector<const Distribution*> out;
  for (const Distribution& file : files) {
    if (file.version.to_string() == version_text) out.push_back(&file);
  }
  return out;
}

}  // namespace

TEST_CASE("index scope: the default chain never asks an explicit index", "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  // Only B has only-b: not found through the default chain, and the search names A and C only.
  auto only_b = source.distributions(name("only-b"));
  REQUIRE_FALSE(only_b);
  CHECK(only_b.error().code == wv::ErrorCode::kNotFound);
  CHECK(only_b.error().message.find(trees.root("a")) != std::string::npos);
  CHECK(only_b.error().message.find(trees.root("c")) != std::string::npos);
  CHECK(only_b.error().message.find(trees.root("b")) == std::string::npos);
  // B has demo 3.0, the newest, ahead of C in the list: the default chain still never sees it.
  auto demo = source.distributions(name("demo"));
  REQUIRE(demo);
  CHECK(versions_of(*demo).count("3.0") == 0);
  for (const Distribution& file : *demo) CHECK(file.index != trees.root("b"));
  // Also with best-match: explicit indexes stay out of the merge.
  IndexSource merged(trees.locations(), trees.file_system, nullptr);
  merged.set_best_match(true);
  auto all = merged.distributions(name("demo"));
  REQUIRE(all);
  CHECK(versions_of(*all) == std::set<std::string>{"1.0", "1.5", "2.0"});
  CHECK_FALSE(merged.distributions(name("only-b")));
}

TEST_CASE("index scope: first-index: the first index that has a project answers alone",
          "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  auto demo = source.distributions(name("demo"));
  REQUIRE(demo);
  // C has 2.0, newer than anything on A: not mixed in.
  CHECK(versions_of(*demo) == std::set<std::string>{"1.0", "1.5"});
  for (const Distribution& file : *demo) {
    CHECK(file.index == trees.root("a"));
    CHECK(file.index_name == "alpha");
  }
  CHECK(files_of(*demo, "1.0").size() == 2);  // the wheel and the variants file, A's only
  // A project A lacks comes from C, named as C.
  auto only_c = source.distributions(name("only-c"));
  REQUIRE(only_c);
  REQUIRE(only_c->size() == 1);
  CHECK(only_c->front().index == trees.root("c"));
  CHECK(only_c->front().index_name == "gamma");
  auto only_a = source.distributions(name("only-a"));
  REQUIRE(only_a);
  CHECK(only_a->front().index_name == "alpha");
}

TEST_CASE("index scope: best-match merges versions, each from the first index that has it",
          "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  source.set_best_match(true);
  auto demo = source.distributions(name("demo"));
  REQUIRE(demo);
  CHECK(versions_of(*demo) == std::set<std::string>{"1.0", "1.5", "2.0"});
  // 1.0 is on A and C: A's files only (C's extra cp312 wheel is not mixed in).
  std::vector<const Distribution*> one = files_of(*demo, "1.0");
  REQUIRE(one.size() == 2);
  for (const Distribution* file : one) {
    CHECK(file->index == trees.root("a"));
    CHECK(file->index_name == "alpha");
    CHECK(file->url.find(trees.root("a")) == 0);
    CHECK(file->filename != "demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  }
  CHECK(files_of(*demo, "1.5").front()->index_name == "alpha");
  // 2.0 is on C only: C's file, named as C.
  std::vector<const Distribution*> two = files_of(*demo, "2.0");
  REQUIRE(two.size() == 1);
  CHECK(two.front()->index == trees.root("c"));
  CHECK(two.front()->index_name == "gamma");
  CHECK(two.front()->url.find(trees.root("c")) == 0);
}

TEST_CASE("index scope: a pinned view lists from its index alone", "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  // The default chain first, so a shared cache that mixed scopes would show.
  REQUIRE(source.distributions(name("demo")));
  auto beta = source.pinned("beta");
  REQUIRE(beta);
  auto demo = (*beta)->distributions(name("demo"));
  REQUIRE(demo);
  CHECK(versions_of(*demo) == std::set<std::string>{"1.0", "3.0"});
  for (const Distribution& file : *demo) {
    CHECK(file.index == trees.root("b"));
    CHECK(file.index_name == "beta");
  }
  // B's own projects, and nothing from the other indexes.
  auto only_b = (*beta)->distributions(name("only-b"));
  REQUIRE(only_b);
  CHECK(only_b->front().index_name == "beta");
  auto only_a = (*beta)->distributions(name("only-a"));
  REQUIRE_FALSE(only_a);
  CHECK(only_a.error().code == wv::ErrorCode::kNotFound);
  CHECK_FALSE((*beta)->distributions(name("only-c")));
  // The default chain is unchanged after the pinned listing.
  auto again = source.distributions(name("demo"));
  REQUIRE(again);
  CHECK(versions_of(*again) == std::set<std::string>{"1.0", "1.5"});

  // A non-explicit index can be pinned too: C alone, though A is asked first by default.
  auto gamma = source.pinned("gamma");
  REQUIRE(gamma);
  auto from_c = (*gamma)->distributions(name("demo"));
  REQUIRE(from_c);
  CHECK(versions_of(*from_c) == std::set<std::string>{"1.0", "2.0"});
  CHECK(files_of(*from_c, "1.0").size() == 2);
  for (const Distribution& file : *from_c) CHECK(file.index_name == "gamma");

  // A pinned view never merges, even with best-match on.
  IndexSource merged(trees.locations(), trees.file_system, nullptr);
  merged.set_best_match(true);
  auto merged_beta = merged.pinned("beta");
  REQUIRE(merged_beta);
  auto pinned_demo = (*merged_beta)->distributions(name("demo"));
  REQUIRE(pinned_demo);
  CHECK(versions_of(*pinned_demo) == std::set<std::string>{"1.0", "3.0"});
}

TEST_CASE("index scope: pinning an index no location is named is kNotFound", "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  auto nope = source.pinned("nope");
  REQUIRE_FALSE(nope);
  CHECK(nope.error().code == wv::ErrorCode::kNotFound);
  CHECK(nope.error().message.find("`nope`") != std::string::npos);
  // The empty name of unnamed locations (find-links) is no index either.
  IndexSource unnamed({{LocationKind::kSimpleIndex, trees.root("a")}}, trees.file_system, nullptr);
  CHECK_FALSE(unnamed.pinned("alpha"));
}

TEST_CASE("index scope: a pinned view reads its own index's variants file", "[index][scope]") {
  ThreeIndexes trees;
  IndexSource source(trees.locations(), trees.file_system, nullptr);
  // A's file through the default chain first: the shared cache must keep the scopes apart.
  auto from_a = source.variants_metadata(name("demo"), version("1.0"));
  REQUIRE(from_a);
  CHECK(from_a->variants.count("from_a") == 1);
  CHECK(from_a->variants.count("from_b") == 0);
  auto beta = source.pinned("beta");
  REQUIRE(beta);
  auto from_b = (*beta)->variants_metadata(name("demo"), version("1.0"));
  REQUIRE(from_b);
  CHECK(from_b->variants.count("from_b") == 1);
  CHECK(from_b->variants.count("from_a") == 0);
  CHECK(source.stats().variants_files == 2);
  // And the other way round on a fresh source: B's first, then the default chain reads A's.
  IndexSource fresh(trees.locations(), trees.file_system, nullptr);
  auto fresh_beta = fresh.pinned("beta");
  REQUIRE(fresh_beta);
  auto b_first = (*fresh_beta)->variants_metadata(name("demo"), version("1.0"));
  REQUIRE(b_first);
  CHECK(b_first->variants.count("from_b") == 1);
  auto a_second = fresh.variants_metadata(name("demo"), version("1.0"));
  REQUIRE(a_second);
  CHECK(a_second->variants.count("from_a") == 1);
  // C lists no variants file for 1.0: kNotFound through C's view, not A's or B's file.
  auto gamma = fresh.pinned("gamma");
  REQUIRE(gamma);
  auto none = (*gamma)->variants_metadata(name("demo"), version("1.0"));
  REQUIRE_FALSE(none);
  CHECK(none.error().code == wv::ErrorCode::kNotFound);
}
