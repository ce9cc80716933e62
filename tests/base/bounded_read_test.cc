// FileSystem::read_file against files that are not what their name promises: symlinks to
// devices, FIFOs, folders, huge (sparse) files directly and behind symlinks, files right at the
// bound, and dangling symlinks. Each must be a clear error naming the path, never a hang or an
// allocation the size of the file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>

#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::ErrorCode;
using wv::Limit;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Restores every limit when the test ends, so a lowered one does not leak into other tests.
struct LimitReset {
  ~LimitReset() { wv::reset_limit_values(); }
};

}  // namespace

TEST_CASE("bounded read: a symlink to /dev/zero is refused, not read to exhaustion",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  const std::string link = dir.file("pyproject.toml");
  REQUIRE(::symlink("/dev/zero", link.c_str()) == 0);
  auto read = fs.read_file(link);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kInvalidInput);
  CHECK(read.error().message ==
        "cannot read `" + link + "`: it is a character device, not a regular file");
  // The device itself too.
  auto direct = fs.read_file("/dev/zero");
  REQUIRE_FALSE(direct);
  CHECK(contains(direct.error().message, "`/dev/zero`: it is a character device"));
}

TEST_CASE("bounded read: a FIFO is refused at once, directly or behind a symlink",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  const std::string fifo = dir.file("pylock.toml");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string link = dir.file("link.toml");
  REQUIRE(::symlink(fifo.c_str(), link.c_str()) == 0);
  for (const std::string& path : {fifo, link}) {
    INFO(path);
    // The read runs on its own thread with a timeout guard: if it ever blocks (waiting for a
    // writer in open() or read()), the test opens the FIFO for writing to release it and fails,
    // instead of hanging the whole suite.
    auto reading = std::async(std::launch::async, [path] { return wv::RealFileSystem().read_file(path); });
    if (reading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
      int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (writer >= 0) ::close(writer);
      FAIL("read_file blocked on a FIFO for 5 s");
    }
    auto read = reading.get();
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kInvalidInput);
    CHECK(read.error().message ==
          "cannot read `" + path + "`: it is a FIFO (named pipe), not a regular file");
  }
}

TEST_CASE("bounded read: a folder and a socket are refused naming what they are",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.create_directories(dir.file("index.html")));
  auto folder = fs.read_file(dir.file("index.html"));
  REQUIRE_FALSE(folder);
  CHECK(folder.error().code == ErrorCode::kInvalidInput);
  CHECK(folder.error().message ==
        "cannot read `" + dir.file("index.html") + "`: it is a folder, not a regular file");

  // A bound unix socket cannot be opened at all (ENXIO): still a refusal, not an I/O failure.
  const std::string socket_path = dir.file("s.sock");
  int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(server >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof address.sun_path);
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  auto socket = fs.read_file(socket_path);
  ::close(server);
  REQUIRE_FALSE(socket);
  CHECK(socket.error().code == ErrorCode::kInvalidInput);
  CHECK(contains(socket.error().message, "not a regular file"));
}

TEST_CASE("bounded read: a 10 GiB sparse file is refused before any byte is read",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  const std::string huge = dir.file("huge.toml");
  const std::uint64_t ten_gib = std::uint64_t{10} << 30;
  {
    int fd = ::open(huge.c_str(), O_WRONLY | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    const bool sized = ::ftruncate(fd, static_cast<off_t>(ten_gib)) == 0;  // a hole: no disk used
    ::close(fd);
    REQUIRE(sized);
  }
  auto read = fs.read_file(huge);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kLimit);
  CHECK(read.error().message == "file `" + huge +
                                    "` is 10737418240 bytes, over the input-file-bytes limit of "
                                    "67108864 bytes");
  REQUIRE(read.error().notes.size() == 1);
  CHECK(contains(read.error().notes[0], "WVLOCK_LIMIT_INPUT_FILE_BYTES=N"));
  // A caller's own limit is the one named.
  auto page = fs.read_file(huge, Limit::kPageBytes, 1000);
  REQUIRE_FALSE(page);
  CHECK(page.error().message ==
        "file `" + huge + "` is 10737418240 bytes, over the page-bytes limit of 1000 bytes");
}

TEST_CASE("bounded read: a huge file behind a symlink is bounded although stat sees the link",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  const std::string huge = dir.file("target.bin");
  {
    int fd = ::open(huge.c_str(), O_WRONLY | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    const bool sized = ::ftruncate(fd, static_cast<off_t>(std::uint64_t{10} << 30)) == 0;
    ::close(fd);
    REQUIRE(sized);
  }
  const std::string link = dir.file("index.json");
  REQUIRE(::symlink(huge.c_str(), link.c_str()) == 0);
  // What a caller's size pre-check sees: the link, a few bytes long.
  auto info = fs.stat(link);
  REQUIRE(info);
  CHECK(info->type == wv::FileType::kSymlink);
  CHECK(info->size == 0);
  auto read = fs.read_file(link, Limit::kPageBytes, 4096);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kLimit);
  CHECK(read.error().message ==
        "file `" + link + "` is 10737418240 bytes, over the page-bytes limit of 4096 bytes");
}

