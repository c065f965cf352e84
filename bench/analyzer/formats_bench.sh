#!/bin/bash
# Issue 29, items 3 and 4: `bubblescope analyze` of one input in every report format (and JSON
# with --detail), each run alone so that its peak RSS is its own, against Python's json.load of
# the same files (the first step of Holistic Trace Analysis), alternated in one run: the machine
# is shared, so compare ratios measured side by side, not figures from different hours.
#   formats_bench.sh BUBBLESCOPE INPUT [PAIRS]
# INPUT: a trace file or a directory of them (kineto_job DIR writes issue 29's budget job). Prints
# one Markdown row per format: least wall of PAIRS runs, its CPU (user + system), peak RSS and
# peak per input event; then the json.load rows and the ratios.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: formats_bench.sh BUBBLESCOPE INPUT [PAIRS]" >&2
  exit 2
fi
bs=$1 input=$2 pairs=${3:-3}
files=$(if [ -d "$input" ]; then find "$input" -maxdepth 1 -name '*.json' | sort; else echo "$input"; fi)

# Events of the input: every element of each file's traceEvents (or of a top-level array).
events=$(python3 - $files <<'PY'
import json, sys
n = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    n += len(d["traceEvents"] if isinstance(d, dict) else d)
print(n)
PY
)

# "wall cpu peak_kb" of one run of the command.
measure() {
  /usr/bin/time -f "%e %U %S %M" -o /tmp/formats_bench.$$ "$@" >/dev/null 2>&1 || {
    echo "formats_bench: failed: $*" >&2
    exit 1
  }
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' /tmp/formats_bench.$$
}

declare -A best
run() {  # name, command...
  local name=$1
  shift
  local r
  r=$(measure "$@")
  if [ -z "${best[$name]:-}" ] || awk -v a="$r" -v b="${best[$name]}" \
      'BEGIN{split(a,x," "); split(b,y," "); exit !(x[1] < y[1])}'; then
    best[$name]=$r
  fi
}

names=(text json json-detail md html junit json.load)
out=$(mktemp -d)
trap 'rm -rf "$out" /tmp/formats_bench.$$' EXIT
for _ in $(seq "$pairs"); do
  # Into a file, as a user writes it (analyze refuses /dev/null and other non-regular outputs).
  for f in text json md html junit; do
    run "$f" "$bs" analyze "$input" --format "$f" -o "$out/report"
  done
  run json-detail "$bs" analyze "$input" --format json --detail -o "$out/report"
  run json.load python3 -c \
    "import json, sys; [json.load(open(f)) for f in sys.argv[1:]]" $files
done

echo "input: $input, $events events, least of $pairs runs each, $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| run | wall s | CPU s | peak MB | peak B/event | wall / json.load | peak / json.load |"
echo "|---|---:|---:|---:|---:|---:|---:|"
read -r lw _ lp <<<"${best[json.load]}"
for n in "${names[@]}"; do
  read -r w c p <<<"${best[$n]}"
  awk -v n="$n" -v w="$w" -v c="$c" -v p="$p" -v e="$events" -v lw="$lw" -v lp="$lp" \
    'BEGIN{printf "| %s | %.2f | %.2f | %.1f | %.1f | %.2f | %.2f |\n", n, w, c, p/1024, p*1024/e, w/lw, p/lp}'
done
