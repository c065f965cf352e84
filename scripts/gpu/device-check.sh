#!/usr/bin/env bash
# The GPU checks in one run, for a lent GPU machine that has CUDA but none of our Debian packages
# (nothing can be installed there): the binaries built here travel in BUNDLE with the Debian
# libraries they need (bin/, lib/bubblescope/, syslib/, include/nccl.h), and the CUDA libraries
# (CUPTI, runtime, cuBLAS, NCCL) are the machine's own, found wherever its toolkit or PyTorch's
# wheels put them.
#   1. scripts/gpu-validation.sh: CUDA and NCCL capture on real hardware, and its overhead.
#   2. Faults on a real GPU: the reference engine's cuda mode under `record`, each fault placed
#      on a stage, analysed; what the report says (class, culprit, top gap) is kept beside the
#      engine's truth so the words can be checked against what was done.
# Usage: scripts/gpu/device-check.sh BUNDLE OUT
set -uo pipefail

bundle=$(cd "${1:?bundle}" && pwd)
out=${2:?out}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
nvidia-smi -L || echo "no nvidia-smi"

# The machine's CUDA libraries: the toolkit's, else the wheels PyTorch brought.
cuda_dirs=()
for pattern in 'libcupti.so*' 'libcudart.so.1*' 'libcublas.so.1*' 'libnccl.so*' 'libcublasLt.so.1*'; do
  found=$(find /usr/local/cuda* /opt /usr/lib -name "$pattern" 2>/dev/null | head -1)
  echo "$pattern: ${found:-not found}"
  [[ -n "$found" ]] && cuda_dirs+=("$(dirname "$found")")
done
cuda_path=$(printf '%s\n' "${cuda_dirs[@]}" | awk '!seen[$0]++' | paste -sd:)

# Wrappers: our programs see the bundle's Debian libraries; nothing else on the machine does.
wrap() {  # wrap NAME: bin/NAME runs bin/NAME.real with the bundle's libraries
  local bin="$bundle/build/bin/$1"
  [[ -f "$bin.real" ]] || mv "$bin" "$bin.real"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s:%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s.real" "$@"\n' \
    "$bundle/syslib" "$cuda_path" "$bin" >"$bin"
  chmod +x "$bin"
}
wrap bubblescope
wrap sqlite3
export PATH="$bundle/build/bin:$PATH"
export LD_LIBRARY_PATH="$cuda_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CPATH="$bundle/include${CPATH:+:$CPATH}"
bs="$bundle/build/bin/bubblescope"
"$bs" --help >/dev/null && echo "bubblescope starts" || echo "bubblescope does not start"

echo "==== 1. gpu-validation.sh"
ln -sf "$bundle/build" "$out/build"
# It links the small program against the toolkit: give it the machine's library dirs.
LIBRARY_PATH="$cuda_path" timeout 240 bash "$root/scripts/gpu-validation.sh" "$bundle/build" \
  "$out/validation" 2>&1 | tee "$out/validation.txt"

echo "==== 2. faults on a real GPU"
faults=("none:" "slow-stage:--slow-stage 2:1.5" "stall:--stall 1:5:20" "host-stall:--host-stall 1:5:20"
        "comm-delay:--comm-delay 2:5" "stall-warmup:--stall 2:1:20" "stall-drain:--stall 0:7:20")
for entry in "${faults[@]}"; do
  name=${entry%%:*}
  args=${entry#*:}
  dir="$out/faults/$name"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  timeout 90 "$bs" record -o "$dir/run" -- "$bs" engine run --compute cuda --schedule 1f1b \
    -p 4 -m 8 --steps 3 --mlp-width 4096 --mlp-batch 1024 $args --truth "$dir/truth.json" \
    >"$dir/engine.txt" 2>&1
  echo "$name: engine exit $?"
  timeout 60 "$bs" analyze "$dir/run" >"$dir/analysis.txt" 2>&1
  timeout 60 "$bs" analyze "$dir/run" --format json -o "$dir/analysis.json" >/dev/null 2>&1
  grep -E "^culprit|slowdown S|^  1\. |^     stage" "$dir/analysis.txt" | head -4
done
rm -f "$out/build"
