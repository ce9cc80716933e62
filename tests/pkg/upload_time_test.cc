#include <catch2/catch.hpp>

#include "src/pkg/upload_time.h"

using wv::pkg::normalize_upload_time;

TEST_CASE("upload time: one UTC spelling for every RFC 3339 form of an instant", "[pkg][upload-time]") {
  // PEP 700's own form is kept as it is.
  CHECK(normalize_upload_time("2025-01-25T11:30:10.164985Z") == "2025-01-25T11:30:10.164985Z");
  CHECK(normalize_upload_time("2025-01-25t11:30:10z") == "2025-01-25T11:30:10Z");
  CHECK(normalize_upload_time("2025-01-25 11:30:10Z") == "2025-01-25T11:30:10Z");
  // Offsets are applied, across a day, a month and a year.
  CHECK(normalize_upload_time("2025-01-25T12:30:10.5+01:00") == "2025-01-25T11:30:10.5Z");
  CHECK(normalize_upload_time("2024-12-31T23:30:00-01:00") == "2025-01-01T00:30:00Z");
  CHECK(normalize_upload_time("2024-03-01T00:10:00+00:20") == "2024-02-29T23:50:00Z");
  CHECK(normalize_upload_time("2025-01-25T11:30:10+00:00") == "2025-01-25T11:30:10Z");
  // Trailing zeros of the fraction say nothing; past nanoseconds nothing is kept.
  CHECK(normalize_upload_time("2025-01-25T11:30:10.100000Z") == "2025-01-25T11:30:10.1Z");
  CHECK(normalize_upload_time("2025-01-25T11:30:10.000Z") == "2025-01-25T11:30:10Z");
  CHECK(normalize_upload_time("2025-01-25T11:30:10.1234567891Z") == "2025-01-25T11:30:10.123456789Z");
}

TEST_CASE("upload time: what is not an instant is refused", "[pkg][upload-time]") {
  for (const char* text : {"", "2025-01-25", "2025-01-25T11:30:10", "2025-01-25T11:30:10.Z",
                           "2025-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2025-01-25T24:00:00Z",
                           "2025-01-25T11:60:00Z", "2025-01-25T11:30:10+0100", "2025-01-25T11:30:10Zx",
                           "25-01-25T11:30:10Z", "2025/01/25T11:30:10Z", "2025-01-25T11:30:10 Z",
                           "0000-01-01T00:00:00+00:01"}) {
    INFO(text);
    CHECK_FALSE(normalize_upload_time(text));
  }
}
