#!/usr/bin/env bash
# The whole C++ test suite again, built with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer (-O1, line tables only, no benchmarks). Any sanitizer report fails
# the test that triggered it: UBSan does not recover, ASan aborts. The tests that run no C++ of
# ours (the layering grep and the Python fixture checks) already ran in the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WV_SANITIZE_BUILD_DIR:-build-sanitize}
cmake -S . -B "$build" -G Ninja -DWV_SANITIZE=ON -DWV_BENCHMARKS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" >/dev/null
cmake --build "$build" -j"$(nproc)"
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure -E '^(layering|layering_self_test|fixtures/)'
