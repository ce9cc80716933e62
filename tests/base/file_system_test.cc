#include <catch2/catch.hpp>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/file_system.h"
#include "tests/support/temp_dir.h"

TEST_CASE("file system: atomic write, read, list, rename, remove", "[base][file_system]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.create_directories(dir.file("a/b")));
  REQUIRE(fs.write_file_atomic(dir.file("a/b/x.txt"), "one"));
  REQUIRE(fs.write_file_atomic(dir.file("a/b/x.txt"), "two"));
  CHECK(*fs.read_file(dir.file("a/b/x.txt")) == "two");
  auto entries = fs.list_directory(dir.file("a/b"));
  REQUIRE(entries);
  REQUIRE(entries->size() == 1);  // no temporary file left behind
  CHECK((*entries)[0].name == "x.txt");
  CHECK(fs.stat(dir.file("a/b/x.txt"))->size == 3);
  // The last write time, in seconds since 1970: now, give or take the clock's granularity.
  const std::int64_t written = fs.stat(dir.file("a/b/x.txt"))->modified_unix_seconds;
  CHECK(std::abs(written - std::int64_t(std::time(nullptr))) <= 2);
  CHECK(fs.stat(dir.file("a"))->type == wv::FileType::kDirectory);
  REQUIRE(fs.rename(dir.file("a/b/x.txt"), dir.file("a/y.txt")));
  CHECK_FALSE(fs.exists(dir.file("a/b/x.txt")));
  REQUIRE(fs.remove(dir.file("a/y.txt")));
  CHECK(fs.remove(dir.file("a/y.txt")).has_value());
}

TEST_CASE("file system: failures are values naming the path", "[base][file_system]") {
  wv::RealFileSystem fs;
  auto missing = fs.read_file("/nonexistent/wvlock/file");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == wv::ErrorCode::kNotFound);
  CHECK(missing.error().message.find("/nonexistent/wvlock/file") != std::string::npos);
  CHECK(fs.stat("/nonexistent/wvlock").error().code == wv::ErrorCode::kNotFound);
  CHECK_FALSE(fs.write_file_atomic("/nonexistent/wvlock/file", "x"));
  auto moved = fs.rename("/nonexistent/wvlock/a", "/nonexistent/wvlock/b");
  REQUIRE_FALSE(moved);
  CHECK(moved.error().code == wv::ErrorCode::kNotFound);
  CHECK(moved.error().message ==
        "cannot rename `/nonexistent/wvlock/a` to `/nonexistent/wvlock/b`: No such file or directory");
  CHECK(fs.content_sha256("/nonexistent/wvlock/file").error().code == wv::ErrorCode::kNotFound);
}

TEST_CASE("file system: content_sha256 hashes what a path ends at", "[base][file_system]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("x.txt"), "abc"));
  REQUIRE(::symlink("x.txt", dir.file("link").c_str()) == 0);
  const std::string abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  CHECK(*fs.content_sha256(dir.file("x.txt")) == abc);
  CHECK(*fs.content_sha256(dir.file("link")) == abc);
  wv::ForwardingFileSystem forwarding(fs);
  CHECK(*forwarding.content_sha256(dir.file("x.txt")) == abc);
}

TEST_CASE("file system: path helpers", "[base][file_system]") {
  CHECK(wv::path_join("a", "b") == "a/b");
  CHECK(wv::path_join("a/", "b") == "a/b");
  CHECK(wv::path_join("a", "/b") == "/b");
  // Paths print as a user writes them: no `./` in front.
  CHECK(wv::path_join(".", "pylock.toml") == "pylock.toml");
  CHECK(wv::path_join(".", "../generated/simple") == "../generated/simple");
  CHECK(wv::path_join("a", "./b") == "a/b");
  CHECK(wv::path_join(".", ".") == ".");
  CHECK(wv::path_parent("a/b/c") == "a/b");
  CHECK(wv::path_parent("c") == ".");
  CHECK(wv::path_filename("a/b/c.whl") == "c.whl");
}

TEST_CASE("file system: absolute_path is std::filesystem's normal absolute path",
          "[base][file_system]") {
  // The already-normal shortcut and the std::filesystem road agree, trailing slashes dropped.
  for (const char* path : {"/", "/a", "/a/", "/a/b/c", "/a//b", "/a/./b", "/a/../b", "/a/b/..",
                           "/a/b/.", "//a", "/a/b//", "/.hidden/x", "/a-b_c.d/e f"}) {
    INFO(path);
    std::string expected =
        std::filesystem::path(path).lexically_normal().generic_string();
    while (expected.size() > 1 && expected.back() == '/') expected.pop_back();
    CHECK(wv::absolute_path(path) == expected);
  }
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
  CHECK(wv::absolute_path("x/../y") == std::string(cwd) + "/y");
  // Relative paths: the plain ones are joined to the working folder without std::filesystem.
  for (const char* path : {".venv", "a/b", "a/", "a//b", "./a", "a/./b", "a/..", "..", ".",
                           "a/b/", "-x y/z"}) {
    INFO(path);
    std::string expected =
        std::filesystem::absolute(path).lexically_normal().generic_string();
    while (expected.size() > 1 && expected.back() == '/') expected.pop_back();
    CHECK(wv::absolute_path(path) == expected);
  }
}

TEST_CASE("file system: stat gives the identity and the mtime in nanoseconds", "[base][file_system]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.create_directories(dir.file("folder")));
  REQUIRE(fs.write_file_atomic(dir.file("folder/x"), "abc"));
  auto folder = fs.stat(dir.file("folder"));
  auto file = fs.stat(dir.file("folder/x"));
  REQUIRE(folder);
  REQUIRE(file);
  CHECK(folder->inode != file->inode);
  CHECK(folder->device == file->device);
  CHECK(folder->modified_ns / 1000000000 == folder->modified_unix_seconds);
  // Through a symlink: stat() describes the link, stat_followed() the folder it names.
  REQUIRE(::symlink(dir.file("folder").c_str(), dir.file("link").c_str()) == 0);
  CHECK(fs.stat(dir.file("link"))->type == wv::FileType::kSymlink);
  auto followed = fs.stat_followed(dir.file("link"));
  REQUIRE(followed);
  CHECK(followed->type == wv::FileType::kDirectory);
  CHECK(followed->inode == folder->inode);
  CHECK(followed->modified_ns == folder->modified_ns);
  CHECK(fs.stat_followed(dir.file("folder/x"))->size == 3);
  // Adding an entry moves the folder's mtime (what a find-links digest relies on).
  REQUIRE(::utimensat(AT_FDCWD, dir.file("folder").c_str(), nullptr, 0) == 0);
  const std::int64_t before = fs.stat(dir.file("folder"))->modified_ns;
  struct timespec times[2] = {{1000, 0}, {1000, 0}};
  REQUIRE(::utimensat(AT_FDCWD, dir.file("folder").c_str(), times, 0) == 0);
  CHECK(fs.stat(dir.file("folder"))->modified_ns == 1000LL * 1000000000);
  REQUIRE(fs.write_file_atomic(dir.file("folder/y"), "d"));
  CHECK(fs.stat(dir.file("folder"))->modified_ns >= before);
  CHECK(fs.stat_followed(dir.file("missing")).error().code == wv::ErrorCode::kNotFound);
}
