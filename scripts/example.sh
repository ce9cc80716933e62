#!/usr/bin/env bash
# wvlock's main job on the bundled example, from a fresh Debian 12 machine: install the build
# dependencies, build wvlock, generate the example package index (real wheels, variants.json,
# PEP 503/691 pages), and lock the example project for its five targets (mac, cpu, a100, h100,
# mi300) into fixtures/example/pylock.toml; then the same for fixtures/example-pytorch, the
# PyTorch world of today (per-backend indexes with torch 2.9.0+cpu/+cu128/+rocm6.4, pinned
# per target) into fixtures/example-pytorch/pylock.toml. Then show what this machine would
# install.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${WV_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target wvlock
/usr/bin/python3 fixtures/generate.py --out fixtures/generated
"$build/src/cli/wvlock" --project fixtures/example lock
"$build/src/cli/wvlock" --project fixtures/example lock --check
"$build/src/cli/wvlock" --project fixtures/example-pytorch lock
"$build/src/cli/wvlock" --project fixtures/example-pytorch lock --check
"$build/src/cli/wvlock" detect
if "$build/src/cli/wvlock" help | grep -q "^  targets"; then
  "$build/src/cli/wvlock" --project fixtures/example targets || true
  "$build/src/cli/wvlock" --project fixtures/example-pytorch targets || true
fi
echo "lockfiles: fixtures/example/pylock.toml fixtures/example-pytorch/pylock.toml"
