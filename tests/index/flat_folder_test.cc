// FlatFolder (src/index/flat_folder.h): the bucketed listing answers every project exactly as
// the whole-folder parse did, and its digest serves later runs without listing the folder, is
// dropped when the folder changes or the digest is damaged, and survives concurrent writers.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "src/base/file_system.h"
#include "src/index/flat_folder.h"
#include "src/index/sources.h"
#include "src/pkg/sdist_filename.h"
#include "src/pkg/wheel_filename.h"
#include "tests/support/temp_dir.h"

using namespace wv;
using namespace wv::index;
namespace fs = std::filesystem;

namespace {

/// The real file system, counting the folders it lists.
class RealHolder {
 protected:
  RealFileSystem real_;
};
class CountingFileSystem final : private RealHolder, public ForwardingFileSystem {
 public:
  CountingFileSystem() : ForwardingFileSystem(real_) {}
  mutable int listings = 0;
  Result<std::vector<DirectoryEntry>> list_directory(const std::string& path) const override {
    ++listings;
    return ForwardingFileSystem::list_directory(path);
  }
};

pkg::PackageName name(std::string_view text) { return *pkg::parse_package_name(text); }

void touch(const std::string& path) { std::ofstream(path, std::ios::binary) << ""; }

// A digest is kept only for a folder that changed more than two seconds before it was listed.
void settle(const std::string& folder) {
  fs::last_write_time(folder, fs::file_time_type::clock::now() - std::chrono::hours(1));
}

// Names that start alike, spell one project several ways, or do not parse at all.
const char* const kTrickyNames[] = {
    "foo_bar-1.0-py3-none-any.whl", "Foo.Bar-1.0.tar.gz", "foo-bar-1.1.tar.gz",
    "foo-bar-2.0-1.tar.gz", "foo-bar-1.0-beta.tar.gz", "foo_bar-1.0-variants.json",
    "FOO__bar-3.0-py3-none-any.whl", "foo_bar-1.0-7-py3-none-any.whl",
    "foo_bar-1.0-py3-none-any-abcd1234.whl", "foo_bar-1.0.zip", "foo_bar-1.0.tar.bz2",
    "foo_bar-1.0-py3-none-any.whl.metadata", "foo-bar-1.0-py3-none-any.whl",
    "foo-1.0-py3-none-any.whl", "Foo-2.0.tar.gz", "foo.bar.baz-1.0.tar.gz", "foobar-1.0-py3-none-any.whl",
    "foo0-1.0-py3-none-any.whl", "foo-0.1-variants.json", "foo_bar_baz-0.1-variants.json",
    "README", "index.html", ".hidden-1.0-py3-none-any.whl", "-foo-1.0.tar.gz",
    "_foo-1.0-py3-none-any.whl", "9lives-1.0-py3-none-any.whl", "a-1.0.tar.gz",
    "a_b_c-1.0-py3-none-any.whl", "A.B.C-1.0.tar.gz", "\xc3\x9cnicode-1.0-py3-none-any.whl",
    "foo bar-1.0.tar.gz", "foo-bar-.tar.gz", "foo--bar-1.0.tar.gz", "Zope.Interface-5.0.zip",
    "zope_interface-5.0-cp311-cp311-manylinux_2_28_x86_64.whl", "zope-1.0.tar.gz"};

// The whole-folder parse the listing replaced: every entry classified, grouped by its name.
std::map<std::string, std::vector<std::string>> whole_folder(const std::string& folder) {
  RealFileSystem file_system;
  std::map<std::string, std::vector<std::string>> by_project;
  const std::vector<DirectoryEntry> entries = *file_system.list_directory(folder);
  for (const DirectoryEntry& entry : entries) {
    if (entry.type != FileType::kRegular && entry.type != FileType::kSymlink) continue;
    pkg::ClassifiedFile classified = pkg::classify_filename(entry.name);
    const pkg::PackageName* project = nullptr;
    if (classified.wheel) project = &classified.wheel->name;
    else if (classified.sdist) project = &classified.sdist->name;
    else if (classified.variants_json) project = &classified.variants_json->name;
    if (project != nullptr) by_project[project->str()].push_back(entry.name);
  }
  return by_project;
}

void make_tricky_folder(const std::string& folder) {
  fs::create_directories(folder);
  for (const char* leaf : kTrickyNames) touch(folder + "/" + leaf);
  // Not files: a folder named like a wheel is skipped, a symlink to a wheel is listed.
  fs::create_directories(folder + "/foo_bar-9.0-py3-none-any.whl");
  fs::create_symlink(folder + "/foo_bar-1.0-py3-none-any.whl",
                     folder + "/foo_bar-5.0-py3-none-any.whl");
  settle(folder);
}

// Every project the old parse found, and some it did not, answered alike by `listing`.
void check_same_as_whole_folder(FlatFolder& listing, const std::string& folder) {
  const auto expected = whole_folder(folder);
  REQUIRE(expected.size() > 10);
  std::set<std::string> projects{"foo", "bar", "foo-bar-baz", "zope", "a", "absent", "foo-bar-2-0"};
  for (const auto& [project, files] : expected) projects.insert(project);
  for (const std::string& project : projects) {
    INFO(project);
    Result<std::vector<std::string>> files = listing.files_of(name(project));
    REQUIRE(files);
    auto found = expected.find(project);
    CHECK(*files == (found == expected.end() ? std::vector<std::string>{} : found->second));
  }
}

// A folder of tricky names (make_tricky_folder), read through a counting file system.
struct TrickyFolder {
  TrickyFolder() { make_tricky_folder(folder); }
  test::TempDir dir;
  const std::string folder = dir.file("wheels");
  CountingFileSystem file_system;
  FlatFolderStats stats;
};

}  // namespace

