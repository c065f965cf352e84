#include "bench/analyzer/analysis_runs.h"

#include <sys/resource.h>

#include <fstream>

#include "analyzer/analyze.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::bench {
namespace {

namespace fs = std::filesystem;

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

fs::path cachedRunDir(const std::string& name, const std::function<void(const fs::path&)>& make) {
  const fs::path dir = fs::temp_directory_path() / name;
  if (fs::exists(dir / "done")) return dir;  // written by an earlier run of this benchmark
  fs::remove_all(dir);
  fs::create_directories(dir);
  make(dir);
  std::ofstream(dir / "done") << "ok";
  return dir;
}

void loadAndAnalyze(benchmark::State& state, const fs::path& dir) {
  size_t events = 0, waits = 0;
  const long before = peakRssKb();
  for (auto _ : state) {
    traces::Run run = traces::readRun(dir);
    events = run.eventCount();
    analysis::AnalysisResult r = analysis::analyzeRun(run);
    waits = 0;
    for (const auto& pl : r.pipelines) waits += pl.commWaits.size();
    benchmark::DoNotOptimize(r.pipelines.data());
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["comm_waits"] = static_cast<double>(waits);  // > 0: the comm split was on
  state.counters["peak_rss_bytes_per_event"] =
      static_cast<double>(peakRssKb() - before) * 1024.0 / static_cast<double>(events);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(events));
}

void analyzeOnly(benchmark::State& state, const fs::path& dir) {
  const traces::Run run = traces::readRun(dir);
  for (auto _ : state) {
    analysis::AnalysisResult r = analysis::analyzeRun(run);
    benchmark::DoNotOptimize(r.pipelines.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(run.eventCount()));
}

}  // namespace bubblescope::bench
