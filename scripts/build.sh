#!/usr/bin/env bash
# Configures ./build (or $BUILD_DIR) with the one set of flags the demo and the tests share, then
# builds the targets named, or `all` (the program, the agent, the tests) when none is.
#   scripts/build.sh [-DVAR=VALUE...] [TARGET...]   (arguments starting with - go to cmake)
# One set of flags, so test.sh after demo.sh compiles only the tests: warnings are errors in both,
# and -O2 with line tables only (-g1: names and lines for backtraces, perf and sanitizers; full
# -g costs a quarter more compile time, docs/benchmarks.md). Configure a build directory of your
# own with -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" for a debugger's variables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
flags="-O2 -g1 -DNDEBUG"
cmake_args=()
targets=()
for arg in "$@"; do
  if [[ $arg == -* ]]; then cmake_args+=("$arg"); else targets+=(--target "$arg"); fi
done
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUBBLESCOPE_WERROR=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$jobs" "${targets[@]}"
