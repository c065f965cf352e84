#!/usr/bin/env bash
# Installs the Debian 12 packages bubblescope builds, tests and demos with. Idempotent: apt runs
# only when a package is missing. Needs root (or sudo) on a fresh machine.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev libexpat1-dev libpng-dev
  nlohmann-json3-dev libcli11-dev libre2-dev prometheus-cpp-dev
  libopenmpi-dev openmpi-bin
  libsimdjson-dev zlib1g-dev libzstd-dev
  libimgui-dev libglfw3-dev libgl1-mesa-dev libgl1-mesa-dri xvfb xauth
)
# Extra packages for the test suite only.
if [[ "${1:-}" == "--tests" ]]; then
  # chromium: the HTML report's screenshot test; clang + compiler-rt: the importer fuzz target
  packages+=(chromium clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  sudo_cmd=(sudo)
fi
echo "bubblescope: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
