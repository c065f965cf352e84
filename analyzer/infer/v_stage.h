#pragma once
// One stage's calls and compute laid out for reading a V (v_reading.h): its point-to-point calls
// in groups posted together, and the stretches of compute between the groups, on the device
// (runs of kernel launches) or on the host (time between calls). Pure.
#include <cstdint>
#include <vector>

#include "analyzer/infer/stretch_split.h"
#include "analyzer/infer/v_reading.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

struct StageCall {
  TimeNs start = 0, end = 0;
  CutKind kind = CutKind::Other;  // Other: a collective, the optimizer, an unmatched transfer
  int32_t row = -1;               // its NCCL call (-1: a range, not a call)
};

struct VStage {
  std::vector<VCall> calls;        // the transfers, in posting order (a group's sends first)
  std::vector<int32_t> rows;       // ... their NCCL calls
  std::vector<StretchSpan> spans;  // stretch g: before group g; the last one after them all
};

// Stretches are runs of `launches` (sorted): calls with no launch between them were posted
// together.
VStage vStageOnDevice(std::vector<StageCall> calls, const std::vector<TimeNs>& launches);

// Stretches are the host time between calls; calls less than `gap` apart were posted together.
VStage vStageOnHost(std::vector<StageCall> calls, TimeNs gap);

}  // namespace bubblescope::analysis
