// Reading and unpacking an sdist (src/pep517/sdist_archive.h): the bytes are written to a
// temporary `.tar.gz` (or `.zip` when they start with `PK`), then PKG-INFO is read and the
// archive unpacked with a small sdist-bytes limit. Properties: no crash; nothing is written
// outside the destination; what an unpack leaves holds no link that leads out of it; the two
// functions agree on whether the archive is acceptable (read_sdist_pkg_info reads the whole
// archive under the same rules).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "src/base/limits.h"
#include "src/pep517/sdist_archive.h"
#include "fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;

// A private folder per process, made once; emptied after each input.
const std::string& work_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/wv-fuzz-sdist-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
  }();
  return dir;
}

// Every entry below `root` stays below it, links included.
void check_inside(const fs::path& root) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(root, ec);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path resolved = fs::weakly_canonical(it->path(), ec);
    if (ec) break;
    const std::string text = resolved.string();
    WV_FUZZ_CHECK(text.rfind(base.string() + "/", 0) == 0, "an unpacked entry leads outside: " + text);
  }
}

}  // namespace

WV_FUZZ_TARGET(sdist_archive) {
  if (size > (1u << 20)) return;
  const std::string_view bytes = wv::fuzz::as_text(data, size);
  const std::string dir = work_dir();
  const bool zip = size >= 2 && bytes.substr(0, 2) == "PK";
  const std::string archive = dir + (zip ? "/demo-1.0.zip" : "/demo-1.0.tar.gz");
  {
    std::ofstream out(archive, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  wv::set_limit_value(wv::Limit::kSdistBytes, 4u << 20);
  const auto pkg_info = wv::build::read_sdist_pkg_info(archive);
  const std::string destination = dir + "/out";
  const auto unpacked = wv::build::unpack_sdist(archive, destination);
  if (unpacked) {
    WV_FUZZ_CHECK(unpacked.value().rfind(destination + "/", 0) == 0,
                  "the source tree is not inside the destination: " + unpacked.value());
    check_inside(destination);
  }
  // A PKG-INFO was read only from an archive that unpacks.
  if (pkg_info) WV_FUZZ_CHECK(bool(unpacked), "PKG-INFO read from an archive unpack_sdist refuses");
  // Nothing may land beside the destination: the work folder holds only it and the archive.
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(dir, ignored)) {
    const std::string leaf = entry.path().filename().string();
    WV_FUZZ_CHECK(leaf == "out" || leaf == fs::path(archive).filename().string(),
                  "written outside the destination: " + leaf);
  }
  fs::remove_all(destination, ignored);
  fs::remove(archive, ignored);
  wv::reset_limit_values();
}
