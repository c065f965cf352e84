#!/usr/bin/env bash
# What to run on a machine with an NVIDIA GPU, a driver and the CUDA toolkit (the development
# machine has none): CUDA and NCCL capture checked on real hardware.
#   1. scripts/gpu/cuda_nccl_app.cpp (CUDA runtime, cuBLAS, a single-rank NCCL communicator)
#      under `bubblescope record`: kernels, copies, sets, syncs and launch calls are captured;
#      every kernel joins its launch call by correlation id; NCCL calls carry peer and bytes and
#      their kernels (ncclDevKernel_*) join them through external correlation; NVTX and CUPTI
#      times line up (each kernel starts after its launch, inside its step's range).
#   2. The reference engine's cuda compute mode under `record`: one trace per stage with kernels
#      and one ncclAllReduce per step and chunk.
#   3. Overhead on a launch-heavy loop: per-launch time with and without the agent.
# Usage: scripts/gpu-validation.sh [BUILD_DIR] [OUT_DIR]   (default build, gpu-validation-out)
# Prints the figures; copies the small program's trace to traces/samples/ when all checks pass.
set -euo pipefail

build=${1:-build}
out=${2:-gpu-validation-out}
cuda=${CUDA_HOME:-/usr/local/cuda}
bubblescope="$build/bin/bubblescope"
root=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "gpu-validation: $*" >&2; exit 1; }
[[ -x "$bubblescope" ]] || die "no $bubblescope: build first (cmake -S . -B $build -G Ninja && cmake --build $build)"
command -v nvidia-smi >/dev/null || die "no nvidia-smi: this needs a GPU machine"
command -v sqlite3 >/dev/null || die "no sqlite3 (scripts/install-deps.sh)"
nvidia-smi -L

rm -rf "$out"
mkdir -p "$out"
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

fail=0
check() {  # check NAME SQL EXPECTATION (test(1) on the value: "-gt 0")
  local name=$1 db=$2 sql=$3 test=$4 value
  value=$(sqlite3 "$db" "$sql")
  if [[ -n "$value" ]] && test "$value" $test 2>/dev/null; then
    echo "ok    $name: $value"
  else
    echo "FAIL  $name: $value (want $test)"
    fail=1
  fi
}

# ---- 1. A small CUDA + NCCL program ----
app="$out/cuda_nccl_app"
g++ -std=c++17 -O2 -I"$cuda/include" "$root/scripts/gpu/cuda_nccl_app.cpp" -L"$cuda/lib64" \
  -lcudart -lcublas -lnccl -o "$app"
