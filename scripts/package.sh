#!/usr/bin/env bash
# The Debian package: builds what it installs (the program and the agent, in the demo's build
# directory with its flags), then CPack writes build/package/bubblescope_<version>_<arch>.deb.
# Install it with `apt install ./build/package/bubblescope_*.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" demo_programs
cpack --config "$build/CPackConfig.cmake" -B "$build/package" >/dev/null
ls "$build"/package/bubblescope_*.deb
