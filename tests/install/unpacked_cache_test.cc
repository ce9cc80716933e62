// The unpacked-wheel cache (src/install/unpacked_cache.h) over real wheels and a real file
// system: an entry is extracted once and found again, a file changed through a hard link is
// noticed and the entry made again, two processes adding one wheel both get a whole entry,
// verify re-hashes, prune and clean remove what they say.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/support/package_name.h"
#include "src/base/sha256.h"
#include "cache_probe.h"
#include "src/install/unpacked_cache.h"
#include "src/install/wheel_link.h"
#include "tests/support/temp_dir.h"
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
  auto cleaned = cache.clean({"Other-Name"_pkg});
  REQUIRE(cleaned.has_value());
  CHECK(cleaned->removed.empty());
  cleaned = cache.clean({"DEMO"_pkg});
  REQUIRE(cleaned.has_value());
  CHECK(cleaned->removed.size() == 1);
  CHECK(cache.list()->empty());
}

// The hardening tests below: someone who can write in the cache folder swaps a folder or file
// of it for a symlink (or a folder of another file system); nothing outside is ever written,
// removed or linked from, and the cache goes on working.

std::string entry_of(const UnpackedCache& cache, const CachedWheel& wheel) {
  return cache.root() + "/" + wheel.sha256.substr(0, 2) + "/" + wheel.sha256;
}

// Files outside the cache that a symlink in it will point at.
std::string outside_folder(const test::TempDir& dir, const std::string& name) {
  const std::string folder = dir.file(name);
  fs::create_directories(folder + "/keep");
  std::ofstream(folder + "/keep/a.txt") << "not the cache's";
  std::ofstream(folder + "/b.txt") << "not the cache's either";
  return folder;
}

TEST_CASE("unpacked cache: `.tmp` and `.trash` that are symlinks are replaced, and what they point "
          "at is left as it was", "[install][cache][hardening]") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  CachedWheel other = demo_wheel(dir.file("other"), "2.0");
  UnpackedCache cache(file_system, dir.file("cache"));
  REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  const std::string outside_tmp = outside_folder(dir, "outside-tmp");
  const std::string outside_trash = outside_folder(dir, "outside-trash");
  fs::remove_all(cache.root() + "/.tmp");
  fs::remove_all(cache.root() + "/.trash");
  fs::create_directory_symlink(outside_tmp, cache.root() + "/.tmp");
  fs::create_directory_symlink(outside_trash, cache.root() + "/.trash");
  const auto tmp_before = test::snapshot(outside_tmp);
  const auto trash_before = test::snapshot(outside_trash);
  SECTION("prune") {
    auto pruned = cache.prune(0);
    REQUIRE(pruned.has_value());
    REQUIRE(pruned->removed.size() == 1);  // the entry, unused for 0 days; no "leftover"
    CHECK(pruned->removed[0].entry.sha256 == wheel.sha256);
    CHECK_FALSE(fs::is_symlink(cache.root() + "/.tmp"));
    CHECK_FALSE(fs::is_symlink(cache.root() + "/.trash"));
  }
  SECTION("clean") {
    auto cleaned = cache.clean({});
    REQUIRE(cleaned.has_value());
    CHECK(cleaned->removed.size() == 1);
    CHECK_FALSE(fs::is_symlink(cache.root() + "/.trash"));
  }
  SECTION("add and replace") {
    REQUIRE(cache.add(other.sha256, other.path, options_for(other), false).has_value());
    REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), true).has_value());
    CHECK_FALSE(fs::is_symlink(cache.root() + "/.tmp"));
    CHECK_FALSE(fs::is_symlink(cache.root() + "/.trash"));
    CHECK(cache.list()->size() == 2);
  }
  CHECK(test::snapshot(outside_tmp) == tmp_before);
  CHECK(test::snapshot(outside_trash) == trash_before);
}

TEST_CASE("unpacked cache: an entry whose `files/` or manifest is a symlink is not used",
          "[install][cache][hardening]") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  UnpackedCache cache(file_system, dir.file("cache"));
  REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  const std::string entry = entry_of(cache, wheel);
  const std::string outside = dir.file("outside");
  fs::create_directories(outside);
  // The real files moved out, mtimes and all, so every size and mtime check still passes.
  SECTION("files/") {
    fs::rename(entry + "/files", outside + "/files");
    fs::create_directory_symlink(outside + "/files", entry + "/files");
  }
  SECTION("manifest") {
    fs::rename(entry + "/manifest", outside + "/manifest");
    fs::create_symlink(outside + "/manifest", entry + "/manifest");
  }
  const auto before = test::snapshot(outside);
  test::StderrCapture stderr_text(dir.file("stderr"));
  auto found = cache.find(wheel.sha256);
  const std::string warnings = stderr_text.text();
  REQUIRE(found.has_value());
  CHECK_FALSE(found->has_value());
  CHECK(warnings.find("symbolic link") != std::string::npos);
  auto again = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(again.has_value());
  CHECK_FALSE(fs::is_symlink(entry + "/files"));
  CHECK_FALSE(fs::is_symlink(entry + "/manifest"));
  CHECK(read(again->tree + "/demo/__init__.py") == "def main():\n    return 0\n");
  CHECK(test::snapshot(outside) == before);
}

