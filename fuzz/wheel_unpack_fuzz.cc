// Installing a wheel (src/install/wheel_unpack.h): the bytes are written to a temporary file and
// unpacked into a temporary staging folder with small limits; RECORD text and member names are
// checked on their own. Properties: no crash; nothing is written outside the staging folder
// (every reported file is relative and passes check_member_name's rules); an unpack that
// succeeds lists its dist-info.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/fuzz_target.h"
#include "src/install/wheel_unpack.h"

namespace {

// A private folder per process, made once; emptied after each input.
const std::string& work_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/wv-fuzz-unpack-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
  }();
  return dir;
}

}  // namespace

WV_FUZZ_TARGET(wheel_unpack) {
  if (size > (1u << 20)) return;
  const std::string_view bytes = wv::fuzz::as_text(data, size);
  // RECORD and member-name checks take text of their own.
  if (size <= wv::fuzz::kMaxTextInput) {
    (void)wv::install::parse_record(bytes, "RECORD");
    const std::string why = wv::install::check_member_name(bytes);
    if (why.empty()) {
      WV_FUZZ_CHECK(!bytes.empty() && bytes.front() != '/' && bytes.find('\\') == std::string_view::npos,
                    "check_member_name accepts an absolute or backslashed name");
      for (std::size_t start = 0; start <= bytes.size();) {
        std::size_t slash = bytes.find('/', start);
        if (slash == std::string_view::npos) slash = bytes.size();
        const std::string_view part = bytes.substr(start, slash - start);
        WV_FUZZ_CHECK(part != ".." && part != ".", "check_member_name accepts a `.`/`..` part");
        start = slash + 1;
      }
    }
  }
  const std::string dir = work_dir();
  const std::string wheel = dir + "/torch-2.9.0-py3-none-any.whl";
  {
    std::ofstream out(wheel, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  wv::install::UnpackOptions options;
  options.scheme.root = dir + "/env";
  options.scheme.purelib = "lib/python3.12/site-packages";
  options.scheme.platlib = "lib/python3.12/site-packages";
  options.scheme.scripts = "bin";
  options.scheme.headers = "include/site/python3.12";
  options.scheme.data = "";
  options.scheme.python = dir + "/env/bin/python";
  options.staging = dir + "/staging";
  options.limits.max_total_size = 4 << 20;
  options.limits.max_entries = 2000;
  options.limits.max_metadata_size = 1 << 20;
  options.wheel_name = "torch-2.9.0-py3-none-any.whl";
  options.wheel_sha256 = std::string(64, '0');
  std::error_code ignored;
  std::filesystem::create_directories(options.staging, ignored);
  auto unpacked = wv::install::unpack_wheel(wheel, options);
  if (unpacked) {
    WV_FUZZ_CHECK(!unpacked.value().dist_info.empty(), "an unpacked wheel without a dist-info");
    for (const std::string& file : unpacked.value().files) {
      WV_FUZZ_CHECK(wv::install::check_member_name(file).empty(), "installed file with a bad name: " + file);
    }
  }
  // Nothing may land outside the staging folder: the work folder holds only it and the wheel.
  for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
    const std::string leaf = entry.path().filename().string();
    WV_FUZZ_CHECK(leaf == "staging" || leaf == "torch-2.9.0-py3-none-any.whl", "written outside staging: " + leaf);
  }
  std::filesystem::remove_all(options.staging, ignored);
}
