#!/usr/bin/env bash
# What recording costs the job with and without `record --watch` (issue 30), as interleaved runs
# (the order rotates each round, so machine drift hits every mode alike): the engine's median
# step time (its own step lines, step 0 left out) under
#  - base:  `record` with another agent library (BASE_AGENT: e.g. the one built before a change),
#  - file:  `record` with this build's agent,
#  - watch: `record --watch` with this build's agent (the watch beside each rank's file).
# base against file says whether a change costs file recording without a watch anything.
# Usage: record_watch_bench.sh BUILD_DIR BASE_AGENT ROUNDS [engine run options...]
#   e.g. record_watch_bench.sh build /tmp/base-agent.so 6 --op-ms 2 --steps 100
set -euo pipefail
bin=$(cd "$1" && pwd)/bin/bubblescope
agent=$(cd "$1" && pwd)/lib/bubblescope/libbubblescope-agent.so
base=$(realpath "$2")
rounds=$3
shift 3
engine=(engine run --schedule 1f1b -p 4 -m 8 "$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BUBBLESCOPE_RUNTIME_DIR=$tmp/rt
mkdir -m 700 "$tmp/rt"

# Step times in ms of one run (the engine's own lines), step 0 left out.
steps() {
  local mode=$1 i=$2 out
  case $mode in
    base) out=$(BUBBLESCOPE_AGENT=$base "$bin" record -o "$tmp/$mode-$i" -- "$bin" "${engine[@]}" \
                  --truth "$tmp/t.json" 2>/dev/null) ;;
    file) out=$(BUBBLESCOPE_AGENT=$agent "$bin" record -o "$tmp/$mode-$i" -- "$bin" "${engine[@]}" \
                  --truth "$tmp/t.json" 2>/dev/null) ;;
    watch) out=$(BUBBLESCOPE_AGENT=$agent "$bin" record --watch -o "$tmp/$mode-$i" -- "$bin" \
                   "${engine[@]}" --truth "$tmp/t.json" 2>/dev/null) ;;
  esac
  # The engine's lines are indented; the watch's (stdout too) are not.
  awk '/^  step / && $2 > 0 { print $3 }' <<<"$out"
}

modes=(base file watch)
for i in $(seq 1 "$rounds"); do
  for k in 0 1 2; do
    mode=${modes[$(( (i + k) % 3 ))]}
    steps "$mode" "$i" | sed "s/^/$i $mode /" >>"$tmp/steps"
  done
done

echo "engine: ${engine[*]}; $rounds rounds"
for mode in "${modes[@]}"; do
  awk -v m="$mode" '$2 == m { print $3 }' "$tmp/steps" | sort -n >"$tmp/$mode"
  awk -v m="$mode" '{ v[NR] = $1; s += $1 } END {
    printf "%-6s %4d steps  mean %8.3f ms  median %8.3f ms\n", m, NR, s / NR,
           (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }' "$tmp/$mode"
done
# Per round, each mode's median step over base's (medians resist a shared machine's preemptions).
for mode in file watch; do
  for i in $(seq 1 "$rounds"); do
    b=$(awk -v i="$i" '$1 == i && $2 == "base" { print $3 }' "$tmp/steps" | sort -n |
          awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    m=$(awk -v i="$i" -v m="$mode" '$1 == i && $2 == m { print $3 }' "$tmp/steps" | sort -n |
          awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v b="$b" -v m="$m" 'BEGIN { printf "%.4f\n", m / b }'
  done | sort -n | awk -v mode="$mode" '{ v[NR] = $1 } END {
    printf "%-6s over base, per round: median %.4fx (%.4f to %.4f)\n", mode, v[int((NR + 1) / 2)],
           v[1], v[NR] }'
done
