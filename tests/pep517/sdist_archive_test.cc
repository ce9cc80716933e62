// Sdist archives made at test time with Python's tarfile and zipfile (and GNU tar): read,
// unpacked, and every hostile member refused without a byte written outside the destination.
#include "src/pep517/sdist_archive.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/base/limits.h"
#include "src/base/str.h"
#include "tests/support/temp_dir.h"

namespace wv::build {
namespace {

namespace fs = std::filesystem;

// What every archive script may use: add(tar, name, data, mode=, type=, link=),
// symlink(tar, name, target), sdist(format) (a .tar.gz at `out`), PKG_INFO (kPkgInfo).
constexpr std::string_view kPrelude = R"PY(
import gzip, io, sys, tarfile, zipfile
out = sys.argv[1]
def add(tar, name, data=b"", mode=0o644, type=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = type, mode, link
    info.size = len(data) if type == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if type == tarfile.REGTYPE else None)
def symlink(tar, name, target):
    add(tar, name, type=tarfile.SYMTYPE, link=target)
PKG_INFO = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
def sdist(format=tarfile.PAX_FORMAT):
    return tarfile.open(out, "w:gz", format=format)
)PY";

constexpr std::string_view kPkgInfo = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A folder holding one archive made by a Python script, and room to unpack it.
struct Archive {
  test::TempDir dir;
  std::string path;
  std::string destination = dir.file("unpacked");

  Archive(std::string_view name, std::string_view script) : path(dir.file(std::string(name))) {
    const std::string script_path = dir.file("make_archive.py");
    std::ofstream(script_path) << kPrelude << script;
    REQUIRE(std::system(str_cat(WV_TEST_PYTHON, " ", script_path, " ", path).c_str()) == 0);
    fs::remove(script_path);
  }

  /// What the folder holds besides the archive (nothing may be left by a refused unpack).
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      if (entry.path().string() != path) names.push_back(entry.path().filename().string());
    }
    return names;
  }
};

/// Unpacking `archive` is refused with an error naming `member`, and leaves nothing.
void check_refused(const Archive& archive, std::string_view member) {
  auto unpacked = unpack_sdist(archive.path, archive.destination);
  REQUIRE_FALSE(unpacked.has_value());
  INFO(unpacked.error().to_string());
  CHECK(unpacked.error().message.find(in_backticks(member)) != std::string::npos);
  CHECK(unpacked.error().message.find(archive.path) != std::string::npos);
  CHECK(archive.leftovers().empty());
  // Reading PKG-INFO checks the same members.
  CHECK_FALSE(read_sdist_pkg_info(archive.path).has_value());
}

/// Reads PKG-INFO (it must be kPkgInfo) and unpacks `archive`; returns the source tree.
std::string read_and_unpack(const Archive& archive) {
  auto pkg_info = read_sdist_pkg_info(archive.path);
  REQUIRE(pkg_info.has_value());
  CHECK(*pkg_info == kPkgInfo);
  auto tree = unpack_sdist(archive.path, archive.destination);
  REQUIRE(tree.has_value());
  CHECK(*tree == archive.destination + "/demo-1.0");
  CHECK(read_file(*tree + "/PKG-INFO") == kPkgInfo);
  return *tree;
}

/// Unpacking `archive` fails with an error naming it and saying `why`, and leaves nothing.
void check_broken(const Archive& archive, std::string_view why) {
  auto unpacked = unpack_sdist(archive.path, archive.destination);
  REQUIRE_FALSE(unpacked.has_value());
  CHECK(unpacked.error().message.find(why) != std::string::npos);
  CHECK(unpacked.error().message.find(archive.path) != std::string::npos);
  CHECK(archive.leftovers().empty());
}

bool executable(const std::string& path) {
  struct stat info{};
  return ::stat(path.c_str(), &info) == 0 && (info.st_mode & S_IXUSR);
}

