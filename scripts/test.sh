#!/usr/bin/env bash
# Everything needed to run the whole test suite on a fresh Debian 12 machine: install
# dependencies, configure, build with ninja, run ctest; then the same suite under ASan and UBSan
# (scripts/test-sanitize.sh; WV_SKIP_SANITIZE=1 skips it for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${WV_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure
if [[ "${WV_SKIP_SANITIZE:-0}" != 1 ]]; then
  bash scripts/test-sanitize.sh
fi