TEST_CASE("bounded read: a file exactly at the limit is read, one byte over is refused",
          "[base][bounded_read]") {
  LimitReset reset;
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  // Around the 64 KiB read buffer too, where an off-by-one would hide.
  for (std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{65536},
                              std::uint64_t{65537}, std::uint64_t{200000}}) {
    INFO("limit " << limit);
    const std::string at = dir.file("at"), over = dir.file("over");
    REQUIRE(fs.write_file_atomic(at, std::string(limit, 'a'), false));
    REQUIRE(fs.write_file_atomic(over, std::string(limit + 1, 'b'), false));
    auto exact = fs.read_file(at, Limit::kTomlBytes, limit);
    REQUIRE(exact);
    CHECK(exact->size() == limit);
    auto longer = fs.read_file(over, Limit::kTomlBytes, limit);
    REQUIRE_FALSE(longer);
    CHECK(longer.error().code == ErrorCode::kLimit);
    CHECK(longer.error().message == "file `" + over + "` is " + std::to_string(limit + 1) +
                                        " bytes, over the toml-bytes limit of " +
                                        std::to_string(limit) + " bytes");
    // The one-argument read follows the process-wide input-file-bytes value.
    wv::set_limit_value(Limit::kInputFileBytes, limit);
    CHECK(fs.read_file(at));
    auto defaulted = fs.read_file(over);
    REQUIRE_FALSE(defaulted);
    CHECK(contains(defaulted.error().message, "over the input-file-bytes limit of " +
                                                  std::to_string(limit) + " bytes"));
    wv::reset_limit_values();
  }
  // An empty file under any bound.
  REQUIRE(fs.write_file_atomic(dir.file("empty"), "", false));
  CHECK(*fs.read_file(dir.file("empty"), Limit::kTomlBytes, 1) == "");
}

TEST_CASE("bounded read: a file that says it is empty is still bounded while reading",
          "[base][bounded_read]") {
  wv::RealFileSystem fs;
  // /proc files are regular files whose stat size is 0: only the reads say how long they are.
  struct ::stat raw {};
  REQUIRE(::stat("/proc/self/status", &raw) == 0);
  REQUIRE(raw.st_size == 0);
  auto whole = fs.read_file("/proc/self/status");
  REQUIRE(whole);
  CHECK(contains(*whole, "Name:"));
  auto cut = fs.read_file("/proc/self/status", Limit::kPageBytes, 10);
  REQUIRE_FALSE(cut);
  CHECK(cut.error().code == ErrorCode::kLimit);
  CHECK(cut.error().message ==
        "file `/proc/self/status` is over the page-bytes limit of 10 bytes");
}

TEST_CASE("bounded read: a dangling symlink is kNotFound and says it is a link",
          "[base][bounded_read]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  const std::string link = dir.file("pylock.toml");
  REQUIRE(::symlink(dir.file("gone").c_str(), link.c_str()) == 0);
  auto read = fs.read_file(link);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kNotFound);
  CHECK(read.error().message ==
        "cannot read `" + link + "`: it is a symbolic link to a path that does not exist");
  // A plain missing file keeps its usual message.
  auto missing = fs.read_file(dir.file("absent"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(contains(missing.error().message, "No such file or directory"));
  // A symlink to a regular file reads through.
  REQUIRE(fs.write_file_atomic(dir.file("real"), "name = 'x'\n", false));
  REQUIRE(::symlink(dir.file("real").c_str(), dir.file("good").c_str()) == 0);
  CHECK(*fs.read_file(dir.file("good")) == "name = 'x'\n");
}

TEST_CASE("bounded read: input-file-bytes is a limit like the others", "[base][bounded_read]") {
  std::optional<Limit> found = wv::find_limit("input-file-bytes");
  REQUIRE(found);
  CHECK(*found == Limit::kInputFileBytes);
  CHECK(wv::limit_spec(Limit::kInputFileBytes).default_value == (std::uint64_t{64} << 20));
  CHECK(wv::limit_environment_variable(Limit::kInputFileBytes) == "WVLOCK_LIMIT_INPUT_FILE_BYTES");
  LimitReset reset;
  REQUIRE(wv::apply_limit_setting("input-file-bytes=1MiB"));
  CHECK(wv::limit_value(Limit::kInputFileBytes) == (std::uint64_t{1} << 20));
}