TEST_CASE("flat folder: buckets are the first word of the name, lower-cased", "[index][flat]") {
  CHECK(flat_bucket("foo_bar-1.0-py3-none-any.whl") == "foo");
  CHECK(flat_bucket("Foo.Bar-1.0.tar.gz") == "foo");
  CHECK(flat_bucket("FOOBAR-1.0.tar.gz") == "foobar");
  CHECK(flat_bucket("README") == "readme");
  CHECK(flat_bucket(".hidden") == "");
  CHECK(flat_project_bucket(name("Foo.Bar_baz")) == "foo");
  CHECK(flat_project_bucket(name("numpy")) == "numpy");
}

TEST_CASE_METHOD(TrickyFolder,
                 "flat folder: the bucketed listing is the whole-folder parse, project by project",
                 "[index][flat]") {
  SECTION("listed, no digest kept") {
    FlatFolder listing(file_system, folder, nullptr, "", stats);
    check_same_as_whole_folder(listing, folder);
    CHECK(file_system.listings == 1);
    CHECK(stats.digests_stored == 0);
  }
  SECTION("from the digest a first run kept") {
    FlatFolder first(file_system, folder, &file_system, dir.file("digests"), stats);
    REQUIRE(first.files_of(name("foo-bar")));
    CHECK(stats.digests_stored == 1);
    FlatFolder second(file_system, folder, &file_system, dir.file("digests"), stats);
    check_same_as_whole_folder(second, folder);
    CHECK(file_system.listings == 1);
    CHECK(stats.digests_reused == 1);
  }
}

TEST_CASE_METHOD(TrickyFolder,
                 "flat folder: a kept digest answers without listing the folder, through "
                 "IndexSource",
                 "[index][flat]") {
  auto list = [&](const char* project) {
    IndexSource source({{LocationKind::kFlatFolder, folder}}, file_system, nullptr);
    source.set_folder_digests(file_system, dir.file("digests"));
    Result<std::vector<pkg::Distribution>> files = source.distributions(name(project));
    REQUIRE(files);
    std::vector<std::string> out;
    for (const pkg::Distribution& file : *files) out.push_back(file.filename + " " + file.url);
    return std::pair{out, source.stats().folders};
  };
  auto [cold, cold_stats] = list("foo-bar");
  CHECK(cold_stats.directory_reads == 1);
  CHECK(cold_stats.digests_stored == 1);
  auto [warm, warm_stats] = list("foo-bar");
  CHECK(warm == cold);
  CHECK(warm_stats.directory_reads == 0);
  CHECK(warm_stats.digests_reused == 1);
  CHECK(file_system.listings == 1);
  // Without a digest folder the answer is the same.
  IndexSource plain({{LocationKind::kFlatFolder, folder}}, file_system, nullptr);
  Result<std::vector<pkg::Distribution>> files = plain.distributions(name("foo-bar"));
  REQUIRE(files);
  REQUIRE(files->size() == cold.size());
  for (std::size_t i = 0; i < cold.size(); ++i) {
    CHECK(cold[i] == (*files)[i].filename + " " + (*files)[i].url);
  }
  CHECK(!cold.empty());
}

