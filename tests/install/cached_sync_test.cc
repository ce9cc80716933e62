// A sync with the unpacked-wheel cache (SyncOptions::cache_dir), on real wheels and real venvs:
// a second environment links the first one's extracted files (the wheel itself is not read
// again), link modes place what they say, --reinstall extracts anew, a file edited through a
// hard link is noticed, and --compile-bytecode's .pyc files are real, listed and named for the
// installed path.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "src/base/sha256.h"
#include "cache_probe.h"
#include "src/install/sync.h"
#include "src/install/unpacked_cache.h"
#include "src/pkg/wheel_filename.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelEntry;
using test::WheelSpec;

lock::Lockfile lock_of(const std::vector<lock::LockedFile>& files) { return test::lock_of_wheels(files); }

WheelSpec gamma_wheel() {
  WheelSpec spec;
  spec.name = "gamma";
  spec.version = "1.0";
  spec.entry_points = "[console_scripts]\ngamma-run = gamma:main\n";
  spec.files = {WheelEntry("gamma/__init__.py", "def main():\n    print('gamma ran')\n    return 0\n"),
                WheelEntry("gamma/sub/mod.py", "VALUE = 42\n"),
                WheelEntry("gamma/broken.py", "def (:\n"),  // does not compile
                WheelEntry("gamma/blob.bin", std::string(300000, 'b')),
                WheelEntry("gamma-1.0.data/scripts/gamma-tool", "#!python\nprint('tool')\n", true)};
  return spec;
}

std::string run(const std::string& command) { return test::run_checked(command); }

struct Cached {
  test::TempDir dir;
  std::string cache = dir.file("cache");
  std::string wheel_path = test::build_wheel(gamma_wheel(), dir.file("wheels"));
  lock::Lockfile lockfile = lock_of({test::locked_file(wheel_path)});
  LocalWheelStore store{""};

  Result<SyncReport> sync_into_venv(const std::string& name, SyncOptions options = {}) {
    options.venv = dir.file(name);
    options.cache_dir = cache;
    return sync(options, lockfile, test::live_host(), store);
  }
  std::string site(const std::string& name) {
    auto facts = read_interpreter(dir.file(name));
    REQUIRE(facts.has_value());
    return dir.file(name) + "/" + facts->scheme.purelib;
  }
  std::string entry_tree() {
    return cache + "/unpacked-v1/" + lockfile.packages[0].wheels[0].sha256.substr(0, 2) + "/" +
           lockfile.packages[0].wheels[0].sha256 + "/files";
  }
};

std::uint64_t inode_of(const std::string& path) {
  RealFileSystem file_system;
  return file_system.stat(path).value().inode;
}

TEST_CASE("cached sync: a second environment links the extracted files and never reads the wheel",
          "[install][cache]") {
  Cached env;
  auto first = env.sync_into_venv("one");
  REQUIRE(first.has_value());
  CHECK(first->extracted == 1);
  CHECK(first->cache_hits == 0);
  // The wheel goes: a warm sync must not need it.
  fs::rename(env.wheel_path, env.wheel_path + ".gone");
  auto second = env.sync_into_venv("two");
  REQUIRE(second.has_value());
  CHECK(second->cache_hits == 1);
  CHECK(second->extracted == 0);
  CHECK(run(env.dir.file("two") + "/bin/gamma-run") == "gamma ran\n");
  CHECK(run(env.dir.file("two") + "/bin/gamma-tool") == "tool\n");
  // On one file system without reflinks the module is the cache's own file; a launcher and the
  // rewritten script are written per environment.
  const std::string module = env.site("two") + "/gamma/sub/mod.py";
  if (second->links.hardlinked > 0) {
    CHECK(inode_of(module) == inode_of(env.entry_tree() + "/gamma/sub/mod.py"));
    CHECK(inode_of(env.site("one") + "/gamma/sub/mod.py") == inode_of(module));
  }
  CHECK(second->links.hardlinked + second->links.cloned + second->links.copied == 7);  // 4 modules, METADATA, WHEEL, entry_points.txt
  CHECK(inode_of(env.dir.file("two") + "/bin/gamma-tool") !=
        inode_of(env.entry_tree() + "/gamma-1.0.data/scripts/gamma-tool"));
  std::ifstream tool(env.dir.file("two") + "/bin/gamma-tool");
  std::string shebang;
  std::getline(tool, shebang);
  CHECK(shebang == "#!" + env.dir.file("two") + "/bin/python");
  // --reinstall extracts anew: without the wheel it cannot, and says so; the environment stays.
  SyncOptions reinstall;
  reinstall.reinstall = true;
  auto refused = env.sync_into_venv("two", reinstall);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().to_string().find("nothing was changed") != std::string::npos);
  CHECK(run(env.dir.file("two") + "/bin/gamma-run") == "gamma ran\n");
  fs::rename(env.wheel_path + ".gone", env.wheel_path);
  auto renewed = env.sync_into_venv("two", reinstall);
  REQUIRE(renewed.has_value());
  CHECK(renewed->extracted == 1);
}

