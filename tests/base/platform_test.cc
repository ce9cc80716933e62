#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <string>

#include "src/base/file_system.h"
#include "src/base/platform.h"
#include "tests/support/temp_dir.h"

namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("platform: a clone has the source's bytes, or says why the file system has none",
          "[base][platform]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("from"), "cloned bytes"));
  const int from = ::open(dir.file("from").c_str(), O_RDONLY | O_CLOEXEC);
  const int to = ::open(dir.file("to").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  REQUIRE(from >= 0);
  REQUIRE(to >= 0);
  const int code = wv::platform::clone_file(from, to, dir.file("to").c_str());
  ::close(from);
  ::close(to);
  if (code == 0) {
    CHECK(*fs.read_file(dir.file("to")) == "cloned bytes");
  } else {
    // ext4 and tmpfs have no clones: the refusal is one the caller falls back on.
    CHECK((code == EOPNOTSUPP || code == EXDEV || code == EINVAL || code == ENOTTY ||
           code == ENOSYS || code == ENOTSUP));
  }
}

TEST_CASE("platform: the kernel copy and the flushes", "[base][platform]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("from"), std::string(100000, 'x') + "end"));
  const int from = ::open(dir.file("from").c_str(), O_RDONLY | O_CLOEXEC);
  const int to = ::open(dir.file("to").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  REQUIRE(from >= 0);
  REQUIRE(to >= 0);
  long long total = 0;
  for (long long got = 1; got > 0; total += got) {
    got = wv::platform::copy_range(from, to, 4096);
    REQUIRE(got >= 0);
    CHECK(got <= 4096);
  }
  CHECK(total == 100003);
  CHECK(wv::platform::sync_file(to) == 0);
  CHECK(wv::platform::sync_file_system(to) == 0);
  ::close(from);
  ::close(to);
  CHECK(*fs.read_file(dir.file("to")) == std::string(100000, 'x') + "end");
  CHECK(wv::platform::sync_file(-1) == -1);  // a failure is reported, not ignored
}

TEST_CASE("platform: two folders swap names in one step", "[base][platform]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.create_directories(dir.file("a")));
  REQUIRE(fs.create_directories(dir.file("b")));
  REQUIRE(fs.write_file_atomic(dir.file("a/was-a"), ""));
  REQUIRE(fs.write_file_atomic(dir.file("b/was-b"), ""));
  REQUIRE(wv::platform::exchange_paths(dir.file("a").c_str(), dir.file("b").c_str()) == 0);
  CHECK(fs.exists(dir.file("a/was-b")));
  CHECK(fs.exists(dir.file("b/was-a")));
  CHECK(wv::platform::exchange_paths(dir.file("a").c_str(), dir.file("absent").c_str()) == -1);
  CHECK(errno == ENOENT);
}

TEST_CASE("platform: the modification time in nanoseconds", "[base][platform]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("f"), "x"));
  struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 123456789}};
  REQUIRE(::utimensat(AT_FDCWD, dir.file("f").c_str(), times, 0) == 0);
  struct ::stat info {};
  REQUIRE(::stat(dir.file("f").c_str(), &info) == 0);
  CHECK(wv::platform::modified_ns(info) == 1700000000LL * 1'000'000'000 + 123456789);
  CHECK(fs.stat(dir.file("f"))->modified_ns == 1700000000LL * 1'000'000'000 + 123456789);
}

TEST_CASE("platform: where interpreters are installed", "[base][platform]") {
  const wv::platform::InterpreterPlaces places = wv::platform::interpreter_places("/home/u");
  CHECK(contains(places.folders, "/usr/bin"));
  CHECK(contains(places.folders, "/usr/local/bin"));
  CHECK(contains(places.installation_roots, "/home/u/.pyenv/versions"));
  CHECK(contains(places.installation_roots, "/home/u/.local/share/uv/python"));
  CHECK(places.described.find("~/.pyenv/versions/*/bin") != std::string::npos);
#if defined(__APPLE__)
  CHECK(contains(places.folders, "/opt/homebrew/bin"));
  CHECK(contains(places.installation_roots, "/Library/Frameworks/Python.framework/Versions"));
#else
  CHECK(places.folders == std::vector<std::string>{"/usr/bin", "/usr/local/bin"});
#endif
  // Without a home folder, nothing under it is looked in.
  for (const std::string& root : wv::platform::interpreter_places("").installation_roots) {
    CHECK(root.find(".pyenv") == std::string::npos);
    CHECK(root.find("/uv/") == std::string::npos);
  }
}
