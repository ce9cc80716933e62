#!/usr/bin/env bash
# The fault-injection campaign (docs/fault-injection.md): RUNS runs of `wvlock lock` and RUNS
# runs of `wvlock sync` against the chaos server, with the sync process SIGKILLed at random points,
# then the storage faults (full disk, unwritable cache, concurrent processes), then one combined
# tally. Exit status 1 when any run was lost, corrupted or unclear.
#
#   scripts/fault-injection.sh [RUNS]            # default 100 of each
#   WV_FAULT_SEED=1000 WV_FAULT_RATE=0.2 scripts/fault-injection.sh 50
#   WV_BUILD_DIR=build-asan scripts/fault-injection.sh 20   # a sanitizer build
#
# Seeds are WV_FAULT_SEED .. WV_FAULT_SEED+RUNS-1 (default 1000), the per-request fault rate is
# WV_FAULT_RATE (default 0.1); the campaign runs in CHUNK-run pieces (default 25) so that a long
# campaign prints progress. Each chunk is one `fault_tests` process; the tallies are summed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
build=${WV_BUILD_DIR:-build}
seed=${WV_FAULT_SEED:-1000}
rate=${WV_FAULT_RATE:-0.1}
chunk=${CHUNK:-25}
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target fault_tests wvlock wv_fixtures >/dev/null
tally=$(mktemp)
trap 'rm -f "$tally"' EXIT
start=$(date +%s)
status=0
for kind in lock sync; do
  done_runs=0
  while (( done_runs < runs )); do
    n=$(( runs - done_runs < chunk ? runs - done_runs : chunk ))
    upper=$(echo "$kind" | tr a-z A-Z)
    echo "== $kind: runs $done_runs..$(( done_runs + n - 1 )) (seeds $(( seed + done_runs ))..)" >&2
    env "WV_FAULT_${upper}_RUNS=$n" "WV_FAULT_SEED=$(( seed + done_runs ))" "WV_FAULT_RATE=$rate" \
        WV_FAULT_TALLY_FILE="$tally" WV_BUILD_DIR="$PWD/$build" \
        "$build/tests/fault_tests" "[fault][$kind]~[storage]" >/dev/null 2>&1 || status=1
    done_runs=$(( done_runs + n ))
  done
done
# The storage faults once: the full-disk sweeps, the unwritable cache, and RUNS/10 (at least 2)
# rounds of two processes at once.
echo "== storage: full disk, unwritable cache, concurrent processes" >&2
env "WV_FAULT_CONCURRENT_RUNS=$(( runs / 10 > 2 ? runs / 10 : 2 ))" WV_FAULT_TALLY_FILE="$tally" \
    WV_BUILD_DIR="$PWD/$build" "$build/tests/fault_tests" "[storage]" >/dev/null 2>&1 || status=1
# Sum the chunks: `== fault tally: NAME ==` headers, then `KEY... COUNT` lines and `BAD` lines.
awk -v wall=$(( $(date +%s) - start )) '
  # A campaign chunk ("lock (N runs, ...)") sums under its kind; a storage tally under its name.
  /^== fault tally: / { kind = ($5 ~ /^\(/) ? $4 : substr($0, 17, length($0) - 19); next }
  /^BAD / { bad_lines[++nbad] = kind ": " substr($0, 5); next }
  /^ / || /^$/ { next }
  NF >= 2 && $NF ~ /^[0-9]+$/ {
    key = kind " " $0; sub(/ [0-9]+$/, "", key); sum[key] += $NF; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  }
  END {
    print "== fault-injection campaign tally =="
    for (i = 1; i <= n; ++i) if (order[i] !~ / wall_seconds$/) printf "%-60s %d\n", order[i], sum[order[i]]
    printf "%-60s %d\n", "total wall seconds", wall
    for (i = 1; i <= nbad; ++i) print "BAD " bad_lines[i]
  }' "$tally"
if grep -q '^BAD ' "$tally"; then status=1; fi
exit $status
