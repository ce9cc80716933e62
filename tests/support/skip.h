// Skipping a test case that cannot run on this machine (a missing tool), visibly: Catch2 2 has
// no SKIP, so the case prints a marker that ctest's SKIP_REGULAR_EXPRESSION reports as skipped
// (tests/CMakeLists.txt) and returns. Use as `if (...) { WV_SKIP("why"); }`.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>

#define WV_SKIP(reason)                                        \
  do {                                                         \
    std::printf("wvlock-test-skipped: %s\n", (reason));        \
    std::fflush(stdout);                                       \
    WARN("skipped: " << (reason));                             \
    return;                                                    \
  } while (false)
