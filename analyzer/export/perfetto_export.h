#pragma once
// The analysis as a Chrome-trace JSON file the Perfetto UI (ui.perfetto.dev) and chrome://tracing
// open: one process per stage ("stage 2 (rank 5)"), its ops (F/B/W/BW) as slices, its idle gaps
// as slices named by their class's key ("stall_comm") with the blame in args, transfers as send
// and receive slices joined by flow arrows, and the steps. Perfetto colors a slice by its name
// with the digits left out, so every op kind and every idle class gets one color of its own.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "analyzer/export/trace_events.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct PerfettoStats {
  size_t slices = 0;
  size_t flows = 0;
  size_t processes = 0;
};

// Times are microseconds with three decimals (exact ns), from the earliest exported time, which
// otherData.origin_ns gives as epoch ns.
PerfettoStats writePerfettoTrace(const traces::Run& run, const AnalysisResult& result,
                                 std::ostream& out);

}  // namespace bubblescope::analysis
