// What an air-gapped node reads (docs/guides/clusters.md): a wheelhouse (install/wheelhouse.h)
// serves a locked file by name and sha256 before its fallback, and is written through a
// temporary name with a SHA256SUMS that keeps an earlier fetch's lines; a cache opened
// read-only (a site-wide cache of another user) serves its entries and writes nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "src/base/sha256.h"
#include "src/install/unpacked_cache.h"
#include "src/install/wheelhouse.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

lock::LockedFile locked(const std::string& name, const std::string& content) {
  lock::LockedFile file;
  file.name = name;
  file.url = "https://files.example/" + name;
  file.size = content.size();
  file.sha256 = sha256_hex(content);
  return file;
}

// Every path under `root` with its size and mtime.
std::string listing(const std::string& root) {
  std::string out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::error_code ec;
    out += entry.path().string() + " " +
           std::to_string(entry.is_regular_file() ? entry.file_size() : 0) + " " +
           std::to_string(fs::last_write_time(entry.path(), ec).time_since_epoch().count()) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("wheelhouse: a file of the locked name and sha256 serves before the fallback; another "
          "lock's file of that name does not",
          "[wheelhouse]") {
  test::TempDir dir;
  const std::string house = dir.file("house");
  fs::create_directories(house);
  const lock::LockedFile wheel = locked("a-1.0-py3-none-any.whl", "the wheel");
  const lock::LockedFile other = locked("b-1.0-py3-none-any.whl", "b's bytes");
  const lock::LockedFile absent = locked("c-1.0-py3-none-any.whl", "c");
  write(house + "/" + wheel.name, "the wheel");
  write(house + "/" + other.name, "another lock's b");  // same name, other content
  std::vector<std::string> asked;
  CallbackWheelStore network(
      [&](const lock::LockedFile& file) -> Result<std::string> {
        asked.push_back(file.name);
        return std::string("/from/network/" + file.name);
      },
      [&](const std::vector<const lock::LockedFile*>& files) {
        std::vector<Result<std::string>> paths;
        for (const lock::LockedFile* file : files) {
          asked.push_back(file->name);
          paths.push_back(std::string("/from/network/" + file->name));
        }
        return paths;
      });
  WheelhouseStore store(house, &network);
  auto got = store.get_all({&wheel, &other, &absent});
  REQUIRE(got.size() == 3);
  REQUIRE(got[0].has_value());
  CHECK(*got[0] == house + "/" + wheel.name);
  CHECK(*got[1] == "/from/network/" + other.name);
  CHECK(*got[2] == "/from/network/" + absent.name);
  CHECK(asked == std::vector<std::string>{other.name, absent.name});  // one batch, in order
  CHECK(store.locate(wheel).state == FileState::kVerified);
  // Without a fallback a missing file is an error naming the wheelhouse.
  WheelhouseStore alone(house, nullptr);
  auto missing = alone.get(absent);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("is not in the wheelhouse") != std::string::npos);
  CHECK(check_wheelhouse(house).has_value());
  CHECK_FALSE(check_wheelhouse(dir.file("nope")).has_value());
}

TEST_CASE("wheelhouse: names that would leave the folder are refused", "[wheelhouse]") {
  for (const char* bad : {"", "../x.whl", "a/b.whl", ".hidden.whl", "a\nb.whl", "..", "."}) {
    INFO(bad);
    CHECK_FALSE(is_flat_file_name(bad));
  }
  CHECK(is_flat_file_name("torch-2.9.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"));
  test::TempDir dir;
  RealFileSystem file_system;
  write(dir.file("src"), "x");
  auto placed = add_to_wheelhouse(file_system, dir.path(), dir.file("src"), locked("../x.whl", "x"));
  REQUIRE_FALSE(placed.has_value());
  CHECK_FALSE(fs::exists(dir.path() + "/../x.whl"));
}