mode_t mode_of(const std::string& path) {
  struct stat info{};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

TEST_CASE("a .tar.gz sdist: PKG-INFO, then the tree unpacked with links and modes") {
  Archive archive("demo-1.0.tar.gz", R"PY(
with sdist() as tar:
    add(tar, "demo-1.0", type=tarfile.DIRTYPE, mode=0o755)
    add(tar, "demo-1.0/PKG-INFO", PKG_INFO)
    add(tar, "demo-1.0/README", b"read me\n")
    add(tar, "demo-1.0/src/demo/__init__.py", b"VALUE = 1\n")
    add(tar, "demo-1.0/bin/tool", b"#!/bin/sh\n", mode=0o755)
    add(tar, "demo-1.0/bin/setuid", b"#!/bin/sh\n", mode=0o4777)
    add(tar, "demo-1.0/empty", type=tarfile.DIRTYPE)
    add(tar, "demo-1.0/docs/README", type=tarfile.SYMTYPE, link="../README")
    add(tar, "demo-1.0/COPY", type=tarfile.LNKTYPE, link="demo-1.0/README")
    add(tar, "demo-1.0/COPY2", type=tarfile.LNKTYPE, link="demo-1.0/COPY")
)PY");
  const std::string tree = read_and_unpack(archive);
  CHECK(read_file(tree + "/src/demo/__init__.py") == "VALUE = 1\n");
  CHECK(fs::is_directory(tree + "/empty"));
  CHECK(fs::is_symlink(tree + "/docs/README"));
  CHECK(read_file(tree + "/docs/README") == "read me\n");
  CHECK_FALSE(fs::is_symlink(tree + "/COPY"));
  CHECK(read_file(tree + "/COPY") == "read me\n");
  CHECK(read_file(tree + "/COPY2") == "read me\n");
  CHECK(executable(tree + "/bin/tool"));
  CHECK_FALSE(executable(tree + "/README"));
  CHECK((mode_of(tree + "/bin/setuid") & 07000) == 0);
  CHECK(archive.leftovers() == std::vector<std::string>{"unpacked"});

  // The destination must not exist.
  auto again = unpack_sdist(archive.path, archive.destination);
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().message.find("already exists") != std::string::npos);
}

TEST_CASE("a .zip sdist is read and unpacked; a zip symlink is refused") {
  Archive archive("demo-1.0.zip", R"PY(
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("demo-1.0/", "")
    z.writestr("demo-1.0/PKG-INFO", PKG_INFO)
    tool = zipfile.ZipInfo("demo-1.0/bin/tool")
    tool.external_attr = 0o100755 << 16
    z.writestr(tool, "#!/bin/sh\n")
    z.writestr("demo-1.0/setup.py", "print('x')\n" * 1000)
)PY");
  const std::string tree = read_and_unpack(archive);
  CHECK(read_file(tree + "/setup.py").size() == 11000);
  CHECK(executable(tree + "/bin/tool"));
  CHECK_FALSE(executable(tree + "/setup.py"));

  Archive link("demo-1.0.zip", R"PY(
with zipfile.ZipFile(out, "w") as z:
    z.writestr("demo-1.0/PKG-INFO", "Name: demo\n")
    link = zipfile.ZipInfo("demo-1.0/etc")
    link.external_attr = 0o120777 << 16
    z.writestr(link, "/etc")
)PY");
  check_refused(link, "demo-1.0/etc");
}