TEST_CASE_METHOD(TrickyFolder,
                 "flat folder: adding or removing a file makes the digest out of date",
                 "[index][flat]") {
  auto files_of = [&](const char* project) {
    FlatFolder listing(file_system, folder, &file_system, dir.file("digests"), stats);
    Result<std::vector<std::string>> files = listing.files_of(name(project));
    REQUIRE(files);
    return *files;
  };
  const std::vector<std::string> before = files_of("foo");
  REQUIRE(stats.digests_stored == 1);
  touch(folder + "/foo-9.0-py3-none-any.whl");
  std::vector<std::string> added = files_of("foo");
  CHECK(file_system.listings == 2);
  CHECK(added.size() == before.size() + 1);
  CHECK(std::find(added.begin(), added.end(), "foo-9.0-py3-none-any.whl") != added.end());
  // Changed just now: not kept (a change in the same tick would not move the mtime).
  CHECK(stats.digests_stored == 1);
  settle(folder);
  CHECK(files_of("foo") == added);
  CHECK(stats.digests_stored == 2);
  CHECK(files_of("foo") == added);
  CHECK(file_system.listings == 3);
  fs::remove(folder + "/foo-9.0-py3-none-any.whl");
  CHECK(files_of("foo") == before);
  CHECK(file_system.listings == 4);
}

TEST_CASE_METHOD(TrickyFolder,
                 "flat folder: a damaged or foreign digest is a miss, never a wrong answer",
                 "[index][flat]") {
  const std::string digests = dir.file("digests");
  {
    FlatFolder first(file_system, folder, &file_system, digests, stats);
    REQUIRE(first.files_of(name("foo")));
  }
  REQUIRE(stats.digests_stored == 1);
  std::string digest_file;
  for (const auto& entry : fs::directory_iterator(digests)) digest_file = entry.path().string();
  RealFileSystem real;
  const std::string good = *real.read_file(digest_file);
  const auto expected = whole_folder(folder);

  auto damage = [&](std::string bytes) {
    REQUIRE(real.write_file_atomic(digest_file, bytes));
    const int listings = file_system.listings;
    FlatFolderStats run;
    FlatFolder listing(file_system, folder, &file_system, digests, run);
    for (const char* project : {"foo-bar", "foo", "zope-interface"}) {
      Result<std::vector<std::string>> files = listing.files_of(name(project));
      REQUIRE(files);
      CHECK(*files == expected.at(project));
    }
    CHECK(file_system.listings == listings + 1);
    CHECK(run.directory_reads == 1);
    // The folder's own digest took its place.
    CHECK(*real.read_file(digest_file) == good);
  };
  SECTION("truncated") { damage(good.substr(0, good.size() - 3)); }
  SECTION("empty") { damage(""); }
  SECTION("a byte of the table flipped") {
    std::string bytes = good;
    bytes[120] ^= 1;
    damage(bytes);
  }
  SECTION("a byte of the asked bucket's names flipped") {
    std::string bytes = good;
    const std::size_t at = bytes.rfind("foo_bar-1.0-py3-none-any.whl");
    REQUIRE(at != std::string::npos);
    bytes[at + 4] = 'X';
    damage(bytes);
  }
  SECTION("another folder's digest") {
    const std::string other = dir.file("other");
    fs::create_directories(other);
    touch(other + "/foo-1.0-py3-none-any.whl");
    FolderIdentity identity{other, 1, 2, 3};
    damage(encode_flat_digest(identity, *real.list_directory(other)));
  }
  SECTION("garbage") { damage(std::string(4096, '\xff')); }
}

TEST_CASE("flat folder: concurrent writers leave one good digest", "[index][flat]") {
  test::TempDir dir;
  const std::string folder = dir.file("wheels");
  make_tricky_folder(folder);
  const std::string digests = dir.file("digests");
  RealFileSystem file_system;
  const auto expected = whole_folder(folder);
  std::vector<std::vector<std::string>> answers(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int round = 0; round < 5; ++round) {
        FlatFolderStats stats;
        FlatFolder listing(file_system, folder, &file_system, digests, stats);
        Result<std::vector<std::string>> files = listing.files_of(name("foo-bar"));
        if (files) answers[i] = *files;
        else answers[i] = {"error: " + files.error().message};
        if (answers[i] != expected.at("foo-bar")) return;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& answer : answers) CHECK(answer == expected.at("foo-bar"));
  // One digest, no temporary files left, and it serves a reader.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(digests)) {
    ++files;
    CHECK(entry.path().extension() == ".digest");
  }
  CHECK(files == 1);
  CountingFileSystem counting;
  FlatFolderStats stats;
  FlatFolder listing(counting, folder, &counting, digests, stats);
  REQUIRE(listing.files_of(name("foo-bar")));
  CHECK(counting.listings == 0);
}

TEST_CASE("flat folder: a missing folder is an error, kept", "[index][flat]") {
  test::TempDir dir;
  CountingFileSystem file_system;
  FlatFolderStats stats;
  FlatFolder listing(file_system, dir.file("missing"), &file_system, dir.file("digests"), stats);
  for (int i = 0; i < 2; ++i) {
    Result<std::vector<std::string>> files = listing.files_of(name("foo"));
    REQUIRE(!files);
    CHECK(files.error().code == ErrorCode::kIo);
  }
  CHECK(file_system.listings == 1);
  CHECK(!fs::exists(dir.file("digests")));
}
