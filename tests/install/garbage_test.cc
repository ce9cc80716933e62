// Arbitrary bytes into every reader of src/install: RECORD, wheels (random files and valid
// wheels with flipped bytes), journals. Nothing may crash; a damaged wheel is an error or, when
// the damage missed everything checked, a correct install into staging.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "src/install/journal.h"
#include "src/install/sync.h"
#include "src/install/wheel_unpack.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {

TEST_CASE("garbage: RECORD parsing takes arbitrary bytes", "[install][garbage]") {
  std::mt19937 random(7);
  const char kAlphabet[] = "a,\"\r\n=/.\0x";
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);  // NUL included
  for (int round = 0; round < 3000; ++round) {
    std::string text(random() % 64, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    auto rows = parse_record(text, "RECORD");
    if (rows) {
      for (const RecordRow& row : *rows) CHECK(row.path.find('\0') == std::string::npos);
    }
    (void)check_member_name(text);
  }
}

TEST_CASE("garbage: damaged wheels never crash the unpacker", "[install][garbage]") {
  test::TempDir dir;
  test::WheelSpec spec;
  spec.name = "pkg";
  spec.version = "1.0";
  spec.files = {{"pkg/__init__.py", std::string(3000, 'p')}, {"pkg/mod.py", "X = 1\n"}};
  spec.entry_points = "[console_scripts]\nrun = pkg:main\n";
  const std::string path = test::build_wheel(spec, dir.file("wheels"));
  std::ifstream in(path, std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)), {});
  InstallScheme scheme{dir.path(), "lib/site", "lib/site", "bin", "include", "", "/usr/bin/python3"};
  std::mt19937 random(11);
  int failures = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = original;
    if (round % 3 == 0) {
      bytes.resize(random() % bytes.size());  // truncated
    } else {
      for (int flips = 1 + random() % 4; flips > 0; --flips) {
        bytes[random() % bytes.size()] = static_cast<char>(random());
      }
    }
    const std::string damaged = dir.file("pkg-1.0-py3-none-any.whl");
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << bytes;
    UnpackOptions options;
    options.scheme = scheme;
    options.staging = dir.file("staging-" + std::to_string(round));
    auto result = unpack_wheel(damaged, options);
    if (!result) {
      ++failures;
      CHECK_FALSE(result.error().message.empty());
    }
    std::filesystem::remove_all(options.staging);
  }
  CHECK(failures > 250);  // nearly every damaged byte is caught (CRC, RECORD hash, zip structure)
}

TEST_CASE("garbage: a malformed journal is refused, not replayed", "[install][garbage]") {
  test::TempDir dir;
  std::ofstream(dir.file(std::string(kJournalName))) << "wvlock-journal 1\nP 0/../../etc/passwd\n";
  RealFileSystem real;
  auto repaired = repair_environment(real, dir.path());
  REQUIRE_FALSE(repaired.has_value());
  CHECK(repaired.error().message.find("expected `T|R|D|P|S <relative path>`") != std::string::npos);
  std::ofstream(dir.file(std::string(kJournalName)), std::ios::trunc) << "\x01\x02garbage";
  repaired = repair_environment(real, dir.path());
  REQUIRE_FALSE(repaired.has_value());
  CHECK(repaired.error().message.find("is not a wvlock journal") != std::string::npos);
}

}  // namespace wv::install
