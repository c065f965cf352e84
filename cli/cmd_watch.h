#pragma once
// `bubblescope watch`: a line per training step with its time, bubble, S and culprit, and a line
// when a culprit starts or ends (issue 30). `watch RUN`: the steps of a recorded run, one by one,
// as a live watch would have read them; each step is analysed alone, so `analyze --steps N` of
// the same step reads the same figures. `watch --all` / `--pid`: a job running now
// (cli/watch_live.h).
#include <string>
#include <vector>

#include "cli/analysis_flags.h"
#include "cli/watch_live.h"

namespace bubblescope::cli {

struct WatchOptions {
  std::vector<std::string> runs;
  LiveWatchOptions live;  // --all/--pid/--run-id, --keep, --count; its prometheus and analysis
                          // flags serve a recorded run too
};

int runWatch(const WatchOptions& o);

}  // namespace bubblescope::cli
