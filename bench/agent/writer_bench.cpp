// The agent's drain path: records already in a thread's ring → decoders → SQLite, committed.
// Budget ≥ 1 M events/s on one core (docs/agent.md). Each iteration fills the ring with
// NVTX range records (the handlers' wire format, 64 distinct names), then times the writer
// thread from wake-up until they are committed (wall time, and CPU time for a loaded machine).
// Into the trace file (a window), then into memory (a memory window for watch, keeping 600 s so
// that nothing is pruned: the steady state's pruning is bench/traces/memory_trace_bench's), then
// into the file with a watch beside it (the memory trace follows the file).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/core/clock.h"
#include "agent/core/producer.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/core/writer.h"
#include "agent/nvtx/nvtx_records.h"

namespace bubblescope::agent {
namespace {

namespace fs = std::filesystem;

fs::path g_dir;

FileSetup setup() {
  FileSetup s;
  s.dir = g_dir;
  s.fileName = "writer-bench.sqlite";
  s.meta.rank = 0;
  return s;
}

// Fills the calling thread's ring without waking the writer.
int64_t fill(int64_t count, const std::vector<std::string>& names) {
  ThreadState* ts = currentThreadState();
  int64_t written = 0;
  uint64_t t = nowTicks();
  for (int64_t i = 0; i < count; ++i) {
    const std::string& name = names[static_cast<size_t>(i) % names.size()];
    NvtxRangePayload p{t, t + 1000, nullptr, nullptr, 0, 0, static_cast<uint32_t>(i % 3), 0};
    t += 2000;
    const uint32_t bytes = recordBytes(sizeof p, static_cast<uint32_t>(name.size()));
    uint8_t* at = ts->ring.reserve(bytes);
    if (at == nullptr) break;
    writeRecord(at, bytes, g_nvtxTypes.range, &p, sizeof p, name.data(),
                static_cast<uint16_t>(name.size()));
    ts->ring.commit(bytes);
    ++written;
  }
  return written;
}

void drain(benchmark::State& state) {
  std::vector<std::string> names;
  for (int i = 0; i < 64; ++i) {
    names.push_back((i % 2 ? "B mb=" : "F mb=") + std::to_string(i / 2));
  }
  const int64_t batch = state.range(0);
  int64_t total = 0;
  double cpuSeconds = 0;  // the process's CPU time while the writer works (the rest waits)
  for (auto _ : state) {
    Recorder::instance().renewWatch(realtimeNs());  // a memory window's lease (no-op otherwise)
    const int64_t n = fill(batch, names);
    if (n != batch) state.SkipWithError("ring too small for the batch");
    const auto start = std::chrono::steady_clock::now();
    const int64_t cpuStart = readClockNs(CLOCK_PROCESS_CPUTIME_ID);
    ensureWriter();
    if (!flushWriter(60'000)) state.SkipWithError("writer did not finish");
    const auto stop = std::chrono::steady_clock::now();
    cpuSeconds += static_cast<double>(readClockNs(CLOCK_PROCESS_CPUTIME_ID) - cpuStart) * 1e-9;
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    total += n;
  }
  state.SetItemsProcessed(total);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  // On a shared machine the writer does not get a whole core: events per CPU second is what
  // one core would sustain.
  state.counters["events/cpu_s"] = static_cast<double>(total) / cpuSeconds;
  const WriterStats stats = writerStats();
  state.counters["written"] = static_cast<double>(stats.eventsWritten);
}
void BM_WriterDrainNvtxRanges(benchmark::State& state) {
  drain(state);
}
BENCHMARK(BM_WriterDrainNvtxRanges)
    ->Arg(1'000'000)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_WriterDrainNvtxRangesIntoMemory(benchmark::State& state) {
  Recorder& recorder = Recorder::instance();
  recorder.stop();  // the file window of the benchmark above
  if (!recorder.watch(600'000'000'000, realtimeNs())) {
    state.SkipWithError("the recorder refused a memory window");
    return;
  }
  drain(state);
  recorder.stop();
  flushWriter(60'000);
}
BENCHMARK(BM_WriterDrainNvtxRangesIntoMemory)
    ->Arg(1'000'000)
    ->Iterations(2)  // 2 M ranges and their index: about half the memory trace's 256 MiB
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Into the file with a watch beside it (issue 30): the writer writes the file as above, then copies
// what each commit added into the watch's memory trace (keeping 600 s: nothing pruned).
void BM_WriterDrainNvtxRangesBesideAWatch(benchmark::State& state) {
  Recorder& recorder = Recorder::instance();
  WindowRequest file;
  file.reason = "bench";
  std::string why;
  if (!recorder.request(file, &why) || !recorder.watch(600'000'000'000, realtimeNs(), &why)) {
    state.SkipWithError(("the recorder refused: " + why).c_str());
    return;
  }
  drain(state);
  recorder.stop();  // the file window
  recorder.stop();  // the watch
  flushWriter(60'000);
}
BENCHMARK(BM_WriterDrainNvtxRangesBesideAWatch)
    ->Arg(1'000'000)
    ->Iterations(2)  // as into memory: the memory trace's 256 MiB
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bubblescope::agent

int main(int argc, char** argv) {
  using namespace bubblescope::agent;
  g_dir = std::filesystem::temp_directory_path() /
          ("bubblescope-writer-bench-" + std::to_string(getpid()));
  selectTicks(true);
  configureThreadBuffers(size_t{128} << 20, 4);
  registerNvtxRecords();
  WriterOptions options;
  options.setup = &setup;
  options.startAnchor = readTickAnchor();
  configureWriter(options);
  Recorder::instance().begin(true, "bench");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  finishWriter(60'000);
  std::error_code ec;
  std::filesystem::remove_all(g_dir, ec);
  return 0;
}