TEST_CASE("long member names: GNU, pax, the ustar prefix, GNU tar itself") {
  const std::string deep = "demo-1.0/" + std::string(60, 'a') + "/" + std::string(60, 'b') +
                           "/" + std::string(50, 'c') + ".py";
  const std::string link = std::string(60, 'd') + "/" + std::string(60, 'l');
  for (std::string_view format : {"GNU_FORMAT", "PAX_FORMAT", "USTAR_FORMAT"}) {
    INFO(format);
    Archive archive("demo-1.0.tar.gz", str_cat(R"PY(
with sdist(tarfile.)PY", format, R"PY() as tar:
    add(tar, "demo-1.0/PKG-INFO", b"Name: demo\n")
    add(tar, ")PY", deep, R"PY(", b"long\n", type=tarfile.REGTYPE)
    add(tar, "demo-1.0/)PY", link, R"PY(", type=tarfile.SYMTYPE, link="../PKG-INFO")
)PY"));
    auto tree = unpack_sdist(archive.path, archive.destination);
    REQUIRE(tree.has_value());
    CHECK(read_file(archive.destination + "/" + deep) == "long\n");
    CHECK(read_file(*tree + "/" + link) == "Name: demo\n");
  }
  // GNU tar's own archive: `./` prefixes, a ././@LongLink member.
  test::TempDir dir;
  const std::string long_file = dir.file("demo-1.0/" + std::string(150, 'x'));
  fs::create_directories(dir.file("demo-1.0"));
  std::ofstream(dir.file("demo-1.0/PKG-INFO")) << "Name: demo\n";
  std::ofstream(long_file) << "gnu\n";
  REQUIRE(std::system(str_cat("tar --format=gnu -C ", dir.path(), " -czf ", dir.file("gnu.tar.gz"),
                              " ./demo-1.0").c_str()) == 0);
  CHECK(read_sdist_pkg_info(dir.file("gnu.tar.gz")).value_or("") == "Name: demo\n");
  auto tree = unpack_sdist(dir.file("gnu.tar.gz"), dir.file("out"));
  REQUIRE(tree.has_value());
  CHECK(read_file(*tree + "/" + std::string(150, 'x')) == "gnu\n");
}

TEST_CASE("hostile members are refused, naming the member, and nothing is written") {
  struct Case {
    std::string_view what;
    std::string_view member;  ///< the member the error names
    std::string_view adds;    ///< Python: the members after demo-1.0/PKG-INFO
  };
  const Case cases[] = {
      {"a `..` component", "demo-1.0/../../evil", "add(tar, 'demo-1.0/../../evil', b'x')"},
      {"`..` alone", "../evil", "add(tar, '../evil', b'x')"},
      {"an absolute path", "/tmp/wvlock-evil", "add(tar, '/tmp/wvlock-evil', b'x')"},
      {"a symlink to /etc", "demo-1.0/etc", "symlink(tar, 'demo-1.0/etc', '/etc')"},
      {"a relative symlink out of the tree", "demo-1.0/up",
       "symlink(tar, 'demo-1.0/up', '../../up')"},
      {"links that leave the tree only together", "demo-1.0/out",
       "symlink(tar, 'demo-1.0/a/deep', '..'); symlink(tar, 'demo-1.0/out', 'a/deep/..')"},
      {"a hard link to a path outside", "demo-1.0/passwd",
       "add(tar, 'demo-1.0/passwd', type=tarfile.LNKTYPE, link='/etc/passwd')"},
      {"a hard link to itself", "demo-1.0/self",
       "add(tar, 'demo-1.0/self', type=tarfile.LNKTYPE, link='demo-1.0/self')"},
      {"a symlink loop", "demo-1.0/loop", "symlink(tar, 'demo-1.0/loop', 'loop')"},
      {"a file through a symlink", "demo-1.0/link/file",
       "symlink(tar, 'demo-1.0/link', 'sub'); add(tar, 'demo-1.0/link/file', b'x')"},
      {"a file turned into a folder", "demo-1.0/setup.py/x",
       "add(tar, 'demo-1.0/setup.py', b'x'); add(tar, 'demo-1.0/setup.py/x', b'x')"},
      {"a file twice", "demo-1.0/setup.py",
       "add(tar, 'demo-1.0/setup.py', b'x'); add(tar, 'demo-1.0/setup.py', b'y')"},
      {"two top-level folders", "other-1.0/setup.py", "add(tar, 'other-1.0/setup.py', b'x')"},
      {"a file at the top level", "setup.py", "add(tar, 'setup.py', b'x')"},
      {"a FIFO", "demo-1.0/fifo", "add(tar, 'demo-1.0/fifo', type=tarfile.FIFOTYPE)"},
      {"a device", "demo-1.0/null", "add(tar, 'demo-1.0/null', type=tarfile.CHRTYPE)"},
  };
  for (const Case& each : cases) {
    INFO(each.what);
    Archive archive("demo-1.0.tar.gz", str_cat(R"PY(
with sdist() as tar:
    add(tar, "demo-1.0/PKG-INFO", b"Name: demo\n")
    )PY", each.adds, "\n"));
    check_refused(archive, each.member);
  }
  CHECK_FALSE(fs::exists("/tmp/wvlock-evil"));
}

TEST_CASE("broken archives are errors naming the archive") {
  SECTION("a truncated gzip stream") {
    Archive archive("demo-1.0.tar.gz", R"PY(
import os
with sdist() as tar:
    add(tar, "demo-1.0/PKG-INFO", b"Name: demo\n")
    add(tar, "demo-1.0/data.bin", os.urandom(100000))
with open(out, "r+b") as file:
    file.truncate(os.path.getsize(out) // 2)
)PY");
    check_broken(archive, "is truncated");
  }
  SECTION("a header with a bad checksum") {
    Archive archive("demo-1.0.tar.gz", R"PY(
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w") as tar:
    add(tar, "demo-1.0/PKG-INFO", b"Name: demo\n")
data = bytearray(buffer.getvalue())
data[0] = ord("x")
with open(out, "wb") as file:
    file.write(gzip.compress(bytes(data)))
)PY");
    check_broken(archive, "bad checksum");
  }
  SECTION("neither a tar nor a zip inside") {
    test::TempDir dir;
    std::ofstream(dir.file("demo-1.0.tar.gz")) << "Rar!\x1a\x07\x00 not a tar at all";
    auto unpacked = unpack_sdist(dir.file("demo-1.0.tar.gz"), dir.file("out"));
    REQUIRE_FALSE(unpacked.has_value());
    CHECK(unpacked.error().code == ErrorCode::kUnsupported);
    CHECK_FALSE(fs::exists(dir.file("out")));
  }
}

TEST_CASE("the sdist-bytes and metadata-bytes limits") {
  Archive archive("demo-1.0.tar.gz", R"PY(
with sdist() as tar:
    add(tar, "demo-1.0/PKG-INFO", b"Name: demo\n" * 100)
    add(tar, "demo-1.0/big.bin", b"0" * 5000)
)PY");
  set_limit_value(Limit::kSdistBytes, 4096);
  auto unpacked = unpack_sdist(archive.path, archive.destination);
  reset_limit_values();
  REQUIRE_FALSE(unpacked.has_value());
  CHECK(unpacked.error().code == ErrorCode::kLimit);
  CHECK(unpacked.error().message.find("`demo-1.0/big.bin`") != std::string::npos);
  CHECK(unpacked.error().message.find("sdist-bytes") != std::string::npos);
  CHECK(archive.leftovers().empty());

  set_limit_value(Limit::kMetadataBytes, 100);
  auto pkg_info = read_sdist_pkg_info(archive.path);
  reset_limit_values();
  REQUIRE_FALSE(pkg_info.has_value());
  CHECK(pkg_info.error().code == ErrorCode::kLimit);
  CHECK(pkg_info.error().message.find("PKG-INFO") != std::string::npos);
}

TEST_CASE("an sdist without PKG-INFO at its top") {
  Archive archive("demo-1.0.tar.gz", R"PY(
with sdist() as tar:
    add(tar, "demo-1.0/sub/PKG-INFO", b"Name: demo\n")
)PY");
  auto pkg_info = read_sdist_pkg_info(archive.path);
  REQUIRE_FALSE(pkg_info.has_value());
  CHECK(pkg_info.error().code == ErrorCode::kNotFound);
  CHECK(pkg_info.error().message.find("`demo-1.0/PKG-INFO`") != std::string::npos);
}

// A downloaded sdist sits in the cache under its sha256, without a suffix: what it is comes
// from its content, for both kinds and for both readers.
TEST_CASE("an sdist is read by its content, whatever its file is called") {
  Archive tar("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", R"PY(
with sdist() as tar:
    add(tar, "demo-1.0/PKG-INFO", PKG_INFO)
)PY");
  CHECK(read_sdist_pkg_info(tar.path).value_or("") == kPkgInfo);
  auto tree = unpack_sdist(tar.path, tar.destination);
  REQUIRE(tree.has_value());
  CHECK(read_file(*tree + "/PKG-INFO") == kPkgInfo);

  Archive zip("0123abcd", R"PY(
with zipfile.ZipFile(out, "w") as z:
    z.writestr("demo-1.0/PKG-INFO", PKG_INFO)
)PY");
  CHECK(read_sdist_pkg_info(zip.path).value_or("") == kPkgInfo);
  // A name that lies is not believed either: this `.zip` is a gzip-compressed tar.
  test::TempDir dir;
  fs::copy_file(tar.path, dir.file("demo-1.0.zip"));
  CHECK(read_sdist_pkg_info(dir.file("demo-1.0.zip")).value_or("") == kPkgInfo);
}

// Headers are bytes too: 64 pax global headers of 1 MiB each hold no member at all, and still
// count against sdist-bytes, headers and their padding included.
TEST_CASE("every byte of a tar stream counts against sdist-bytes, headers included") {
  Archive archive("demo-1.0.tar.gz", R"PY(
import tarfile
buffer = io.BytesIO()
def block(name, type, size):
    info = tarfile.TarInfo(name)
    info.type, info.size = type, size
    return info.tobuf(tarfile.USTAR_FORMAT)
body = b"x" * (1024 * 1024 - 40)
line = b" comment=" + body + b"\n"
length = len(line) + 7
line = (b"%d" % length) + line
assert len(line) == length
for i in range(64):
    buffer.write(block("pax_global_header", tarfile.XGLTYPE, len(line)))
    buffer.write(line + b"\0" * ((512 - len(line) % 512) % 512))
with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
    add(tar, "demo-1.0/PKG-INFO", PKG_INFO)
with open(out, "wb") as file:
    file.write(gzip.compress(buffer.getvalue()))
)PY");
  // Under the default limit the archive is fine: global headers are legal.
  CHECK(read_sdist_pkg_info(archive.path).value_or("") == kPkgInfo);
  set_limit_value(Limit::kSdistBytes, 16 * 1024 * 1024);
  auto pkg_info = read_sdist_pkg_info(archive.path);
  auto unpacked = unpack_sdist(archive.path, archive.destination);
  reset_limit_values();
  REQUIRE_FALSE(pkg_info.has_value());
  CHECK(pkg_info.error().code == ErrorCode::kLimit);
  CHECK(pkg_info.error().message.find("headers included") != std::string::npos);
  REQUIRE_FALSE(unpacked.has_value());
  CHECK(unpacked.error().code == ErrorCode::kLimit);
  CHECK(archive.leftovers().empty());
}

}  // namespace
}  // namespace wv::build
