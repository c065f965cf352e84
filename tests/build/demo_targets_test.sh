#!/usr/bin/env bash
# Fails if the demo's build grows beyond the program and the capture agent: scripts/demo.sh builds
# the demo_programs target (listed in the top-level CMakeLists.txt) on a fresh clone before its
# first run, and every test or benchmark source pulled into it is minutes of waiting.
# Reads the generated build graph, so dependencies added anywhere are seen.
#   demo_targets_test.sh NINJA BUILD_DIR SOURCE_DIR
set -euo pipefail
ninja=$1 build=$2 src=$3
fail() { echo "demo_programs: $*" >&2; exit 1; }

# 1. What the target names: the program and the agent, nothing else.
inputs=$("$ninja" -C "$build" -t query demo_programs |
  awk '/^  input:/ {on = 1; next} /^  outputs:/ {on = 0} on {print $NF}' | sort | tr '\n' ' ')
want="bin/bubblescope lib/bubblescope/libbubblescope-agent.so "
[[ $inputs == "$want" ]] || fail "builds '${inputs% }', want '${want% }'"

# 2. What building it compiles: no source from tests/ or bench/.
commands=$("$ninja" -C "$build" -t commands demo_programs)
sources=$(grep -o -- ' -c [^ ]*' <<<"$commands" | awk '{print $2}')
(($(wc -l <<<"$sources") > 50)) || fail "found only $(wc -l <<<"$sources") compiled sources: is this the graph?"
stray=$(grep -E "^$src/(tests|bench)/" <<<"$sources" || true)
[[ -z $stray ]] || fail "compiles test or benchmark code: $stray"

# 3. What it links: static archives of ours, and the two.
links=$(grep -v -- ' -c ' <<<"$commands" | grep -o -- ' -o [^ ]*' | awk '{print $2}' | sort | tr '\n' ' ')
[[ $links == "$want" ]] || fail "links '${links% }', want '${want% }'"
echo "demo_programs: builds ${want% } from $(wc -l <<<"$sources") sources, none of tests/ or bench/"
