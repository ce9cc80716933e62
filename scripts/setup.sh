#!/usr/bin/env bash
# Installs the Debian packages wvlock builds and tests with; installs only what is missing, so a
# second run does nothing. Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libtomlplusplus-dev
          libcurl4-openssl-dev libxxhash-dev catch2 libzip-dev libisal-dev libssl-dev zlib1g-dev
          python3 python3-venv python3-packaging python3-pip zip clang libclang-rt-14-dev
          lld  # links wvlock with its start-up order (src/cli/startup.order)
          git python3-setuptools-whl python3-wheel-whl
          ca-certificates  # scripts/check-macos.sh fetches Zig from the npm registry over https
          nginx-light openssl)  # the private-index tests (tests/cli/private_index.h)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies are installed"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
