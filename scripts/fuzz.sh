#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang into build-fuzz/ and runs each one for a fixed
# time on a corpus seeded from fuzz/seeds, fuzz/regressions, the generated fixture ecosystem
# and ../shared/conformance (when present), then prints one line of figures per target.
# docs/fuzzing.md.
#
#   bash scripts/fuzz.sh [seconds-per-target] [target...]     (default: 60 s, every target)
#
# Crashing inputs are kept in build-fuzz/crashes/<target>/, logs in build-fuzz/logs/<target>.log.
# Targets run one after the other (libFuzzer uses one core each; the machine is shared).
# Environment: WV_FUZZ_JOBS (build parallelism, default 2), WVLOCK_CONFORMANCE_DIR.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
if [ $# -gt 0 ]; then shift; fi
build=$root/build-fuzz
conformance=${WVLOCK_CONFORMANCE_DIR:-$root/../shared/conformance}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for source in "$root"/fuzz/*_fuzz.cc; do
    leaf=$(basename "$source" .cc)
    targets+=("${leaf%_fuzz}")
  done
fi
for target in "${targets[@]}"; do
  if [ ! -f "$root/fuzz/${target}_fuzz.cc" ]; then
    echo "fuzz.sh: no target \`$target\` (expected fuzz/${target}_fuzz.cc)" >&2
    exit 2
  fi
done

export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWV_FUZZ=ON \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DBUILD_TESTING=OFF -DWV_BENCHMARKS=OFF \
  >/dev/null
build_targets=()
for target in "${targets[@]}"; do build_targets+=("fuzz_$target"); done
cmake --build "$build" -j"${WV_FUZZ_JOBS:-2}" --target "${build_targets[@]}"

# The fixture ecosystem: the build's copy, the source tree's, or a fresh one.
fixtures=""
for candidate in "$root/build/fixtures/ecosystem" "$root/fixtures/generated"; do
  if [ -d "$candidate/simple" ]; then fixtures=$candidate; break; fi
done
if [ -z "$fixtures" ] && command -v python3 >/dev/null; then
  python3 "$root/fixtures/generate.py" --out "$build/fixtures" --quiet && fixtures=$build/fixtures
fi
[ -n "$fixtures" ] || echo "fuzz.sh: no fixture ecosystem; seeding from fuzz/seeds only" >&2
have_conformance=0
if [ -d "$conformance/pep-current" ]; then have_conformance=1; else
  echo "fuzz.sh: no conformance data at $conformance; skipping it" >&2
fi

# One corpus file per JSON-lines value of `key` in `file` (names are content hashes).
jsonl_values() {
  local file=$1 key=$2 out=$3
  [ -f "$file" ] || return 0
  python3 - "$file" "$key" "$out" <<'PY'
import hashlib, json, os, sys
path, key, out = sys.argv[1:]
for line in open(path, encoding="utf-8"):
    value = json.loads(line).get(key)
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        with open(os.path.join(out, "c-" + hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
PY
}
# Copies up to `limit` files given on stdin into `out`.
copy_files() {
  local out=$1 limit=$2 count=0
  while IFS= read -r file; do
    [ $count -lt "$limit" ] || break
    cp "$file" "$out/f-$(sha1sum <"$file" | cut -c1-40)"
    count=$((count + 1))
  done
}
# One corpus file per line of stdin (file names as inputs of the filename parsers).
lines_as_files() {
  local out=$1 limit=$2 count=0
  while IFS= read -r line; do
    [ $count -lt "$limit" ] || break
    printf '%s' "$line" >"$out/n-$(printf '%s' "$line" | sha1sum | cut -c1-40)"
    count=$((count + 1))
  done
}

seed_corpus() {
  local target=$1 out=$2
  mkdir -p "$out"
  for kind in seeds regressions; do
    if [ -d "$root/fuzz/$kind/$target" ]; then
      find "$root/fuzz/$kind/$target" -type f | copy_files "$out" 100000
    fi
  done
  local pep=$conformance/pep-current index=$conformance/variants-index
  case $target in
    version)
      [ $have_conformance = 1 ] && jsonl_values "$pep/versions.jsonl" input "$out" ;;
    specifier)
      [ $have_conformance = 1 ] && jsonl_values "$pep/specifiers.jsonl" specifier "$out" ;;
    marker)
      [ $have_conformance = 1 ] && jsonl_values "$pep/markers.jsonl" marker "$out" ;;
    requirement)
      [ $have_conformance = 1 ] && jsonl_values "$pep/requirements.jsonl" input "$out" ;;
    metadata)
      [ -n "$fixtures" ] && find "$fixtures/simple" -name '*.metadata' | sort | copy_files "$out" 300 ;;
    simple_html)
      [ -n "$fixtures" ] && find "$fixtures/simple" -name index.html | sort | copy_files "$out" 200
      [ $have_conformance = 1 ] && find "$index" -name '*.html' | sort | copy_files "$out" 200 ;;
    simple_json)
      [ -n "$fixtures" ] && find "$fixtures/simple" -name index.json | sort | copy_files "$out" 200 ;;
    variants_json)
      [ -n "$fixtures" ] && find "$fixtures" -name '*-variants.json' | sort | copy_files "$out" 200
      [ $have_conformance = 1 ] && find "$index" "$conformance/variantlib" -name '*.json' | sort |
        copy_files "$out" 300 ;;
    wheel_filename)
      [ -n "$fixtures" ] && find "$fixtures/find-links" -name '*.whl' -printf '%f\n' | sort |
        lines_as_files "$out" 400 ;;
    sdist_filename)
      [ -n "$fixtures" ] && find "$fixtures/find-links" \( -name '*.tar.gz' -o -name '*-variants.json' \) \
        -printf '%f\n' | sort | lines_as_files "$out" 200 ;;
    pyproject)
      find "$root/fixtures/example" -name pyproject.toml | copy_files "$out" 10
      [ $have_conformance = 1 ] && find "$conformance/variantlib" -name pyproject.toml | copy_files "$out" 10 ;;
    pylock)
      find "$root/tests/cli/golden" "$root/fixtures/example" -name '*pylock.toml' | copy_files "$out" 10
      # The golden file has placeholder hashes, which the reader refuses: give it real-looking ones.
      if [ -f "$root/tests/cli/golden/example.pylock.toml" ]; then
        sed 's/sha256 = "-"/sha256 = "'"$(printf '%064d' 0)"'"/' "$root/tests/cli/golden/example.pylock.toml" \
          >"$out/golden-hashed.toml"
      fi ;;
    wheel_zip|wheel_unpack)
      [ -n "$fixtures" ] && find "$fixtures/find-links" -name '*.whl' -size -64k | sort | copy_files "$out" 60 ;;
    sdist_archive)
      [ -n "$fixtures" ] && find "$fixtures/find-links" -name '*.tar.gz' -size -64k | sort | copy_files "$out" 60 ;;
    wheel_zip_server)
      # An empty server script (byte 0 = 0: every answer honest) in front of each wheel.
      if [ -n "$fixtures" ]; then
        find "$fixtures/find-links" -name '*.whl' -size -64k | sort | head -n 60 | while IFS= read -r wheel; do
          { printf '\000'; cat "$wheel"; } >"$out/s-$(sha1sum <"$wheel" | cut -c1-40)"
        done
      fi ;;
  esac
  return 0
}

mkdir -p "$build/logs"
results=()
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  crashes=$build/crashes/$target
  log=$build/logs/$target.log
  mkdir -p "$crashes"
  seed_corpus "$target" "$corpus"
  args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
        -artifact_prefix="$crashes/")
  [ -f "$root/fuzz/dicts/$target.dict" ] && args+=(-dict="$root/fuzz/dicts/$target.dict")
  # The targets' own input bounds (fuzz/fuzz_target.h): without -max_len libFuzzer takes the
  # largest corpus file (index pages of several MB) and spends its time on inputs the target
  # ignores; longer seeds are truncated to their first max_len bytes.
  case $target in
    wheel_zip|wheel_unpack|wheel_zip_server|sdist_archive) args+=(-max_len=1048576) ;;
    pylock) args+=(-max_len=131072) ;;
    *) args+=(-max_len=65536) ;;
  esac
  echo "== fuzz_$target: ${seconds}s, corpus $(find "$corpus" -type f | wc -l) files"
  status=0
  (cd "$build" && ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$target" "${args[@]}" "$corpus") \
    >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  files=$(find "$corpus" -type f | wc -l)
  found=$(find "$crashes" -type f | wc -l)
  [ $status -ne 0 ] && [ "$found" = 0 ] && found="exit $status"
  results+=("$(printf '%-16s %12s %9s %7s %7s %8s %8s' "$target" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "$files" "$found")")
  if [ $status -ne 0 ]; then
    echo "   fuzz_$target stopped (exit $status): see $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*fuzz property violated)' "$log" | head -3 | sed 's/^/   /'
  fi
done

echo
printf '%-16s %12s %9s %7s %7s %8s %8s\n' target executions exec/s cov ft corpus crashes
for line in "${results[@]}"; do echo "$line"; done