TEST_CASE("cached sync: a cache folder that cannot be made costs speed, not the sync",
          "[install][cache]") {
  Cached env;
  std::ofstream(env.dir.file("not-a-folder")) << "a file where the cache would go";
  env.cache = env.dir.file("not-a-folder") + "/cache";
  auto synced = env.sync_into_venv("venv");
  REQUIRE(synced.has_value());
  CHECK(synced->cache_hits == 0);
  CHECK(synced->extracted == 0);
  CHECK(run(env.dir.file("venv") + "/bin/gamma-run") == "gamma ran\n");
}

TEST_CASE("cached sync: an entry swapped for a symlink to a folder outside the cache is not used, "
          "written or linked from", "[install][cache][hardening]") {
  Cached env;
  SyncOptions copy;  // copies: the entry's files keep one link each
  copy.link_mode = LinkMode::kCopy;
  REQUIRE(env.sync_into_venv("one", copy).has_value());
  // The entry moves out whole (sizes and mtimes kept, so every per-file check still passes)
  // and a symlink takes its place.
  const std::string entry = path_parent(env.entry_tree());
  const std::string outside = env.dir.file("outside");
  fs::rename(entry, outside);
  fs::remove(outside + "/used");  // so a `used` written there would show
  fs::create_directory_symlink(outside, entry);
  const auto before = test::snapshot(outside);
  test::StderrCapture stderr_text(env.dir.file("stderr"));
  auto synced = env.sync_into_venv("two");
  const std::string warnings = stderr_text.text();
  REQUIRE(synced.has_value());
  CHECK(synced->cache_hits == 0);
  CHECK(synced->extracted == 1);
  CHECK(warnings.find("symbolic link") != std::string::npos);
  CHECK(run(env.dir.file("two") + "/bin/python -c 'import gamma.sub.mod as m; print(m.VALUE)'") ==
        "42\n");
  CHECK(test::snapshot(outside) == before);
  CHECK_FALSE(fs::exists(outside + "/used"));
  for (const char* member : {"gamma/__init__.py", "gamma/sub/mod.py", "gamma/blob.bin"}) {
    INFO(member);
    CHECK(fs::hard_link_count(outside + "/files/" + member) == 1);
    CHECK(inode_of(env.site("two") + "/" + member) != inode_of(outside + "/files/" + member));
  }
  // A fresh entry took the symlink's place.
  CHECK_FALSE(fs::is_symlink(entry));
  CHECK(fs::is_directory(env.entry_tree()));
}

TEST_CASE("cached sync: --link-mode copy shares nothing with the cache", "[install][cache]") {
  Cached env;
  SyncOptions copy;
  copy.link_mode = LinkMode::kCopy;
  auto synced = env.sync_into_venv("venv", copy);
  REQUIRE(synced.has_value());
  CHECK(synced->links.copied == 7);
  CHECK(synced->links.hardlinked == 0);
  CHECK(inode_of(env.site("venv") + "/gamma/sub/mod.py") !=
        inode_of(env.entry_tree() + "/gamma/sub/mod.py"));
  CHECK(run(env.dir.file("venv") + "/bin/python -c 'import gamma.sub.mod as m; print(m.VALUE)'") ==
        "42\n");
}

TEST_CASE("cached sync: a module edited through a hard link is extracted again for the next "
          "environment", "[install][cache]") {
  Cached env;
  auto first = env.sync_into_venv("one");
  REQUIRE(first.has_value());
  if (first->links.hardlinked == 0) WARN("no hard links here: nothing is shared to edit");
  {
    std::ofstream edit(env.site("one") + "/gamma/sub/mod.py", std::ios::app);
    edit << "VALUE = 0  # edited in place\n";
  }
  auto second = env.sync_into_venv("two");
  REQUIRE(second.has_value());
  if (first->links.hardlinked > 0) CHECK(second->extracted == 1);
  CHECK(run(env.dir.file("two") + "/bin/python -c 'import gamma.sub.mod as m; print(m.VALUE)'") ==
        "42\n");
}

