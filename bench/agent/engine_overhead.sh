#!/usr/bin/env bash
# The reference engine's step time without and with the capture agent, as paired runs
# interleaved in one invocation (the order alternates each pair), so machine drift hits both
# sides alike. Budget: the agent costs ≤ 1 % of step time.
# Usage: bench/agent/engine_overhead.sh [BUILD_DIR] [PAIRS] [engine run options...]
set -euo pipefail
build=${1:-build}
pairs=${2:-10}
shift $(( $# > 2 ? 2 : $# ))
bin=$(cd "$build" && pwd)/bin/bubblescope
engine=(engine run --schedule 1f1b -p 4 -m 8 --compute sleep --steps 8 "$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Step times in ms of one run, step 0 (warm-up) left out.
steps() {
  local mode=$1 i=$2 out
  if [ "$mode" = agent ]; then
    out=$("$bin" record -o "$tmp/run-$i" -- "$bin" "${engine[@]}" --truth "$tmp/truth.json" 2>/dev/null)
  else
    out=$("$bin" "${engine[@]}" --truth "$tmp/truth.json")
  fi
  awk '$1 == "step" && $2 > 0 { print $3 }' <<<"$out"
}

for i in $(seq 1 "$pairs"); do
  if (( i % 2 )); then order="plain agent"; else order="agent plain"; fi
  for mode in $order; do
    steps "$mode" "$i" | sed "s/^/$i $mode /" >>"$tmp/steps"
  done
done

echo "engine: ${engine[*]}; $pairs pairs"
for mode in plain agent; do
  awk -v m="$mode" '$2 == m { print $3 }' "$tmp/steps" | sort -n >"$tmp/$mode"
  awk -v m="$mode" '{ v[NR] = $1; s += $1 } END {
    printf "%-6s %3d steps  mean %8.3f ms  median %8.3f ms\n", m, NR, s / NR,
           (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }' "$tmp/$mode"
done
# Per pair: the agent run's median step over the plain run's (medians resist the preemptions of a
# shared machine); then the median and mean of those ratios.
awk '{ print $1, $2, $3 }' "$tmp/steps" | sort -k1,1n -k2,2 -k3,3n | awk '
  function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function flush() { if (n) { med[key] = median(v, n) } n = 0 }
  { k = $1 " " $2; if (k != key) { flush(); key = k } v[++n] = $3 }
  END { flush()
        for (k in med) { split(k, a, " "); if (a[2] == "plain") r[++c] = med[a[1] " agent"] / med[k] }
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
        for (i = 1; i <= c; i++) s += r[i]
        printf "agent / plain, per-pair median step: median %.4f (%+.2f %%), mean %.4f (%+.2f %%), %d pairs\n",
               median(r, c), (median(r, c) - 1) * 100, s / c, (s / c - 1) * 100, c }'
