// What inferring the pipeline from p2p traffic adds to the analysis (issue 16's budget: at most
// 20% at 8 ranks x 1 M events): the same generated 8-stage job (tests/tracegen; 1F1B, or ZB-V,
// whose traffic is read as a V) written as Nsight Systems exports with and without its op labels
// (the ZB-V's labelled run labels its sends and receives too, as torch's runtime does), imported
// once, then analysed in memory.
// The ratio of the two benchmarks' times is the inference's cost; CPU is the whole process's
// (the analysis runs a thread per core), the figure a shared machine's load moves least.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "analyzer/analyze.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/tracegen/unlabelled.h"
#include "traces/import/run_import.h"

namespace bubblescope {
namespace {

namespace fs = std::filesystem;

// About `perRank` events on each rank: nsys writes a kernel, its launch call and the aten range
// around it for each of an op's kernels.
tracegen::JobSpec spec(size_t perRank, bool v) {
  tracegen::JobSpec s;
  s.p = 8;
  s.m = 16;
  s.steps = 4;
  // F and BW per microbatch; a V runs F, B and W of two chunks.
  const size_t ops = static_cast<size_t>(s.steps * s.m * (v ? 6 : 2));
  s.kernelsPerOp = static_cast<int>(perRank / (3 * ops));
  s.costF = 2'000'000;
  s.costBW = 4'000'000;
  if (v) {
    s.schedule = tracegen::JobSchedule::ZbV;
    s.costF = s.costB = s.costW = 1'000'000;
    s.labelP2p = true;
  }
  return s;
}

fs::path written(size_t perRank, bool labels, bool v) {
  const fs::path dir = fs::temp_directory_path() /
                       ("bubblescope-bench-infer-" + std::string(v ? "zbv-" : "") +
                        std::to_string(perRank) + (labels ? "-labelled" : "-unlabelled"));
  if (fs::exists(dir / "done")) return dir;  // an earlier run wrote it
  fs::remove_all(dir);
  fs::create_directories(dir);
  const tracegen::JobTimeline job = tracegen::execute(spec(perRank, v));
  tracegen::NsysOptions o;
  o.ranksPerHost = 1;
  tracegen::writeNsysExports(labels ? job : tracegen::withoutOpLabels(job), dir, o);
  std::ofstream(dir / "done") << "ok";
  return dir;
}

void analyse(benchmark::State& state, bool labels, bool v = false) {
  const size_t perRank = static_cast<size_t>(state.range(0));
  const traces::Run run =
      traces::import::importRun(traces::import::resolveInputs({written(perRank, labels, v)})).run;
  for (auto _ : state) {
    analysis::AnalysisResult r = analysis::analyzeRun(run);
    if (r.inference.fromP2p == labels) state.SkipWithError("inference used (or not) unexpectedly");
    benchmark::DoNotOptimize(r.pipelines.data());
  }
  state.counters["events"] = static_cast<double>(run.eventCount());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(run.eventCount()));
}

void BM_AnalyzeLabelled(benchmark::State& state) {
  analyse(state, true);
}
void BM_AnalyzeUnlabelled(benchmark::State& state) {
  analyse(state, false);
}
void BM_AnalyzeLabelledZbV(benchmark::State& state) {
  analyse(state, true, true);
}
void BM_AnalyzeUnlabelledZbV(benchmark::State& state) {
  analyse(state, false, true);
}

BENCHMARK(BM_AnalyzeLabelled)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_AnalyzeUnlabelled)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_AnalyzeLabelledZbV)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_AnalyzeUnlabelledZbV)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace bubblescope

BENCHMARK_MAIN();
