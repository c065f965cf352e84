// Analysis throughput: 8 ranks x 1 M events each, loaded from their files and analysed, within
// 5 s on the 2-core machine; memory per event (peak RSS over events).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "bench/analyzer/analysis_runs.h"
#include "tests/analyzer/synthetic_run.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope {
namespace {

namespace fs = std::filesystem;
using traces::StreamIndex;

// A GPU-like run: the synthetic 8-stage 1F1B job's op ranges, each op launching kernels (a
// cudaLaunchKernel call inside the op's range, the kernel inside its span), until each rank holds
// `perRank` events.
traces::Run gpuLikeRun(size_t perRank) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(8, 32);
  job.steps = 10;
  traces::Run run = testing::synthesize(job);
  for (auto& t : run.ranks) {
    const StreamIndex stream = t.streamIndex(0, 7);
    const auto name = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
    const auto launch = t.strings.intern("cudaLaunchKernel");
    std::vector<size_t> ops;
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      const auto n = t.strings.at(t.ranges->name[i]);
      if (n.starts_with("F ") || n.starts_with("BW ")) ops.push_back(i);
    }
    const size_t perOp = (perRank - t.eventCount()) / (2 * ops.size());
    uint32_t correlation = 1;
    for (size_t i : ops) {
      const TimeNs s = t.ranges->start[i], e = t.ranges->end[i];
      const TimeNs slot = (e - s) / static_cast<TimeNs>(perOp);
      for (size_t k = 0; k < perOp; ++k, ++correlation) {
        const TimeNs at = s + static_cast<TimeNs>(k) * slot;
        t.apiCalls->start.push_back(at);
        t.apiCalls->end.push_back(at + slot / 8);
        t.apiCalls->thread.push_back(0);
        t.apiCalls->name.push_back(launch);
        t.apiCalls->correlation.push_back(correlation);
        t.kernels->start.push_back(at + slot / 4);
        t.kernels->end.push_back(at + slot - 1);
        t.kernels->stream.push_back(stream);
        t.kernels->name.push_back(name);
        t.kernels->correlation.push_back(correlation);
      }
    }
  }
  return run;
}

fs::path runDir(size_t perRank) {
  return bench::cachedRunDir(
      "bubblescope-bench-analyze-" + std::to_string(perRank), [&](const fs::path& dir) {
        traces::Run run = gpuLikeRun(perRank);
        for (auto& t : run.ranks) {
          writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
        }
      });
}

void BM_LoadAndAnalyze(benchmark::State& state) {
  bench::loadAndAnalyze(state, runDir(static_cast<size_t>(state.range(0))));
}
BENCHMARK(BM_LoadAndAnalyze)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AnalyzeOnly(benchmark::State& state) {
  bench::analyzeOnly(state, runDir(static_cast<size_t>(state.range(0))));
}
BENCHMARK(BM_AnalyzeOnly)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace bubblescope

BENCHMARK_MAIN();
