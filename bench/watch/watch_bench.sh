#!/usr/bin/env bash
# What a live watch costs (issue 30's budgets), as alternating pairs in one run:
#  - the job: its mean step time under `record --dormant` with `watch --all` following it the
#    whole time, over the same job run without the agent (the engine's own step ranges, from its
#    truth.json, steps after the first 10);
#  - the watch: its CPU time over its wall time, following every rank, and how long after a
#    step ended (the last stage's `step N` range, CLOCK_REALTIME) its line was printed.
# Usage: watch_bench.sh BUBBLESCOPE PAIRS P M OP_MS STEPS
#   e.g. watch_bench.sh build/bin/bubblescope 3 8 8 2 200    (8 ranks, ~10 steps/s)
set -euo pipefail
bin=$(realpath "$1"); pairs=$2; p=$3; m=$4; op=$5; steps=$6
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export BUBBLESCOPE_RUNTIME_DIR=$work/rt; mkdir -m 700 "$work/rt"
engine=("$bin" engine run --schedule 1f1b -p "$p" -m "$m" --op-ms "$op" --steps "$steps" -q)

mean_step() {  # mean step of stage 0 in a truth.json, steps 10 on, in ms
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
spans = sorted((r["start_ns"], r["end_ns"]) for r in d["stages"][0]["nvtx"] if r["name"].startswith("step "))
spans = spans[10:]
print("%.3f" % (sum(e - s for s, e in spans) / len(spans) / 1e6))
PY
}

for i in $(seq "$pairs"); do
  (cd "$work" && "${engine[@]}" --truth "$work/a$i.json")
  (cd "$work" && "$bin" record --dormant -o "$work/run$i" -- "${engine[@]}" --truth "$work/b$i.json" \
    2>/dev/null &)
  # every rank up, then watch until the job ends
  for _ in $(seq 100); do
    [ "$("$bin" ps 2>/dev/null | tail -n +2 | wc -l)" -ge "$p" ] && break; sleep 0.1
  done
  /usr/bin/time -f "%U %S %e" -o "$work/time$i" "$bin" watch --all 2>/dev/null |
    python3 -c 'import sys, time
for line in sys.stdin: print(time.time_ns(), line, end="", flush=True)' > "$work/watch$i.out"
  while [ ! -s "$work/b$i.json" ]; do sleep 0.2; done
  a=$(mean_step "$work/a$i.json"); b=$(mean_step "$work/b$i.json")
  read -r user sys wall < "$work/time$i"
  lines=$(grep -c '^[0-9]* step [0-9]*  [0-9]' "$work/watch$i.out" || true)
  latency=$(python3 - "$work/b$i.json" "$work/watch$i.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ends = {}
for st in d["stages"]:
    for r in st["nvtx"]:
        if r["name"].startswith("step "):
            n = int(r["name"].split()[1])
            ends[n] = max(ends.get(n, 0), r["end_ns"])
lat = []
for line in open(sys.argv[2]):
    m = re.match(r"(\d+) step (\d+)  [0-9.]+ ms", line)
    if m and int(m.group(2)) in ends:
        lat.append((int(m.group(1)) - ends[int(m.group(2))]) / 1e9)
lat.sort()
print("%.2f s median, %.2f s most" % (lat[len(lat) // 2], lat[-1]) if lat else "none")
PY
)
  python3 -c "print('pair $i: step without agent %s ms, watched %s ms: %.4fx; watch CPU %.1f%% of a core over %s s, %s steps read, each %s after its end' % ('$a', '$b', $b/$a, 100*($user+$sys)/$wall, '$wall', '$lines', '$latency'))"
done
