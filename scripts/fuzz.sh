#!/usr/bin/env bash
# Fuzzes every input bubblescope reads, each target for SECONDS (default 25: what .ci/run gives
# each, the nine together about 4 minutes; run e.g. `scripts/fuzz.sh 1800` for a longer hunt).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# The targets (cmake/fuzzing.cmake) must be built: scripts/build.sh builds them with `all`.
# New inputs go to $BUILD_DIR/fuzz/corpus/TARGET, crashes to $BUILD_DIR/fuzz/findings/TARGET;
# a finding fails the script and is meant to become a seed in the target's corpus (replayed by
# ctest) once fixed. One summary line per target: executions, rate, corpus growth, verdict.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
seconds=${1:-25}
shift || true
list=$build/fuzz-targets.txt
if [[ ! -s $list ]]; then
  echo "fuzz: no fuzz targets in $build (no clang++ with libFuzzer?); nothing fuzzed" >&2
  exit 0
fi
failed=0
while read -r name binary seeds dict max_len; do
  if (($# > 0)) && [[ " $* " != *" $name "* ]]; then continue; fi
  corpus=$build/fuzz/corpus/$name
  findings=$build/fuzz/findings/$name
  log=$build/fuzz/$name.log
  mkdir -p "$corpus" "$findings"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
    -print_final_stats=1 -artifact_prefix="$findings/")
  [[ $dict != - ]] && args+=(-dict="$dict")
  status=ok
  # The first directory takes what the run finds; the checked-in seeds are only read.
  "$binary" "${args[@]}" "$corpus" "$seeds" >"$log" 2>&1 || status=FAILED
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  printf 'fuzz: %-22s %6ss %12s executions %8s/s  corpus %5s  %s\n' "$name" "$seconds" \
    "${execs:-?}" "${rate:-?}" "$units" "$status"
  if [[ $status != ok ]]; then
    failed=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 >&2 || true
    echo "fuzz: $name: the input is in $findings, the log in $log" >&2
  fi
done <"$list"
exit $failed