steps=5
"$bubblescope" record -o "$out/app" -- "$app" "$steps" 20000 | tee "$out/app.txt"
db=$(ls "$out"/app/*.sqlite | head -1)
check "CUDA capture active" "$db" "SELECT value FROM meta WHERE key='cuda_capture'" "-eq 1"
check "kernels" "$db" "SELECT count(*) FROM kernels" "-gt 20000"
check "memcpys (2 in, 1 out per step)" "$db" "SELECT count(*) FROM memcpys" "-ge $((3 * steps))"
check "memsets" "$db" "SELECT count(*) FROM memsets" "-ge $steps"
check "stream syncs" "$db" "SELECT count(*) FROM syncs WHERE sync_type = 3" "-ge $steps"
check "launch calls" "$db" \
  "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id
   WHERE s.value LIKE 'cudaLaunchKernel%' OR s.value LIKE 'cuLaunchKernel%'" "-gt 20000"
check "kernels without their launch call (correlation)" "$db" \
  "SELECT count(*) FROM kernels k WHERE NOT EXISTS
     (SELECT 1 FROM api_calls a WHERE a.correlation = k.correlation)" "-eq 0"
check "copies without their call" "$db" \
  "SELECT count(*) FROM memcpys m WHERE NOT EXISTS
     (SELECT 1 FROM api_calls a WHERE a.correlation = m.correlation)" "-eq 0"
check "kernels starting before their launch (clock alignment, 50 us slack)" "$db" \
  "SELECT count(*) FROM kernels k JOIN api_calls a ON a.correlation = k.correlation
   WHERE k.start < a.start - 50000" "-eq 0"
check "step launches outside their step's NVTX range (same thread)" "$db" \
  "SELECT count(*) FROM api_calls a JOIN kernels k ON k.correlation = a.correlation
   JOIN strings s ON s.id = k.name_id
   WHERE s.value LIKE '%gemm%' AND NOT EXISTS (SELECT 1 FROM nvtx_ranges r
     JOIN strings n ON n.id = r.name_id
     WHERE n.value LIKE 'step %' AND r.tid = a.tid AND r.start <= a.start AND a.end <= r.end)" "-eq 0"
# NCCL: op 1 Send, 2 Recv, 3 AllReduce; peer 0 of a one-rank communicator; bytes from count.
check "ncclAllReduce calls, 4 MiB each" "$db" \
  "SELECT count(*) FROM nccl_calls WHERE op = 3 AND bytes = 4194304 AND comm_size = 1" "-eq $steps"
check "ncclSend calls to peer 0, 1 MiB" "$db" \
  "SELECT count(*) FROM nccl_calls WHERE op = 1 AND peer = 0 AND bytes = 1048576" "-eq $steps"
check "ncclRecv calls from peer 0, 1 MiB" "$db" \
  "SELECT count(*) FROM nccl_calls WHERE op = 2 AND peer = 0 AND bytes = 1048576" "-eq $steps"
check "NCCL kernels" "$db" \
  "SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name_id
   WHERE s.value LIKE 'ncclDevKernel%' OR s.value LIKE 'ncclKernel%'" "-ge $steps"
check "NCCL kernels tied to an NCCL call (external correlation)" "$db" \
  "SELECT count(DISTINCT k.rowid) FROM kernels k JOIN strings s ON s.id = k.name_id
   JOIN correlations c ON c.correlation = k.correlation AND c.external_kind = 1
   JOIN nccl_calls n ON (n.id = c.external_id OR (n.id >> 16) = (c.external_id >> 16))
   WHERE s.value LIKE 'nccl%'" "-ge $steps"
check "NCCL kernels with no NCCL call" "$db" \
  "SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name_id
   WHERE s.value LIKE 'nccl%' AND NOT EXISTS (SELECT 1 FROM correlations c
     WHERE c.correlation = k.correlation AND c.external_kind = 1)" "-eq 0"
check "CUPTI records dropped" "$db" \
  "SELECT coalesce(sum(count), 0) FROM dropped_events WHERE source = 'cupti'" "-eq 0"

# ---- 2. The reference engine, cuda compute mode ----
"$bubblescope" record -o "$out/engine" -- "$bubblescope" engine run --compute cuda \
  --schedule 1f1b -p 2 -m 4 --steps 3 --mlp-width 1024 --mlp-batch 256 \
  --truth "$out/engine-truth.json"
for db in "$out"/engine/*.sqlite; do
  check "$(basename "$db"): kernels" "$db" "SELECT count(*) FROM kernels" "-gt 0"
  check "$(basename "$db"): kernels without launch" "$db" \
    "SELECT count(*) FROM kernels k WHERE NOT EXISTS
       (SELECT 1 FROM api_calls a WHERE a.correlation = k.correlation)" "-eq 0"
  check "$(basename "$db"): grad_sync all-reduces (one per step)" "$db" \
    "SELECT count(*) FROM nccl_calls WHERE op = 3" "-eq 3"
done
"$bubblescope" analyze "$out/engine" > "$out/engine-analysis.txt" || fail=1

# ---- 3. Overhead on a launch-heavy loop ----
plain=$("$app" 1 50000 | awk '/per_launch_ns/ {print $4}')
traced=$("$bubblescope" record -o "$out/overhead" -- "$app" 1 50000 | awk '/per_launch_ns/ {print $4}')
echo "launch loop: ${plain} ns per launch without the agent, ${traced} ns with it (CUDA capture on)"

if [[ $fail -eq 0 ]]; then
  mkdir -p "$root/traces/samples"
  cp "$(ls "$out"/app/*.sqlite | head -1)" "$root/traces/samples/gpu-cuda-nccl.sqlite"
  echo "all checks passed; trace copied to traces/samples/gpu-cuda-nccl.sqlite"
else
  echo "some checks failed: see above and $out/" >&2
  exit 1
fi
