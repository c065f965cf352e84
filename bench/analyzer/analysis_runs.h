#pragma once
// What both analysis benchmarks do with a run stored as bubblescope traces: make it once under
// $TMPDIR (kept between runs of the benchmark, so a second run's memory figure leaves out making
// it), then load and analyse it, or analyse it already in memory.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <functional>
#include <string>

namespace bubblescope::bench {

// $TMPDIR/<name>, made by `make` (which writes the rank files into the directory it is given)
// unless an earlier run left it complete.
std::filesystem::path cachedRunDir(const std::string& name,
                                   const std::function<void(const std::filesystem::path&)>& make);

// Each iteration reads the run and analyses it; counters: events, NCCL kernels split (comm
// waits) and peak resident memory per event over the iterations.
void loadAndAnalyze(benchmark::State& state, const std::filesystem::path& dir);

// Each iteration analyses the run read once before.
void analyzeOnly(benchmark::State& state, const std::filesystem::path& dir);

}  // namespace bubblescope::bench
