// Trace format throughput: writer events/s (budget >= 1 M/s on one core), reader events/s
// (budget >= 5 M/s), bytes per event on disk and in memory.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "traces/model/memory.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("bubblescope-bench-" + std::to_string(getpid()) + "-" + name);
}

void removeTrace(const fs::path& f) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(f.string() + suffix);
}

// A recording's mix: per step, NVTX op ranges and the kernels, launches and correlations they
// cause. Commits every `batch` events, as the agent's writer thread does every 200 ms.
constexpr int kBatch = 20000;

void writeRanges(TraceWriter& w, int64_t n) {
  StringId names[4] = {w.intern("F mb=0"), w.intern("B mb=0"), w.intern("W mb=0"),
                       w.intern("SEND F mb=0 to=1")};
  for (int64_t i = 0; i < n; ++i) {
    const TimeNs t = 1'700'000'000'000'000'000 + i * 1000;
    w.add(RangeRecord{t, t + 800, 4242, 4242, 0, names[i & 3], uint16_t(i & 1), RangeKind::PushPop,
                      0, 0});
    if ((i + 1) % kBatch == 0) w.commit();
  }
  w.commit();
}

void writeKernels(TraceWriter& w, int64_t n) {
  const StringId name = w.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  for (int64_t i = 0; i < n; ++i) {
    const TimeNs t = 1'700'000'000'000'000'000 + i * 1000;
    KernelRecord k;
    k.start = t;
    k.end = t + 700;
    k.stream = 7;
    k.correlation = static_cast<uint32_t>(i);
    k.name = name;
    k.grid[0] = 132;
    k.block[0] = 384;
    w.add(k);
    if ((i + 1) % kBatch == 0) w.commit();
  }
  w.commit();
}

void BM_WriteNvtxRanges(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    const fs::path f = scratch("write-ranges.sqlite");
    removeTrace(f);
    {
      TraceWriter w(f, RankMeta{});
      writeRanges(w, n);
      state.PauseTiming();  // index building at close is not on the recording path
      w.close();
      state.counters["disk_bytes_per_event"] = double(fs::file_size(f)) / double(n);
      state.ResumeTiming();
    }
    removeTrace(f);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_WriteNvtxRanges)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WriteKernels(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    const fs::path f = scratch("write-kernels.sqlite");
    removeTrace(f);
    {
      TraceWriter w(f, RankMeta{});
      writeKernels(w, n);
      state.PauseTiming();
      w.close();
      state.counters["disk_bytes_per_event"] = double(fs::file_size(f)) / double(n);
      state.ResumeTiming();
    }
    removeTrace(f);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_WriteKernels)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reads a closed file of n events: half NVTX ranges, half kernels.
void BM_ReadTrace(benchmark::State& state) {
  const int64_t n = state.range(0);
  const fs::path f = scratch("read.sqlite");
  removeTrace(f);
  {
    TraceWriter w(f, RankMeta{});
    writeRanges(w, n / 2);
    writeKernels(w, n / 2);
    w.close();
  }
  size_t memory = 0;
  for (auto _ : state) {
    RankTrace t = readRankTrace(f);
    benchmark::DoNotOptimize(t.kernels->start.data());
    memory = eventMemoryBytes(t);
  }
  state.counters["memory_bytes_per_event"] = double(memory) / double(n);
  state.counters["disk_bytes_per_event"] = double(fs::file_size(f)) / double(n);
  state.SetItemsProcessed(state.iterations() * n);
  removeTrace(f);
}
BENCHMARK(BM_ReadTrace)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reads a run directory of 4 ranks (n events in all), as the analyzer does: files in parallel on
// every core.
void BM_ReadRun(benchmark::State& state) {
  const int64_t n = state.range(0);
  const fs::path dir = scratch("run");
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int rank = 0; rank < 4; ++rank) {
    RankMeta meta;
    meta.rank = rank;
    TraceWriter w(dir / ("rank-0000" + std::to_string(rank) + ".sqlite"), meta);
    writeRanges(w, n / 8);
    writeKernels(w, n / 8);
    w.close();
  }
  for (auto _ : state) {
    Run run = readRun(dir);
    benchmark::DoNotOptimize(run.ranks.data());
  }
  state.counters["threads"] = double(std::thread::hardware_concurrency());
  state.SetItemsProcessed(state.iterations() * n);
  fs::remove_all(dir);
}
BENCHMARK(BM_ReadRun)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace bubblescope::traces

BENCHMARK_MAIN();
