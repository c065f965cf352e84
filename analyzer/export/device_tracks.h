#pragma once
// Each rank's GPU kernels (a track per CUDA stream) and NCCL calls (a track of their own) for the
// Perfetto export, beside the lanes of the stage the rank runs. Written straight from the trace's
// columns: a job's millions of kernels are never gathered.
#include <cstddef>
#include <map>
#include <vector>

#include "analyzer/export/trace_events.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct DeviceTrackCounts {
  size_t kernels = 0;
  size_t ncclCalls = 0;
};

// The earliest kernel or NCCL call of the run, each rank's time plus offsets[rank] (0 past its
// end); INT64_MAX when there is none.
TimeNs earliestDeviceTime(const traces::Run& run, const std::vector<TimeNs>& offsets);

// Rank r's tracks go to process pids[r] (none when it is 0) as threads numbered from nextTid[pid]
// on (1 when absent), which it advances; its times plus offsets[r].
DeviceTrackCounts writeDeviceTracks(const traces::Run& run, const std::vector<TimeNs>& offsets,
                                    const std::vector<int>& pids, std::map<int, int>& nextTid,
                                    TraceEventWriter& out);

}  // namespace bubblescope::analysis
