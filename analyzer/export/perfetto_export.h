#pragma once
// The analysis as a Chrome-trace JSON file the Perfetto UI (ui.perfetto.dev) and chrome://tracing
// open: one process per stage ("stage 2 (rank 5)"), its ops (F/B/W/BW) as slices, its idle gaps
// as slices named by their class's key ("stall_comm") with the blame in args, transfers as send
// and receive slices joined by flow arrows, and the steps; on request each rank's kernels and NCCL
// calls beside them. Perfetto colors a slice by its name with the digits left out, so every op
// kind and every idle class gets one color of its own.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "analyzer/export/trace_events.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct PerfettoOptions {
  // Also each rank's kernels (a track per stream) and NCCL calls (device_tracks.h), in its
  // stage's process, or in a process of its own ("rank 3") when it runs no stage.
  bool deviceTracks = false;
};

struct PerfettoStats {
  size_t slices = 0;  // of the analysis: ops, idle gaps, transfers, steps
  size_t flows = 0;
  size_t stages = 0;
  size_t kernels = 0;
  size_t ncclCalls = 0;
};

// Times are microseconds with three decimals (exact ns), from the earliest exported time, which
// otherData.origin_ns gives as epoch ns.
PerfettoStats writePerfettoTrace(const traces::Run& run, const AnalysisResult& result,
                                 std::ostream& out, const PerfettoOptions& options = {});

}  // namespace bubblescope::analysis
