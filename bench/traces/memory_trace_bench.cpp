// A memory window's trace in steady state (watch, docs/agent.md): it holds `keep` seconds of
// NVTX ranges at a given rate; every 200 ms the writer adds 200 ms of them, commits and prunes
// what ended more than `keep` ago. Times that cycle (insert + commit + prune), the prune alone,
// and a snapshot's image; reports the image's size.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

constexpr int64_t kCycleNs = 200'000'000;
constexpr int64_t kKeepNs = 5'000'000'000;

struct Steady {
  std::unique_ptr<TraceWriter> trace = TraceWriter::inMemory(RankMeta{});
  std::vector<StringId> names;
  int64_t now = 0;
  int64_t perCycle;

  explicit Steady(int64_t perSecond) : perCycle(perSecond / 5) {
    for (int i = 0; i < 64; ++i) {
      names.push_back(trace->intern((i % 2 ? "B mb=" : "F mb=") + std::to_string(i / 2)));
    }
    while (now < kKeepNs) cycle();  // full: keep seconds held
  }
  // One writer cycle's rows, committed: ranges ending evenly over the last 200 ms.
  void add() {
    for (int64_t i = 0; i < perCycle; ++i) {
      const int64_t end = now + i * kCycleNs / perCycle;
      trace->add(RangeRecord{end - 1000, end, 1, 1, 0, names[static_cast<size_t>(i) % 64], 1,
                             RangeKind::PushPop, 0, 0});
    }
    now += kCycleNs;
    trace->commit();
  }
  void cycle() {
    add();
    trace->pruneBefore(now - kKeepNs);
  }
};

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void BM_MemoryTraceCycle(benchmark::State& state) {
  Steady s(state.range(0));
  double prune = 0;
  for (auto _ : state) {
    s.add();
    const auto t0 = std::chrono::steady_clock::now();
    s.trace->pruneBefore(s.now - kKeepNs);
    prune += seconds(std::chrono::steady_clock::now() - t0);
  }
  state.counters["prune_ms"] = prune * 1e3 / static_cast<double>(state.iterations());
  state.counters["image_MiB"] = static_cast<double>(s.trace->imageBytes()) / (1 << 20);
}
BENCHMARK(BM_MemoryTraceCycle)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_MemoryTraceImage(benchmark::State& state) {
  Steady s(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) bytes = s.trace->image().size();
  state.counters["image_MiB"] = static_cast<double>(bytes) / (1 << 20);
}
BENCHMARK(BM_MemoryTraceImage)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bubblescope::traces

BENCHMARK_MAIN();
