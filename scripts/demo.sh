#!/usr/bin/env bash
# The demo: installs what it needs, builds, then runs `bubblescope demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "${BUILD_DIR:-$root/build}/bin/bubblescope" demo "$@"
