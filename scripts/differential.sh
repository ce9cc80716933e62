#!/usr/bin/env bash
# A large differential campaign of wv::pkg against Python's packaging 26.4 (the pure-Python
# reference in ../shared/oracles/packaging-26.4, run by /usr/bin/python3): docs/differential.md.
# Usage: scripts/differential.sh [cases] [seed]      (defaults: 500000 cases, seed 1)
# Builds differential_fuzz in $WV_BUILD_DIR (default build-differential), runs it, prints the
# figures, and writes every disagreement found (per kind, in the case-file format, a few
# examples per explained class and every unexplained one) to $build/differential-found/.
# Exit status: 0 no unexplained disagreement, 1 some, 2 the oracle imported a packaging other
# than 26.x, 77 the oracle is unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-500000}
seed=${2:-1}
build=${WV_BUILD_DIR:-build-differential}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target differential_fuzz >/dev/null
found="$build/differential-found"
rm -rf "$found"
status=0
"$build/differential/differential_fuzz" --seed "$seed" --cases "$cases" --batch 1000 \
  --out "$found" || status=$?
if [ "$status" = 1 ]; then
  echo "unexplained disagreements: see $found/*.txt (lines with verdict UNEXPLAINED)"
fi
exit "$status"
