#include "src/net/progress.h"

#include <catch2/catch.hpp>

using wv::net::format_bytes;
using wv::net::ProgressSnapshot;
using wv::net::render_progress_line;

TEST_CASE("progress: byte counts in binary units", "[net][progress]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(5ull << 20) == "5.0 MiB");
  CHECK(format_bytes(3ull << 30) == "3.0 GiB");
}

TEST_CASE("progress: the line shows a bar, percent, bytes and files within the width",
          "[net][progress]") {
  ProgressSnapshot half{3, 6, 1 << 20, 2 << 20};
  CHECK(render_progress_line(half, 100) ==
        "downloading [##########          ] 50% 1.0 MiB/2.0 MiB (3/6 files)");
  // Narrow terminals lose the bar first, then the line is cut.
  CHECK(render_progress_line(half, 45) == "downloading 50% 1.0 MiB/2.0 MiB (3/6 files)");
  CHECK(render_progress_line(half, 20).size() == 20);
  // Unknown sizes show what arrived so far.
  CHECK(render_progress_line(ProgressSnapshot{0, 2, 2048, 0}, 80) ==
        "downloading 2.0 KiB (0/2 files)");
  // More bytes than announced never draw past 100%.
  CHECK(render_progress_line(ProgressSnapshot{1, 1, 300, 200}, 100).find("100%") !=
        std::string::npos);
}
