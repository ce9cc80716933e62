#!/usr/bin/env bash
# The C++ tests again, built with clang under AddressSanitizer and UndefinedBehaviorSanitizer
# (-O1, line tables only, no benchmarks), on what sanitizers find: the unit and conformance tests
# of every library (parsers, solver, lock, the installer, index, network, build, detection), the
# fuzz replays, the differential cases, and the fault-injection runs of the sanitized wvlock
# binary against a misbehaving server. The CLI end-to-end tests (cli_tests) are not built or run
# again here: they spend their time in Python subprocesses and venvs, ran in the normal pass, and
# the code they reach runs sanitized in the fault runs and the library tests (docs/hardening.md,
# "Sanitizers"). Any sanitizer report fails the test that triggered it: UBSan does not recover,
# ASan aborts. WV_TEST_JOBS sets ctest's parallelism (default: twice the cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WV_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${WV_TEST_JOBS:-$(( $(nproc) * 2 ))}
cmake -S . -B "$build" -G Ninja -DWV_SANITIZE=ON -DWV_BENCHMARKS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" >/dev/null
targets=(base_tests pkg_tests solver_tests targets_tests detect_tests index_tests net_tests
         lock_tests install_tests pep517_tests fuzz_tests differential_tests differential_fuzz
         fault_tests)
start=$SECONDS
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
echo "test-sanitize.sh: the sanitizer build took $(( SECONDS - start )) s"
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Not here: the CLI tests (and the placeholder ctest lists for their unbuilt executable), the
# layering and platform greps, the macOS compile and the Python fixture checks, which run no
# C++ of ours under a sanitizer.
ctest --test-dir "$build" -j"$jobs" --output-on-failure \
  -E '^(cli/|cli_tests_NOT_BUILT|fixtures/|layering|platform_calls|macos_compile)'
