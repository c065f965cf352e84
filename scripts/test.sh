#!/usr/bin/env bash
# Every test: installs what it needs, builds `all` in the demo's build directory with the demo's
# flags (after demo.sh, only the tests are left to compile), runs ctest, then says in one line
# each why a test skipped (ctest only counts them: a green run that timed no engine job, on a
# loaded machine, looked like one that did).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
rc=0
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300 || rc=$?
# GoogleTest prints "FILE:LINE: Skipped" and then the test's reason on the next line (the first
# only, where a test's helpers skipped twice).
awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
     / Skipped$/ { reason = ""; getline reason
                   if (!seen[name]++) printf "skipped: %s: %s\n", name, reason }' \
  Testing/Temporary/LastTest.log 2>/dev/null || true
exit "$rc"
