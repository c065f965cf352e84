#include "tests/gui/hung_runs.h"

#include "analyzer/hang/hang_analysis.h"
#include "gui/model/rank_rows.h"
#include "tests/support/engine_recording.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::testing {
namespace {

// Records and loads in place; a failed recording leaves the run empty (the tests say why).
void recordAndView(ViewedRun& v, std::vector<std::string> engineArgs) {
  const std::string truth = (v.dir / "truth.json").string();
  v.record = recordEngineRun(v.run.string(), truth, engineArgs);
  if (!std::filesystem::exists(v.run)) return;
  if (std::filesystem::exists(truth)) v.truth = nlohmann::json::parse(readFile(truth));
  v.trace = traces::readRun(v.run);
  v.report = analysis::hang::analyzeHang(v.trace);
  v.result = gui::analyzeForView(v.trace, v.report, {});
  v.model = gui::buildTimelineModel(v.trace, v.result);
  v.overlay = gui::buildHangOverlay(v.report, v.model);
  gui::extendToLastSeen(v.model, v.overlay);
}

}  // namespace

const ViewedRun& mismatchRun() {
  static ViewedRun v;
  static const bool done = (recordAndView(v, {"--schedule", "1f1b", "-p", "4", "-m", "8",
                                              "--mismatch", "1:4", "--timeout", "2"}),
                            true);
  (void)done;
  return v;
}

const ViewedRun& hangBeforeAnyOpRun() {
  static ViewedRun v;
  static const bool done = (recordAndView(v, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--hang",
                                              "1:0", "--timeout", "2"}),
                            true);
  (void)done;
  return v;
}

const ViewedRun& crashRun() {
  static ViewedRun v;
  // The crash ends the run, not the watchdog (kept far off, so a loaded machine cannot race it).
  static const bool done = (recordAndView(v, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--crash",
                                              "2:3", "--timeout", "30"}),
                            true);
  (void)done;
  return v;
}

const ViewedRun& cleanRun() {
  static ViewedRun v;
  static const bool done = (recordAndView(v, {"--schedule", "1f1b", "-p", "2", "-m", "4"}), true);
  (void)done;
  return v;
}

}  // namespace bubblescope::testing