TEST_CASE("cached sync: --compile-bytecode writes .pyc files named for the installed path and "
          "lists them in RECORD", "[install][cache][bytecode]") {
  Cached env;
  SyncOptions compile;
  compile.compile_bytecode = true;
  auto synced = env.sync_into_venv("venv", compile);
  REQUIRE(synced.has_value());
  const std::string site = env.site("venv");
  std::string pyc;
  for (const auto& entry : fs::directory_iterator(site + "/gamma/sub/__pycache__")) {
    pyc = entry.path().string();
  }
  REQUIRE_FALSE(pyc.empty());
  // The code object names the installed module, not the staging folder it was compiled in.
  std::ofstream(env.dir.file("name.py"))
      << "import marshal, sys\ncode = marshal.loads(open(sys.argv[1], 'rb').read()[16:])\n"
         "print(code.co_filename)\n";
  CHECK(run(env.dir.file("venv") + "/bin/python " + env.dir.file("name.py") + " " + pyc) ==
        site + "/gamma/sub/mod.py\n");
  // RECORD lists every .pyc with its hash; the module that does not compile has none.
  std::ifstream record(site + "/gamma-1.0.dist-info/RECORD");
  std::string text((std::istreambuf_iterator<char>(record)), {});
  const std::string rel = fs::path(pyc).lexically_relative(site).generic_string();
  CHECK(text.find(rel + ",sha256=" + sha256_record_digest([&] {
                    std::ifstream in(pyc, std::ios::binary);
                    return std::string((std::istreambuf_iterator<char>(in)), {});
                  }()).substr(7)) != std::string::npos);
  CHECK(text.find("broken.cpython") == std::string::npos);
  CHECK(text.find("__pycache__/__init__.cpython") != std::string::npos);
  // Python uses the .pyc as it is: importing writes nothing new.
  auto before = fs::last_write_time(pyc);
  CHECK(run(env.dir.file("venv") + "/bin/python -c 'import gamma.sub.mod'") == "");
  CHECK(fs::last_write_time(pyc) == before);
  // Without the flag, no byte code.
  auto plain = env.sync_into_venv("plain");
  REQUIRE(plain.has_value());
  CHECK_FALSE(fs::exists(env.site("plain") + "/gamma/sub/__pycache__"));
}

TEST_CASE("cached sync: a new package folder moves in with one rename, and a failed move of it "
          "leaves nothing behind", "[install][cache][safety]") {
  test::TempDir dir;
  WheelSpec spec;
  spec.name = "many";
  spec.version = "1.0";
  for (int i = 0; i < 40; ++i) {
    spec.files.push_back(WheelEntry("many/sub" + std::to_string(i % 4) + "/m" + std::to_string(i) +
                                        ".py",
                                    "X = " + std::to_string(i) + "\n"));
  }
  lock::Lockfile lockfile = lock_of({test::locked_file(test::build_wheel(spec, dir.file("wheels")))});
  LocalWheelStore store{""};
  RealFileSystem real;
  SyncOptions options;
  options.venv = dir.file("venv");
  options.cache_dir = dir.file("cache");
  // The second rename fails both times: with an empty cache it is the first move of the commit
  // (the first publishes the cache entry); with the entry there, the second move, after
  // `many/` moved in whole, which the roll back must take out again.
  run("python3 -m venv --without-pip '" + dir.file("venv") + "'");
  auto listing = [&] {
    std::vector<std::string> paths;
    for (const auto& entry : fs::recursive_directory_iterator(dir.file("venv"))) {
      paths.push_back(entry.path().string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  const std::vector<std::string> before = listing();
  for (int allowed : {1, 1}) {
    test::FaultyFileSystem failing(real, allowed);
    options.file_system = &failing;
    auto failed = sync(options, lockfile, test::live_host(), store);
    INFO("renames " << failing.renames());
    REQUIRE_FALSE(failed.has_value());
    CHECK(failed.error().to_string().find("restored") != std::string::npos);
    std::vector<std::string> after = listing();
    after.erase(std::remove_if(after.begin(), after.end(),
                               [](const std::string& path) {
                                 return path.find(".wvlock") != std::string::npos;
                               }),
                after.end());
    CHECK(after == before);
  }
  test::FaultyFileSystem counting(real, -1);
  options.file_system = &counting;
  auto synced = sync(options, lockfile, test::live_host(), store);
  REQUIRE(synced.has_value());
  // The cache entry's publication, then `many/` and `many-1.0.dist-info/` whole: not 44 moves.
  CHECK(counting.renames() <= 4);
  CHECK(run(dir.file("venv") + "/bin/python -c 'import many.sub3.m39 as m; print(m.X)'") == "39\n");
}

}  // namespace
}  // namespace wv::install
