#pragma once
// Loading the run a command names, with a progress line on a terminal for long loads.
#include <string>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::cli {

// One run directory or file, or several trace files of one run. Throws TraceError.
traces::Run loadRun(const std::vector<std::string>& paths);

// Throws TraceError naming the first of `paths` that is one of bubblescope's own outputs rather
// than a trace (a report, saved hang answers, a Perfetto export), for what it is and what to give
// instead. What is neither a trace nor ours is left to the loader, which says what it is.
void refuseOwnOutputs(const std::vector<std::string>& paths);

}  // namespace bubblescope::cli
