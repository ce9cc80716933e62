// The unpacked-wheel cache (src/install/unpacked_cache.h) over real wheels and a real file
// system: an entry is extracted once and found again, a file changed through a hard link is
// noticed and the entry made again, two processes adding one wheel both get a whole entry,
// verify re-hashes, prune and clean remove what they say.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "base/sha256.h"
#include "install/unpacked_cache.h"
#include "install/wheel_link.h"
#include "support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelEntry;
using test::WheelSpec;

struct CachedWheel {
  std::string path;
  std::string sha256;
};

CachedWheel demo_wheel(const std::string& dir, const std::string& version = "1.0") {
  WheelSpec spec;
  spec.name = "demo";
  spec.version = version;
  spec.entry_points = "[console_scripts]\ndemo-run = demo:main\n";
  spec.files = {WheelEntry("demo/__init__.py", "def main():\n    return 0\n"),
                WheelEntry("demo/data.bin", std::string(200000, 'x') + "tail"),
                WheelEntry("demo-" + version + ".data/scripts/tool", "#!python\nprint('tool')\n", true)};
  CachedWheel wheel;
  wheel.path = test::build_wheel(spec, dir);
  wheel.sha256 = sha256_file_hex(wheel.path).value();
  return wheel;
}

ExtractOptions options_for(const CachedWheel& wheel) {
  ExtractOptions options;
  options.wheel_name = fs::path(wheel.path).filename().string();
  return options;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("unpacked cache: a wheel is extracted once, found again, and its files are the wheel's") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  UnpackedCache cache(file_system, dir.file("cache"));
  auto missing = cache.find(wheel.sha256);
  REQUIRE(missing.has_value());
  CHECK_FALSE(missing->has_value());
  auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(added.has_value());
  CHECK(added->contents.name == "demo");
  CHECK(added->contents.dist_info == "demo-1.0.dist-info");
  CHECK(read(added->tree + "/demo/data.bin").size() == 200004);
  CHECK((fs::status(added->tree + "/demo-1.0.data/scripts/tool").permissions() &
         fs::perms::owner_exec) != fs::perms::none);
  auto found = cache.find(wheel.sha256);
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  CHECK((*found)->tree == added->tree);
  CHECK((*found)->contents.members.size() == added->contents.members.size());
  // Nothing left behind in the temporary folder.
  CHECK(fs::is_empty(cache.root() + "/.tmp"));
}

TEST_CASE("unpacked cache: a file written through a hard link is noticed, and the entry made again") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  UnpackedCache cache(file_system, dir.file("cache"));
  auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(added.has_value());
  const std::string linked = dir.file("linked.py");
  REQUIRE(file_system.link_file(added->tree + "/demo/__init__.py", linked, LinkMode::kHardlink)
              .value() == LinkMode::kHardlink);
  {
    std::ofstream out(linked, std::ios::app);
    out << "# edited in an environment\n";
  }
  auto found = cache.find(wheel.sha256);
  REQUIRE(found.has_value());
  CHECK_FALSE(found->has_value());  // discarded: the next add extracts it again
  auto again = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(again.has_value());
  CHECK(read(again->tree + "/demo/__init__.py") == "def main():\n    return 0\n");
  // The environment's copy keeps its edit; it is no longer the cache's file.
  CHECK(read(linked).find("edited") != std::string::npos);
}

TEST_CASE("unpacked cache: verify re-hashes and removes an entry whose bytes changed in place") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  CachedWheel other = demo_wheel(dir.file("other"), "2.0");
  UnpackedCache cache(file_system, dir.file("cache"));
  auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(cache.add(other.sha256, other.path, options_for(other), false).has_value());
  REQUIRE(added.has_value());
  // Same size, same mtime: only a re-hash can tell.
  const std::string victim = added->tree + "/demo/data.bin";
  auto before = fs::last_write_time(victim);
  {
    std::fstream out(victim, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(10);
    out.put('y');
  }
  fs::last_write_time(victim, before);
  auto quick = cache.find(wheel.sha256);
  REQUIRE(quick.has_value());
  CHECK(quick->has_value());
  auto swept = cache.verify();
  REQUIRE(swept.has_value());
  CHECK(swept->checked == 2);
  REQUIRE(swept->removed.size() == 1);
  CHECK(swept->removed[0].entry.sha256 == wheel.sha256);
  CHECK(swept->removed[0].reason.find("demo/data.bin") != std::string::npos);
  CHECK_FALSE(cache.find(wheel.sha256)->has_value());
  CHECK(cache.find(other.sha256)->has_value());
}

