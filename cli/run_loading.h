#pragma once
// Loading the run a command names, with a progress line on a terminal for long loads.
#include <string>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::cli {

// One run directory or file, or several trace files of one run. Throws TraceError.
traces::Run loadRun(const std::vector<std::string>& paths);

}  // namespace bubblescope::cli
