#pragma once
// `bubblescope watch`: a line per training step with its time, bubble, S and culprit, and a line
// when a culprit starts or ends (issue 30). `watch RUN`: the steps of a recorded run, one by one,
// as a live watch would have read them; each step is analysed alone, so `analyze --steps N` of
// the same step reads the same figures.
#include <string>
#include <vector>

#include "cli/analysis_flags.h"

namespace bubblescope::cli {

struct WatchOptions {
  std::vector<std::string> runs;
  std::string prometheus;  // --prometheus FILE: the newest step, rewritten after each
  AnalysisFlags analysis;
};

int runWatch(const WatchOptions& o);

}  // namespace bubblescope::cli