TEST_CASE("unpacked cache: two processes adding one wheel at once both get a whole entry") {
  test::TempDir dir;
  CachedWheel wheel = demo_wheel(dir.path());
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      RealFileSystem file_system;
      UnpackedCache cache(file_system, dir.file("cache"));
      auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
      bool whole = added && read(added->tree + "/demo/data.bin").size() == 200004;
      ::_exit(whole ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  RealFileSystem file_system;
  UnpackedCache cache(file_system, dir.file("cache"));
  auto entries = cache.list();
  REQUIRE(entries.has_value());
  CHECK(entries->size() == 1);
  CHECK(fs::is_empty(cache.root() + "/.tmp"));
}

TEST_CASE("unpacked cache: prune removes leftovers, damaged and unused entries; clean the named ones") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  CachedWheel other = demo_wheel(dir.file("other"), "2.0");
  UnpackedCache cache(file_system, dir.file("cache"));
  REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  REQUIRE(cache.add(other.sha256, other.path, options_for(other), false).has_value());
  fs::create_directories(cache.root() + "/.tmp/abandoned/files");
  auto kept = cache.prune(30);
  REQUIRE(kept.has_value());
  REQUIRE(kept->removed.size() == 1);  // only the leftover: both entries were just used
  CHECK(kept->removed[0].reason == "left by an interrupted write");
  auto aged = cache.prune(0);
  REQUIRE(aged.has_value());
  CHECK(aged->removed.size() == 2);
  CHECK(aged->bytes_freed > 400000);
  REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  auto cleaned = cache.clean({"Other-Name"});
  REQUIRE(cleaned.has_value());
  CHECK(cleaned->removed.empty());
  cleaned = cache.clean({"DEMO"});
  REQUIRE(cleaned.has_value());
  CHECK(cleaned->removed.size() == 1);
  CHECK(cache.list()->empty());
}

TEST_CASE("link_file: a hard link is the cache's own file, a copy across file systems is not") {
  test::TempDir dir;
  RealFileSystem file_system;
  const std::string source = dir.file("source");
  {
    std::ofstream out(source);
    out << "content";
  }
  fs::permissions(source, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  auto linked = file_system.link_file(source, dir.file("hard"), LinkMode::kHardlink);
  REQUIRE(linked.has_value());
  CHECK(*linked == LinkMode::kHardlink);
  CHECK(file_system.stat(dir.file("hard"))->inode == file_system.stat(source)->inode);
  auto copied = file_system.link_file(source, dir.file("copy"), LinkMode::kCopy);
  REQUIRE(copied.has_value());
  CHECK(*copied == LinkMode::kCopy);
  CHECK(file_system.stat(dir.file("copy"))->inode != file_system.stat(source)->inode);
  CHECK(file_system.stat(dir.file("copy"))->executable);
  CHECK(read(dir.file("copy")) == "content");
  // Auto on a file system without reflinks (ext4, tmpfs) ends at a hard link or, across file
  // systems, a copy; either way the content is the same.
  auto automatic = file_system.link_file(source, dir.file("auto"), LinkMode::kAuto);
  REQUIRE(automatic.has_value());
  CHECK(read(dir.file("auto")) == "content");
  if (fs::exists("/dev/shm") && file_system.stat("/dev/shm")->device != file_system.stat(dir.path())->device) {
    const std::string away = "/dev/shm/wvlock-link-test-" + std::to_string(::getpid());
    auto across = file_system.link_file(source, away, LinkMode::kHardlink);
    REQUIRE(across.has_value());
    CHECK(*across == LinkMode::kCopy);  // EXDEV: the per-file fallback
    CHECK(read(away) == "content");
    fs::remove(away);
  }
  // The target must be absent or replaceable; a missing source is an error naming it.
  auto missing = file_system.link_file(dir.file("nope"), dir.file("x"), LinkMode::kAuto);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("nope") != std::string::npos);
}

}  // namespace
}  // namespace wv::install
