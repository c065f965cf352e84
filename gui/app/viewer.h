#pragma once
// The desktop viewer behind `bubblescope view`: one analysed run (or two, compared) on a Tracy-
// and Perfetto-like timeline, with a side panel of breakdowns. Also renders single frames to PNG
// (--screenshot) for tests, reports and the README.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "analyzer/analyze.h"
#include "gui/app/live_feed.h"
#include "traces/model/trace.h"

namespace bubblescope::gui {

// Loads a run from a path (a run directory, trace files, Kineto or nsys exports); throws
// traces::TraceError or std::invalid_argument with one sentence.
using RunLoader = std::function<traces::Run(const std::string& path)>;

struct ViewerOptions {
  std::string run;
  std::string compare;                 // a second run, shown under the first; "" for none
  std::optional<int64_t> step;         // step number to open at; default: most avoidable idle
  std::optional<int64_t> compareStep;  // the compared run's step aligned with it; default: same
  std::optional<std::pair<double, double>> rangeMs;  // view, in ms from the step's start
  std::string screenshot;                            // render one frame to this PNG and exit
  int width = 1600, height = 900;
  int dp = 0;              // the DP replica shown first
  bool expandAll = false;  // open every stage's detail rows
  RunLoader load;
  analysis::AnalyzeOptions analyze;
  // view --attach: a running job instead of `run`, its newest steps shown as they finish.
  LiveFeed live;
  int64_t afterSteps = 1;  // with a screenshot: once this many new steps were shown
};

// No window can be opened (no display); the message says what to do instead.
class NoDisplayError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Opens the window and returns when it is closed (0), or writes the screenshot and returns.
// Bad input (not a run, an unknown step) throws std::invalid_argument or traces::TraceError, as
// does a job that ends or hangs before a live screenshot has a step to show.
int runViewer(const ViewerOptions& options);

}  // namespace bubblescope::gui
