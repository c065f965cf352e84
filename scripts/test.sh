#!/usr/bin/env bash
# Every test: installs what it needs, builds with warnings as errors, runs ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh" -DBUBBLESCOPE_WERROR=ON
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300
