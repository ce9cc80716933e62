#!/usr/bin/env bash
# Every call that is not POSIX lives behind src/base/platform.h (docs/architecture.md, "The
# platform module"): this check fails when a Linux-only or macOS-only identifier appears in
# code anywhere else, so the macOS build (scripts/check-macos.sh) cannot silently break again.
# Usage: check_platform.sh ROOT          check the tree at ROOT
#        check_platform.sh --self-test   prove the check fails on a system call out of place
set -u

# Files that may use system-specific calls: the two implementations, and detection's probes of
# the live machine (each part under its own #if: /proc, sysfs, the auxiliary vector, sysctl).
allowed_files="src/base/platform_linux.cc src/base/platform_macos.cc targets/detect/"
# Identifiers that exist on one system only. Words are matched whole; string literals by their
# opening quote ("/proc/...").
forbidden='(<linux/|<sys/vfs\.h>|<sys/auxv\.h>|<sys/clonefile\.h>|\bFICLONE\b|\bsyncfs\b|'\
'\brenameat2\b|\bRENAME_EXCHANGE\b|\bcopy_file_range\b|\bst_[amc]tim\b|\bst_[amc]timespec\b|'\
'"/proc/|"/sys/|\bO_TMPFILE\b|\bstatx\b|\bgetauxval\b|\bpipe2\b|\baccept4\b|\bdup3\b|'\
'\bmemfd_create\b|\bepoll_[a-z]+\b|\binotify_[a-z_]+\b|\bsendfile\b|\bfallocate\b|'\
'\bsched_getaffinity\b|\bclonefile\b|\bfclonefileat\b|\brenamex_np\b|\bRENAME_SWAP\b|'\
'\bF_FULLFSYNC\b|\bsysctlbyname\b)'
source_folders="src lock targets solver"

is_allowed() {
  local prefix
  for prefix in $allowed_files; do [[ $1 == "$prefix"* ]] && return 0; done
  return 1
}

check_tree() {
  local root=$1 failures=0 file relative hits
  while IFS= read -r file; do
    relative=${file#"$root"/}
    is_allowed "$relative" && continue
    # Comments may name the calls (they say why the code goes through the platform module).
    hits=$(sed -E 's://.*$::' "$file" | grep -nE "$forbidden")
    if [ -n "$hits" ]; then
      while IFS= read -r hit; do
        echo "system-specific call outside src/base/platform_*.cc: $relative:$hit"
      done <<<"$hits"
      failures=$((failures + 1))
    fi
  done < <(cd "$root" && for folder in $source_folders; do
             [ -d "$folder" ] && find "$root/$folder" \( -name '*.h' -o -name '*.cc' \) -print
           done)
  return $((failures > 0))
}

if [ "${1:-}" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/src/base" "$scratch/src/install" "$scratch/targets/detect"
  printf '#include <linux/fs.h>\nint f() { return FICLONE; }\n' \
    >"$scratch/src/base/platform_linux.cc"
  printf 'const char* p = "/proc/cpuinfo";\n' >"$scratch/targets/detect/cpu.cc"
  printf '// renameat2 would swap them\nint g();\n' >"$scratch/src/install/ok.cc"
  check_tree "$scratch" >/dev/null || { echo "self-test: a clean tree was rejected"; exit 1; }
  for bad in 'src/install/bad.cc:int s(int fd) { return syncfs(fd); }' \
             'src/base/bad.cc:long t(const struct stat& s) { return s.st_mtim.tv_sec; }' \
             'lock/bad.h:#include <linux/fs.h>' \
             'targets/bad.cc:const char* p = "/sys/class/kfd";' \
             'src/install/bad.cc:int r() { return renamex_np("a", "b", RENAME_SWAP); }'; do
    mkdir -p "$scratch/$(dirname "${bad%%:*}")"
    echo "${bad#*:}" >"$scratch/${bad%%:*}"
    if check_tree "$scratch" >/dev/null; then
      echo "self-test: ${bad#*:} in ${bad%%:*} was not caught"; exit 1
    fi
    rm -f "$scratch/${bad%%:*}"
  done
  echo "self-test: system-specific calls out of place are caught"
  exit 0
fi

root=${1:?usage: check_platform.sh ROOT}
root=$(cd "$root" && pwd)
if check_tree "$root"; then
  echo "platform: every system-specific call is in src/base/platform_*.cc or detection's probes"
else
  exit 1
fi
