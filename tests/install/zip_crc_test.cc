// Every zip member's CRC-32 is checked at extraction, stored and deflated alike: a wheel whose
// member data matches RECORD's sha256 but not the zip's CRC-32 is a damaged wheel (pip's zipfile
// refuses it), and installs nowhere.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/install/wheel_extract.h"
#include "tests/support/temp_dir.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

// Writes demo-1.0-py3-none-any.whl with RECORD right for every member, compressed with
// `method`; with `damage` set, `demo/__init__.py`'s CRC-32 is changed in its local header and
// in the central directory (its data, and so its sha256, left as they are).
constexpr const char* kMakeWheel = R"PY(
import base64, hashlib, struct, sys, zipfile
out, method, damage = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
compression = zipfile.ZIP_STORED if method == "stored" else zipfile.ZIP_DEFLATED
body = {"demo/__init__.py": "VALUE = 1\n" * 50,
        "demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
        "demo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for path, text in body.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record += f"{path},sha256={digest},{len(text.encode())}\n"
record += "demo-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(out, "w", compression) as z:
    for path, text in body.items(): z.writestr(path, text)
    z.writestr("demo-1.0.dist-info/RECORD", record)
if damage:
    data = bytearray(open(out, "rb").read())
    info = zipfile.ZipFile(out).getinfo("demo/__init__.py")
    bad = struct.pack("<I", info.CRC ^ 0x5A5A5A5A)
    data[info.header_offset + 14:info.header_offset + 18] = bad
    name = b"demo/__init__.py"
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack("<H", data[at + 28:at + 30])[0]
        if data[at + 46:at + 46 + length] == name:
            data[at + 16:at + 20] = bad
        at = data.find(b"PK\x01\x02", at + 4)
    open(out, "wb").write(bytes(data))
)PY";

std::string make_wheel(const test::TempDir& dir, const std::string& method, bool damage) {
  const std::string script = dir.file("make_wheel.py");
  std::ofstream(script) << kMakeWheel;
  const std::string wheel = dir.file(str_cat(method, damage ? "-bad" : "-good", "/demo-1.0-py3-none-any.whl"));
  fs::create_directories(fs::path(wheel).parent_path());
  REQUIRE(std::system(str_cat(WV_TEST_PYTHON, " ", script, " ", wheel, " ", method, " ",
                              damage ? "1" : "0").c_str()) == 0);
  return wheel;
}

Result<ExtractedWheel> extract(const test::TempDir& dir, const std::string& wheel,
                               const std::string& into) {
  RealFileSystem file_system;
  const std::string folder = dir.file(into);
  fs::create_directories(folder);
  ExtractOptions options;
  options.threads = 1;
  return extract_wheel(file_system, wheel, folder, options);
}

}  // namespace

TEST_CASE("zip CRC-32: a member whose data does not match its CRC-32 is refused, stored or "
          "deflated",
          "[install][hostile]") {
  test::TempDir dir;
  for (const std::string method : {"stored", "deflated"}) {
    INFO(method);
    // The same wheel with its CRCs intact extracts: the check refuses only damage.
    auto good = extract(dir, make_wheel(dir, method, false), method + "-good-out");
    INFO((good ? std::string() : good.error().message));
    CHECK(good.has_value());
    auto bad = extract(dir, make_wheel(dir, method, true), method + "-bad-out");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == ErrorCode::kIntegrity);
    CHECK(bad.error().message.find("demo/__init__.py") != std::string::npos);
    CHECK(to_lower(bad.error().message).find("crc") != std::string::npos);
  }
}

}  // namespace wv::install