TEST_CASE("wheelhouse: files are placed whole and SHA256SUMS keeps an earlier fetch's lines",
          "[wheelhouse]") {
  test::TempDir dir;
  RealFileSystem file_system;
  const std::string house = dir.file("house");
  fs::create_directories(house);
  write(dir.file("a"), "aaa");
  write(dir.file("b"), "bbb");
  const lock::LockedFile a = locked("a-1.0-py3-none-any.whl", "aaa");
  const lock::LockedFile b = locked("b-1.0-py3-none-any.whl", "bbb");
  REQUIRE(add_to_wheelhouse(file_system, house, dir.file("a"), a).has_value());
  REQUIRE(write_wheelhouse_manifest(file_system, house, {{a.name, a.sha256}}).has_value());
  // A second fetch (another target) adds b; a stays listed, and a wrong copy is replaced.
  write(house + "/" + b.name, "stale");
  REQUIRE(add_to_wheelhouse(file_system, house, dir.file("b"), b).has_value());
  REQUIRE(write_wheelhouse_manifest(file_system, house, {{b.name, b.sha256}}).has_value());
  CHECK(read(house + "/" + b.name) == "bbb");
  CHECK(read(house + "/SHA256SUMS") ==
        a.sha256 + "  " + a.name + "\n" + b.sha256 + "  " + b.name + "\n");
  // Nothing else is left in the folder (no temporary names).
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(house)) files += entry.is_regular_file() ? 1 : 0;
  CHECK(files == 3);
}

TEST_CASE("shared cache: a read-only cache serves its entries, skips a damaged one without "
          "removing it, and writes nothing",
          "[shared-cache]") {
  test::TempDir dir;
  RealFileSystem file_system;
  test::WheelSpec spec;
  spec.name = "demo";
  spec.version = "1.0";
  spec.files = {test::WheelEntry("demo/__init__.py", "x = 1\n"),
                test::WheelEntry("demo/other.py", "y = 2\n")};
  const std::string wheel_path = test::build_wheel(spec, dir.path());
  const std::string sha256 = sha256_file_hex(wheel_path).value();
  spec.version = "2.0";
  const std::string second_path = test::build_wheel(spec, dir.path());
  const std::string second = sha256_file_hex(second_path).value();
  const std::string cache_dir = dir.file("cache");
  {
    UnpackedCache owner(file_system, cache_dir);
    ExtractOptions options;
    options.wheel_name = fs::path(wheel_path).filename().string();
    REQUIRE(owner.add(sha256, wheel_path, options, false).has_value());
    options.wheel_name = fs::path(second_path).filename().string();
    REQUIRE(owner.add(second, second_path, options, false).has_value());
    REQUIRE(CacheLock::acquire(owner.root(), false).has_value());  // makes `.lock`
  }
  // The second entry is damaged by its owner's tools; a reader must leave it for them.
  const std::string damaged =
      cache_dir + "/unpacked-v1/" + second.substr(0, 2) + "/" + second + "/files/demo/other.py";
  write(damaged, "changed = True\n");
  const std::string before = listing(cache_dir);

  UnpackedCache reader(file_system, cache_dir, true);
  auto lock = CacheLock::acquire_read_only(reader.root());
  REQUIRE(lock.has_value());
  auto again = CacheLock::acquire_read_only(reader.root());  // shared: a second node at once
  REQUIRE(again.has_value());
  auto entry = reader.find(sha256);
  REQUIRE(entry.has_value());
  REQUIRE(entry->has_value());
  CHECK((*entry)->contents.name == "demo");
  auto skipped = reader.find(second);
  REQUIRE(skipped.has_value());
  CHECK_FALSE(skipped->has_value());
  ExtractOptions options;
  options.wheel_name = fs::path(wheel_path).filename().string();
  CHECK_FALSE(reader.add(sha256, wheel_path, options, true).has_value());
  CHECK(listing(cache_dir) == before);

  // A cache folder that has no unpacked wheels: nothing to lock or read, nothing made.
  const std::string empty = dir.file("empty-cache");
  fs::create_directories(empty);
  UnpackedCache none(file_system, empty, true);
  auto absent = CacheLock::acquire_read_only(none.root());
  REQUIRE_FALSE(absent.has_value());
  CHECK(absent.error().code == ErrorCode::kNotFound);
  auto nothing = none.find(sha256);
  REQUIRE(nothing.has_value());
  CHECK_FALSE(nothing->has_value());
  CHECK(fs::is_empty(empty));
  CHECK(cache_writable(empty));
}

}  // namespace wv::install
