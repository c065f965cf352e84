#!/usr/bin/env bash
# Issue 30's job budget, measured as rotating rounds in one run: the engine job's mean step
#  - plain:   without the agent;
#  - dormant: under `record --dormant`, never watched: what the agent costs while it waits;
#  - watch:   under `record --dormant`, with `watch --all` following it the whole time;
#  - file:    under a plain `record` (files, no watch): what recording itself costs;
# each mode once a round, the order rotating, so machine drift hits every mode alike. A step is
# stage 0's `step N` range in the engine's truth.json, steps 10 on. Per round: each mode's mean
# step over plain's; then the median of those ratios.
# Usage: job_overhead_rounds.sh BUBBLESCOPE ROUNDS P STEPS   e.g. ... build/bin/bubblescope 8 8 200
set -euo pipefail
bin=$(realpath "$1"); rounds=$2; p=$3; steps=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export BUBBLESCOPE_RUNTIME_DIR=$work/rt; mkdir -m 700 "$work/rt"
engine=("$bin" engine run --schedule 1f1b -p "$p" -m 8 --op-ms 2 --steps "$steps" -q)

mean_step() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
spans = sorted((r["start_ns"], r["end_ns"]) for r in d["stages"][0]["nvtx"] if r["name"].startswith("step "))[10:]
print("%.3f" % (sum(e - s for s, e in spans) / len(spans) / 1e6))
PY
}

run() {  # MODE ROUND
  local t=$work/$1$2.json
  case $1 in
    plain) (cd "$work" && "${engine[@]}" --truth "$t" >/dev/null) ;;
    file) (cd "$work" && "$bin" record -o "$work/run$1$2" -- "${engine[@]}" --truth "$t" >/dev/null 2>&1) ;;
    dormant)
      (cd "$work" && "$bin" record --dormant -o "$work/run$1$2" -- "${engine[@]}" --truth "$t" \
        >/dev/null 2>&1) ;;
    watch)
      (cd "$work" && "$bin" record --dormant -o "$work/run$1$2" -- "${engine[@]}" --truth "$t" \
        >/dev/null 2>&1 &)
      for _ in $(seq 100); do
        [ "$("$bin" ps 2>/dev/null | tail -n +2 | wc -l)" -ge "$p" ] && break; sleep 0.05
      done
      "$bin" watch --all >/dev/null 2>&1 || true
      while [ ! -s "$t" ]; do sleep 0.2; done ;;
  esac
  rm -rf "$work/run$1$2"
}

modes=(plain dormant watch file)
echo "engine: ${engine[*]}; $rounds rounds"
for r in $(seq "$rounds"); do
  for k in 0 1 2 3; do run "${modes[$(( (k + r) % 4 ))]}" "$r"; done
  line="round $r"
  a=$(mean_step "$work/plain$r.json")
  for m in "${modes[@]}"; do
    v=$(mean_step "$work/$m$r.json")
    line+=$(echo "$m $v $a" | awk '{ printf "  %s %.3f ms (%.4fx)", $1, $2, $2 / $3 }')
  done
  echo "$line"
done | tee "$work/rounds"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
summary="median over plain:"
for m in dormant watch file; do
  v=$(grep -o "$m [0-9.]* ms ([0-9.]*x)" "$work/rounds" | sed 's/.*(\(.*\)x)/\1/' | median)
  summary+=$(echo "$m $v" | awk '{ printf " %s %.4fx (%+.2f%%),", $1, $2, ($2 - 1) * 100 }')
done
echo "$summary $rounds rounds"
