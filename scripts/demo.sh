#!/usr/bin/env bash
# The demo: installs what it needs, builds the program and the capture agent (only those: the
# demo_programs target), then runs `bubblescope demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" demo_programs
exec "${BUILD_DIR:-$root/build}/bin/bubblescope" demo "$@"
