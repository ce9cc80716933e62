#!/usr/bin/env bash
# The one-way layering rule of docs/architecture.md, checked on #include lines.
# Usage: check_layers.sh ROOT          check the tree at ROOT
#        check_layers.sh --self-test   prove the check fails on each kind of forbidden edge
#
# Project headers are included from the one include root, the repository root, by their path
# ("src/base/str.h", "lock/lockfile.h"), or by a bare name from the including file's own folder.
# An include whose first folder is not a source root is refused: it could only resolve into a
# build folder or into something the build does not own.
set -u

# Every layer: its folder, then the header prefixes it may use. Order matters: a file belongs to
# the first layer whose folder contains it (targets/detect before targets).
layers=(
  "src/base|src/base/"
  "solver|solver/"
  "src/pkg|src/pkg/ src/base/"
  "targets/detect|targets/ src/pkg/ src/base/"
  "targets|targets/ src/pkg/ src/base/"
  "src/zip|src/zip/ src/base/"
  "src/index|src/index/ src/pkg/ src/base/"
  "src/net|src/net/ src/base/"
  "lock|lock/ solver/ targets/ src/pkg/ src/base/"
  "src/install|src/install/ lock/ targets/ src/pkg/ src/base/"
  "src/pep517|src/pep517/ src/install/ lock/ targets/ src/pkg/ solver/ src/base/"
  "src/cli|src/cli/ src/pep517/ src/install/ lock/ src/index/ src/net/ targets/ src/pkg/ solver/ src/base/"
)
# Only the CLI (which wires detection into sync) and detection itself see the live probes.
may_see_detect="targets/detect src/cli"

# Third-party headers each layer may include at all (the designated .cc files are reviewed).
third_party_for() {
  case "$1" in
    src/base) echo "xxhash.h openssl/" ;;
    solver|src/pkg) echo "" ;;
    targets|lock) echo "toml++/" ;;
    targets/detect) echo "dlfcn.h cpuid.h sys/ mach-o/" ;;
    src/index) echo "nlohmann/ zip.h zlib.h" ;;
    src/net) echo "curl/" ;;
    src/zip) echo "zip.h isa-l/" ;;
    src/install) echo "zip.h nlohmann/ isa-l/" ;;
    src/pep517) echo "zip.h nlohmann/ zlib.h" ;;
    src/cli) echo "nlohmann/ toml++/" ;;
  esac
}
known_third_party="nlohmann/ toml++/ curl/ xxhash.h zip.h openssl/ zlib.h isa-l/"
# First folders an include may start with (everything else is refused, in every folder).
source_roots="src/ solver/ lock/ targets/ tests/ fuzz/ differential/ bench/"

# The layer a file belongs to, or "" for tests, benches and fuzz targets.
layer_of() {
  local relative=$1 entry folder
  for entry in "${layers[@]}"; do
    folder=${entry%%|*}
    [[ $relative == "$folder"/* ]] && { echo "$folder"; return; }
  done
}

allowed_for() {
  local entry
  for entry in "${layers[@]}"; do
    [[ ${entry%%|*} == "$1" ]] && { echo "${entry#*|}"; return; }
  done
}

check_file() {
  local root=$1 file=$2 relative=${2#$1/} layer allowed failures=0 line header
  layer=$(layer_of "$relative")
  allowed=$(allowed_for "$layer")
  while IFS= read -r line; do
    header=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$line")
    if [[ $header != */* ]] || [ -e "$(dirname "$file")/$header" ]; then
      continue  # the including file's own folder
    fi
    local rooted=0 prefix ok=0
    for prefix in $source_roots; do [[ $header == "$prefix"* ]] && rooted=1; done
    if [ $rooted = 0 ]; then
      echo "include outside the source roots: $relative includes \"$header\" (write it from the repository root: $source_roots)"
      failures=$((failures + 1)); continue
    fi
    [ -z "$layer" ] && continue  # tests, benches and fuzz targets may use every layer
    for prefix in $allowed; do [[ $header == "$prefix"* ]] && ok=1; done
    if [[ $header == targets/detect/* ]] && [[ " $may_see_detect " != *" $layer "* ]]; then ok=0; fi
    if [ $ok = 0 ]; then
      echo "forbidden include: $relative includes \"$header\" (layer $layer may use: $allowed)"
      failures=$((failures + 1))
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
  [ -z "$layer" ] && return $((failures > 0))
  local third
  third=$(third_party_for "$layer")
  while IFS= read -r line; do
    local ok=1 lib permitted
    header=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]+)>.*/\1/' <<<"$line")
    for lib in $known_third_party; do
      if [[ $header == "$lib"* ]]; then
        ok=0
        for permitted in $third; do [[ $header == "$permitted"* ]] && ok=1; done
      fi
    done
    if [ $ok = 0 ]; then
      echo "forbidden third-party include: $relative includes <$header>"
      failures=$((failures + 1))
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$file")
  return $((failures > 0))
}

check_tree() {
  local root=$1 failures=0 file
  while IFS= read -r file; do
    check_file "$root" "$file" || failures=$((failures + 1))
  done < <(find "$root" \( -path "$root/build*" -o -path "$root/.git" -o -path "$root/fixtures" \) -prune \
             -o \( -name '*.h' -o -name '*.cc' -o -name '*.c' \) -print)
  return $((failures > 0))
}

if [ "${1:-}" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/solver" "$scratch/src/pkg" "$scratch/src/install" "$scratch/lock" \
           "$scratch/targets/detect" "$scratch/tests"
  echo '#include "solver/term.h"' >"$scratch/solver/ok.h"
  echo '#include "lock/lockfile.h"' >"$scratch/tests/ok_test.cc"
  check_tree "$scratch" >/dev/null || { echo "self-test: a clean tree was rejected"; exit 1; }
  for bad in 'solver/bad.h:#include "src/pkg/version.h"' 'lock/bad.cc:#include "src/index/simple.h"' \
             'src/pkg/bad.cc:#include <nlohmann/json.hpp>' \
             'lock/bad.cc:#include "targets/detect/detect.h"' \
             'src/install/bad.cc:#include "targets/detect/detect.h"' \
             'tests/bad_test.cc:#include "build/generated.h"' \
             'src/pkg/bad.cc:#include "pkg/version.h"'; do
    rm -f "$scratch"/solver/bad.h "$scratch"/lock/bad.cc "$scratch"/src/pkg/bad.cc \
          "$scratch"/src/install/bad.cc "$scratch"/tests/bad_test.cc
    echo "${bad#*:}" >"$scratch/${bad%%:*}"
    if check_tree "$scratch" >/dev/null; then
      echo "self-test: the forbidden edge in ${bad%%:*} (${bad#*:}) was not caught"; exit 1
    fi
  done
  echo "self-test: forbidden edges are caught"
  exit 0
fi

root=${1:?usage: check_layers.sh ROOT}
if check_tree "$root"; then echo "layering: every include follows docs/architecture.md"; else exit 1; fi
