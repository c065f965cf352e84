// The simulator at the scale the design asks for (reference-engine.md: p = 64, m = 1024, v = 2
// well under 100 ms), with kind costs (the CLI) and with per-op costs (the analyzer's what-if on
// an observed order), plus generation and validation of the same schedules.
#include <benchmark/benchmark.h>

#include <string>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/schedule/validate.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::engine {
namespace {

constexpr int kStages = 64;
constexpr int kMicrobatches = 1024;

Schedule schedule(const std::string& name) {
  return Schedule::byName(name, kStages, kMicrobatches, /*v=*/2);
}

SimCosts kindCosts() {
  SimCosts c;
  c.perKind = {1'000'000, 1'100'000, 900'000};
  c.transfer = 20'000;
  return c;
}

int64_t opCount(const Schedule& s) {
  int64_t n = 0;
  for (const auto& ops : s.stages) n += static_cast<int64_t>(ops.size());
  return n;
}

void simulateKindCosts(benchmark::State& state, const std::string& name) {
  const Schedule s = schedule(name);
  const SimCosts c = kindCosts();
  for (auto _ : state) benchmark::DoNotOptimize(simulate(s, c));
  state.SetItemsProcessed(state.iterations() * opCount(s));
}

void simulatePerOpCosts(benchmark::State& state, const std::string& name) {
  const Schedule s = schedule(name);
  SimCosts c = kindCosts();
  // Measured costs: every op a little different, as from a trace.
  for (const auto& ops : s.stages) {
    c.perOp.emplace_back();
    for (size_t i = 0; i < ops.size(); ++i)
      c.perOp.back().push_back(900'000 + (i * 7919) % 200'000);
  }
  for (auto _ : state) benchmark::DoNotOptimize(simulate(s, c));
  state.SetItemsProcessed(state.iterations() * opCount(s));
}

// The analyzer's what-if: one observed order prepared once, simulated again and again with new
// costs into the same result (no allocation per call).
void simulatePreparedReusingResult(benchmark::State& state, const std::string& name) {
  const Schedule s = schedule(name);
  const PreparedSchedule prepared(s);
  SimCosts c = kindCosts();
  SimResult result;
  for (auto _ : state) {
    c.perKind.f += 1;  // a different cost model each time
    simulate(prepared, c, result);
    benchmark::DoNotOptimize(result.makespan);
  }
  state.SetItemsProcessed(state.iterations() * opCount(s));
}

void prepare(benchmark::State& state, const std::string& name) {
  const Schedule s = schedule(name);
  for (auto _ : state) benchmark::DoNotOptimize(PreparedSchedule(s));
}

void generate(benchmark::State& state, const std::string& name) {
  for (auto _ : state) benchmark::DoNotOptimize(schedule(name));
}

void validateSchedule(benchmark::State& state, const std::string& name) {
  const Schedule s = schedule(name);
  for (auto _ : state) benchmark::DoNotOptimize(validate(s));
}

BENCHMARK_CAPTURE(simulateKindCosts, interleaved_p64_m1024_v2, "interleaved")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateKindCosts, 1f1b_p64_m1024, "1f1b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateKindCosts, zbh1_p64_m1024, "zb-h1")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateKindCosts, zbh2_p64_m1024, "zb-h2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateKindCosts, zbv_p64_m1024, "zb-v")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulatePerOpCosts, interleaved_p64_m1024_v2, "interleaved")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulatePerOpCosts, zbh1_p64_m1024, "zb-h1")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulatePreparedReusingResult, interleaved_p64_m1024_v2, "interleaved")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulatePreparedReusingResult, 1f1b_p64_m1024, "1f1b")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulatePreparedReusingResult, zbh1_p64_m1024, "zb-h1")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(prepare, interleaved_p64_m1024_v2, "interleaved")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generate, interleaved_p64_m1024_v2, "interleaved")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(validateSchedule, interleaved_p64_m1024_v2, "interleaved")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bubblescope::engine

BENCHMARK_MAIN();
