#!/usr/bin/env bash
# Everything needed to run the whole test suite on a fresh Debian 12 machine: install
# dependencies, configure, build with ninja, run ctest; then the same suite under ASan and UBSan
# (scripts/test-sanitize.sh; WV_SKIP_SANITIZE=1 skips it for a quick local run). The sanitizer
# pass runs even when the first one fails, so one failure cannot hide another; the script exits
# non-zero when either failed, and says which. WV_TEST_JOBS sets ctest's parallelism (default:
# twice the cores: most tests wait on subprocesses, venvs and loopback servers, not the CPU).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
build=${WV_BUILD_DIR:-build}
jobs=${WV_TEST_JOBS:-$(( $(nproc) * 2 ))}
# Each phase's wall time, printed as it ends (docs/hardening.md "Keeping CI under 30 minutes").
phase() { echo "test.sh: $1 took $(( SECONDS - phase_start )) s"; phase_start=$SECONDS; }
phase_start=$SECONDS
first=0
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
  cmake --build "$build" -j"$(nproc)" && phase "the build" &&
  ctest --test-dir "$build" -j"$jobs" --output-on-failure; } || first=$?
phase "the tests"
second=0
if [[ "${WV_SKIP_SANITIZE:-0}" != 1 ]]; then
  bash scripts/test-sanitize.sh || second=$?
  phase "the sanitizer pass"
fi
if [[ $first != 0 || $second != 0 ]]; then
  echo "test.sh: FAILED — first pass exit $first, sanitizer pass exit $second" >&2
  exit 1
fi
echo "test.sh: both passes passed"
