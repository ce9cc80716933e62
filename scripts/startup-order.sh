#!/usr/bin/env bash
# Writes src/cli/startup.order: the functions `wvlock version`, `targets --frozen` and a no-op
# `sync` run, as mangled names, for the link of wvlock to lay out together (src/cli/CMakeLists.txt,
# docs/architecture.md "Start-up"). Run it after changes to those paths and commit the result; a
# stale list only costs start-up time. Needs valgrind (callgrind) and a built build folder.
#
# Usage: scripts/startup-order.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
wvlock=$build/src/cli/wvlock
command -v valgrind >/dev/null || { echo "startup-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x "$wvlock" ] && [ -x "$build/bench/startup_bench" ] || {
  echo "startup-order.sh: build wvlock and startup_bench in $build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# startup_bench's own project: locked and synced, the detection overrides it uses.
project=$("$build/bench/startup_bench" --runs 1 --keep | sed -n 's/^project kept in //p')
[ -n "$project" ] || { echo "startup-order.sh: startup_bench kept no project" >&2; exit 1; }
cd "$project"
export WVLOCK_CACHE_DIR="$project/../cache"
unset VIRTUAL_ENV
for command in "version" "targets --frozen" "sync"; do
  # The profile of a GPU-less host by override, then of this host as it is.
  for overrides in "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX=" ""; do
    env $overrides valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/out.%p" \
      "$wvlock" $command >/dev/null 2>&1
  done
done
# Every function name in the order callgrind first lists it, once.
cat "$work"/out.* | sed -n 's/^c\{0,1\}fn=([0-9]*) \([^ ]*\).*/\1/p' | awk '!seen[$0]++' \
  > "$root/src/cli/startup.order"
rm -rf "$(dirname "$project")"
echo "startup-order.sh: $(wc -l < "$root/src/cli/startup.order") functions in src/cli/startup.order"
