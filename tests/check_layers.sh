#!/usr/bin/env bash
# The one-way layering rule of docs/architecture.md, checked on #include lines.
# Usage: check_layers.sh ROOT          check the tree at ROOT
#        check_layers.sh --self-test   prove the check fails on a forbidden edge
set -u

# folder -> include prefixes it may use (project headers are included as "layer/file.h").
allowed_for() {
  case "$1" in
    src/base) echo "base/" ;;
    solver) echo "solver/" ;;
    src/pkg) echo "pkg/ base/" ;;
    targets/detect) echo "targets/ pkg/ base/" ;;
    targets) echo "targets/ pkg/ base/" ;;
    src/index) echo "index/ pkg/ base/" ;;
    src/net) echo "net/ base/" ;;
    src/zip) echo "base/" ;;
    lock) echo "lock/ solver/ targets/ pkg/ base/" ;;
    src/install) echo "install/ lock/ targets/ pkg/ base/" ;;
    src/build) echo "build/ install/ lock/ targets/ pkg/ solver/ base/" ;;
    src/cli) echo "cli/ build/ install/ lock/ index/ net/ targets/ pkg/ solver/ base/" ;;
  esac
}
# third-party headers each layer may include at all (the designated .cc files are reviewed)
third_party_for() {
  case "$1" in
    src/base) echo "xxhash.h openssl/" ;;
    solver|src/pkg) echo "" ;;
    targets|lock) echo "toml++/" ;;
    targets/detect) echo "dlfcn.h cpuid.h sys/ mach-o/" ;;
    src/index) echo "nlohmann/ zip.h zlib.h" ;;
    src/net) echo "curl/" ;;
    src/zip) echo "zip.h isa-l/" ;;
    src/install) echo "zip.h nlohmann/" ;;
    src/build) echo "zip.h nlohmann/ zlib.h" ;;
    src/cli) echo "nlohmann/ toml++/" ;;
  esac
}
known_third_party="nlohmann/ toml++/ curl/ xxhash.h zip.h openssl/ zlib.h"

check_tree() {
  local root=$1 failures=0
  for layer in src/base solver src/pkg targets targets/detect src/zip src/index src/net lock src/install src/build src/cli; do
    [ -d "$root/$layer" ] || continue
    local allowed third
    allowed=$(allowed_for "$layer")
    third=$(third_party_for "$layer")
    # targets/ itself excludes targets/detect/ (a lower layer may not see the live probes)
    local files
    if [ "$layer" = targets ]; then
      files=$(find "$root/targets" -path "$root/targets/detect" -prune -o \( -name '*.h' -o -name '*.cc' \) -print)
    else
      files=$(find "$root/$layer" \( -name '*.h' -o -name '*.cc' \) -print)
    fi
    for file in $files; do
      while IFS= read -r line; do
        local header ok=0
        header=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$line")
        for prefix in $allowed; do
          [[ $header == "$prefix"* ]] && ok=1
        done
        if [ "$layer" = targets ] && [[ $header == targets/detect/* ]]; then ok=0; fi
        if [ $ok = 0 ]; then
          echo "forbidden include: ${file#$root/} includes \"$header\" (layer $layer may use: $allowed)"
          failures=$((failures + 1))
        fi
      done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
      while IFS= read -r line; do
        local header ok=1
        header=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]+)>.*/\1/' <<<"$line")
        for lib in $known_third_party; do
          if [[ $header == "$lib"* ]]; then
            ok=0
            for permitted in $third; do [[ $header == "$permitted"* ]] && ok=1; done
          fi
        done
        if [ $ok = 0 ]; then
          echo "forbidden third-party include: ${file#$root/} includes <$header>"
          failures=$((failures + 1))
        fi
      done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$file")
    done
  done
  return $((failures > 0))
}

if [ "${1:-}" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/solver" "$scratch/src/pkg" "$scratch/lock"
  echo '#include "solver/term.h"' >"$scratch/solver/ok.h"
  check_tree "$scratch" >/dev/null || { echo "self-test: a clean tree was rejected"; exit 1; }
  for bad in 'solver/bad.h:#include "pkg/version.h"' 'lock/bad.cc:#include "index/simple.h"' \
             'src/pkg/bad.cc:#include <nlohmann/json.hpp>'; do
    rm -f "$scratch"/solver/bad.h "$scratch"/lock/bad.cc "$scratch"/src/pkg/bad.cc
    echo "${bad#*:}" >"$scratch/${bad%%:*}"
    if check_tree "$scratch" >/dev/null; then
      echo "self-test: the forbidden edge in ${bad%%:*} was not caught"; exit 1
    fi
  done
  echo "self-test: forbidden edges are caught"
  exit 0
fi

root=${1:?usage: check_layers.sh ROOT}
if check_tree "$root"; then echo "layering: every include follows docs/architecture.md"; else exit 1; fi
