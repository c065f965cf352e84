#pragma once
// A run as the viewer holds it: the loaded traces, their analysis and the timeline rows, loaded
// in the foreground at startup or in a background thread from the window (a run to compare with).
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "analyzer/hang/hang.h"
#include "analyzer/result/result.h"
#include "gui/app/viewer.h"
#include "gui/model/hang_overlay.h"
#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

struct LoadedRun {
  std::string path;
  traces::Run run;
  analysis::AnalysisResult result;
  TimelineModel model;  // points into run and result: a LoadedRun never moves
  // `bubblescope hang`'s report on the run and its marks on the rows (none when it ended cleanly).
  analysis::hang::HangReport hang;
  HangOverlay hangOverlay;
  double loadSeconds = 0, analyzeSeconds = 0, modelSeconds = 0, hangSeconds = 0;

  LoadedRun() = default;
  LoadedRun(const LoadedRun&) = delete;
  LoadedRun& operator=(const LoadedRun&) = delete;
};

// Loads, analyses and builds the rows, with the hang's marks when the run did not end cleanly;
// throws what the loader and the analysis throw. A hung run whose pipeline the analysis cannot
// recognise is still shown, a row per rank (gui/model/rank_rows.h).
std::unique_ptr<LoadedRun> loadRun(const std::string& path, const RunLoader& load,
                                   const analysis::AnalyzeOptions& options);
// The same from an in-memory run (the benchmark, tests, a running job's window). `running`: the
// job still runs (view --attach), so the ranges it has open are the step under way, not a hang:
// no hang analysis.
std::unique_ptr<LoadedRun> analyzeLoaded(std::string path, traces::Run run,
                                         const analysis::AnalyzeOptions& options,
                                         bool running = false);

// One load in a background thread; the window polls it each frame.
class BackgroundLoad {
 public:
  void start(const std::string& path, const RunLoader& load, const analysis::AnalyzeOptions& o);
  bool running() const { return future_.valid(); }
  const std::string& path() const { return path_; }
  // The run once it is loaded (and the load is over); throws the load's error once.
  std::unique_ptr<LoadedRun> poll();

 private:
  std::string path_;
  std::future<std::unique_ptr<LoadedRun>> future_;
};

}  // namespace bubblescope::gui
