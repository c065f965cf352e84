#!/usr/bin/env bash
# Issue 30's job budget measured inside one job, where job_overhead_rounds.sh compares separate
# jobs: on this 2-core machine two runs of the same job differ by up to 1% in their mean step, more
# than the 0.5% budget, so the rounds cannot tell a watch's cost from the spread between jobs.
# Here one engine job runs under `record --dormant` and a `watch --all` follows it for WATCH_S
# seconds, then leaves it alone for QUIET_S, again and again: the same processes on the same
# cores, watched and dormant in turn. A step is stage 0's `step N` range in the engine's
# truth.json (CLOCK_REALTIME, as `date +%s%N`):
#  - watched: begins 2 s after the watch started (its attach settled) and ends before it stopped;
#  - dormant: begins a second after the watch stopped and `detach --all` ended the agents' memory
#    windows (left alone, a window stays open for its 10 s lease: recorder.cpp, watchLeaseNs), and
#    ends before the next watch.
# Per watched phase: its mean step over the mean of the dormant phases either side of it; then
# the median. A dormant agent records nothing (its NVTX entry points return at once, ≤ 5 ns:
# docs/benchmarks.md), so dormant stands for the job without the agent.
# WATCH_WRAP, if set, is put before the watch's command line (e.g. "nice -n 10") and WATCH_ARGS
# after it (e.g. "--nice 0"). With B_WRAP or B_ARGS set too, the watched phases alternate between
# that watch (A) and the one they give (B), and each gets its median: two ways of watching
# compared in one job, under the same drift.
# Usage: job_overhead_phases.sh BUBBLESCOPE P STEPS WATCH_S QUIET_S
#   e.g. job_overhead_phases.sh build/bin/bubblescope 8 6000 10 10   (8 ranks, ~94 ms steps)
set -euo pipefail
bin=$(realpath "$1"); p=$2; steps=$3; watch_s=$4; quiet_s=$5
settle_s=1  # after the windows ended
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export BUBBLESCOPE_RUNTIME_DIR=$work/rt; mkdir -m 700 "$work/rt"
engine=("$bin" engine run --schedule 1f1b -p "$p" -m 8 --op-ms 2 --steps "$steps" --timeout 86400 -q)
truth=$work/truth.json

(cd "$work" && "$bin" record --dormant -o "$work/run" -- "${engine[@]}" --truth "$truth" \
  >/dev/null 2>&1) &
job=$!
for _ in $(seq 100); do
  [ "$("$bin" ps 2>/dev/null | tail -n +2 | wc -l)" -ge "$p" ] && break; sleep 0.05
done
echo "engine: ${engine[*]}; watched ${watch_s} s, then left ${quiet_s} s, until it ends"
: > "$work/phases"
while kill -0 "$job" 2>/dev/null; do
  sleep "$quiet_s"
  kill -0 "$job" 2>/dev/null || break
  arm=A; wrap=${WATCH_WRAP:-}; args=${WATCH_ARGS:-}
  if [ -n "${B_WRAP:-}${B_ARGS:-}" ] && [ $(( $(wc -l < "$work/phases") % 2 )) -eq 1 ]; then
    arm=B; wrap=${B_WRAP:-}; args=${B_ARGS:-}
  fi
  start=$(date +%s%N)
  timeout -s INT "$watch_s" $wrap "$bin" watch --all $args >/dev/null 2>&1 || true
  "$bin" detach --all >/dev/null 2>&1 || true
  echo "$start $(date +%s%N) $arm" >> "$work/phases"
done
wait "$job" || true
[ -s "$truth" ] || { echo "the job wrote no truth.json"; exit 1; }

python3 - "$truth" "$work/phases" "$settle_s" <<'PY'
import json, statistics, sys
truth, phases, settle = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3]) * 1e9
steps = sorted((r["start_ns"], r["end_ns"]) for r in truth["stages"][0]["nvtx"]
               if r["name"].startswith("step "))[10:]
watches = [(int(a), int(b), arm) for a, b, arm in (l.split() for l in open(phases) if l.strip())]
def mean(a, b):  # mean step (ms) of the steps inside [a, b); none for a phase cut short
    d = [e - s for s, e in steps if s >= a and e < b]
    return (sum(d) / len(d) / 1e6, len(d)) if len(d) >= 50 else (None, len(d))
ratios = {}
for i, (s, e, arm) in enumerate(watches):
    w, nw = mean(s + 2e9, e)
    before = mean(watches[i - 1][1] + settle if i else steps[0][0], s)
    after = mean(e + settle, watches[i + 1][0] if i + 1 < len(watches) else steps[-1][1] + 1)
    quiet = [m for m, n in (before, after) if m is not None]
    if w is None or not quiet:
        continue
    r = w / statistics.mean(quiet)
    ratios.setdefault(arm, []).append(r)
    print("phase %d %s  watched %.3f ms (%d steps)  dormant %s  %.4fx" % (
        i + 1, arm, w, nw, " / ".join("%.3f ms (%d)" % q for q in (before, after) if q[0]), r))
for arm, rs in sorted(ratios.items()):
    m = statistics.median(rs)
    print("%s: median watched over dormant: %.4fx (%+.2f%%), %d phases, %d slower" % (
        arm, m, (m - 1) * 100, len(rs), sum(r > 1 for r in rs)))
PY