TEST_CASE("unpacked cache: a member, or a folder of members, swapped for a symlink is not linked "
          "from", "[install][cache][hardening]") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  UnpackedCache cache(file_system, dir.file("cache"));
  auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE(added.has_value());
  const std::string outside = dir.file("outside");
  fs::create_directories(outside);
  const bool folder = GENERATE(false, true);
  INFO((folder ? "the folder demo/" : "the file demo/__init__.py") << " is a symlink");
  if (folder) {
    fs::rename(added->tree + "/demo", outside + "/demo");
    fs::create_directory_symlink(outside + "/demo", added->tree + "/demo");
  } else {
    fs::rename(added->tree + "/demo/__init__.py", outside + "/__init__.py");
    fs::create_symlink(outside + "/__init__.py", added->tree + "/demo/__init__.py");
  }
  const auto before = test::snapshot(outside);
  SECTION("find") {
    auto found = cache.find(wheel.sha256);
    REQUIRE(found.has_value());
    CHECK_FALSE(found->has_value());
  }
  SECTION("verify") {
    auto swept = cache.verify();
    REQUIRE(swept.has_value());
    REQUIRE(swept->removed.size() == 1);
    CHECK(swept->removed[0].reason.find("symbolic link") != std::string::npos);
  }
  CHECK(cache.list()->empty());
  CHECK(test::snapshot(outside) == before);
}

// A folder mounted into the cache is as foreign as a symlink; this file system says the
// entry is on another device.
class MountedEntry : public ForwardingFileSystem {
 public:
  MountedEntry(FileSystem& inner, std::string entry)
      : ForwardingFileSystem(inner), entry_(std::move(entry)) {}
  Result<FileInfo> stat(const std::string& path) const override {
    Result<FileInfo> info = ForwardingFileSystem::stat(path);
    if (info && path == entry_) info->device += 1;
    return info;
  }

 private:
  std::string entry_;
};

TEST_CASE("unpacked cache: an entry on another file system is neither used nor removed",
          "[install][cache][hardening]") {
  test::TempDir dir;
  RealFileSystem real;
  CachedWheel wheel = demo_wheel(dir.path());
  {
    UnpackedCache cache(real, dir.file("cache"));
    REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  }
  MountedEntry file_system(real, entry_of(UnpackedCache(real, dir.file("cache")), wheel));
  UnpackedCache cache(file_system, dir.file("cache"));
  const auto before = test::snapshot(entry_of(cache, wheel));
  auto found = cache.find(wheel.sha256);
  REQUIRE(found.has_value());
  CHECK_FALSE(found->has_value());
  // It cannot be replaced safely: the sync unpacks in the environment instead (a kIo error).
  auto added = cache.add(wheel.sha256, wheel.path, options_for(wheel), false);
  REQUIRE_FALSE(added.has_value());
  CHECK(added.error().code == ErrorCode::kIo);
  CHECK(added.error().message.find("another file system") != std::string::npos);
  auto pruned = cache.prune(0);
  REQUIRE_FALSE(pruned.has_value());
  CHECK(pruned.error().message.find("another file system") != std::string::npos);
  CHECK(test::snapshot(entry_of(cache, wheel)) == before);
}

TEST_CASE("unpacked cache: `unpacked-v1` or its lock file as a symlink is replaced, and what it "
          "points at is left as it was", "[install][cache][hardening]") {
  test::TempDir dir;
  RealFileSystem file_system;
  CachedWheel wheel = demo_wheel(dir.path());
  UnpackedCache cache(file_system, dir.file("cache"));
  REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
  const std::string outside = dir.file("outside");
  SECTION("unpacked-v1") {
    fs::rename(cache.root(), outside);  // a whole cache, entry and all
    fs::create_directory_symlink(outside, cache.root());
    std::ofstream(outside + "/.lock") << "";
  }
  SECTION("the lock file") {
    fs::create_directories(outside);
    std::ofstream(outside + "/lock") << "someone's file";
    fs::create_symlink(outside + "/lock", cache.root() + "/.lock");
  }
  const auto before = test::snapshot(outside);
  {
    auto lock = CacheLock::acquire(cache.root(), false);
    REQUIRE(lock.has_value());
    auto found = cache.find(wheel.sha256);
    REQUIRE(found.has_value());
    if (!*found) {
      REQUIRE(cache.add(wheel.sha256, wheel.path, options_for(wheel), false).has_value());
    }
  }
  CHECK_FALSE(fs::is_symlink(cache.root()));
  CHECK(fs::is_regular_file(fs::symlink_status(cache.root() + "/.lock")));
  CHECK(cache.list()->size() == 1);
  CHECK(test::snapshot(outside) == before);
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
