#!/usr/bin/env bash
# Every test: installs what it needs, builds `all` in the demo's build directory with the demo's
# flags (after demo.sh, only the tests are left to compile), runs ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300
