#!/usr/bin/env bash
# How long `bubblescope hang --all` takes to answer for a hung job of many ranks: a reference
# engine pipeline of RANKS stages under a dormant agent, stage 0 stopped before its first op
# (--hang 0:0), so every other stage waits in a receive. The query is timed REPEATS times, each
# a whole process (start, discovery, every socket, the analysis, the report).
# Budget (issue 17): 64 ranks answer in ≤ 1 s.
# Usage: bench/agent/hang_live_bench.sh [BUILD_DIR] [RANKS] [REPEATS]
set -euo pipefail
build=${1:-build}
ranks=${2:-64}
repeats=${3:-10}
bin=$(cd "$build" && pwd)/bin/bubblescope
tmp=$(mktemp -d)
mkdir -m 700 "$tmp/rt"
export BUBBLESCOPE_RUNTIME_DIR=$tmp/rt
unset XDG_RUNTIME_DIR
"$bin" record --dormant -o "$tmp/run" -- "$bin" engine run --schedule 1f1b -p "$ranks" -m "$ranks" \
  --op-ms 2 --hang 0:0 --timeout 300 -q >"$tmp/job.log" 2>&1 &
job=$!
trap 'kill -- -$job 2>/dev/null || kill $job 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# Until every stage answers and the hang is found (the waits outlast --min-wait).
for _ in $(seq 1 120); do
  n=$("$bin" hang --all --min-wait 1 --format json 2>/dev/null | grep -c '"ended": "running"' || true)
  found=$("$bin" hang --all --min-wait 1 >/dev/null 2>&1; echo $?)
  [ "$n" -ge "$ranks" ] && [ "$found" = 1 ] && break
  sleep 0.5
done
echo "ranks answering: $n of $ranks"
("$bin" hang --all --min-wait 1 || true) | head -1 | cut -c1-200

for i in $(seq 1 "$repeats"); do
  start=$(date +%s%N)
  "$bin" hang --all --min-wait 1 --format json >/dev/null || true
  end=$(date +%s%N)
  echo $(( (end - start) / 1000 ))
done | sort -n | awk '{ v[NR] = $1 } END {
  printf "hang --all, %d runs: median %.1f ms, min %.1f ms, max %.1f ms\n", NR, v[int((NR + 1) / 2)] / 1000, v[1] / 1000, v[NR] / 1000 }'
