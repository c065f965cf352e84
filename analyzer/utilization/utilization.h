#pragma once
// Utilization of any job (analysis.md §7): every rank's device time split per step, its idle
// gaps with what the host was doing, the slowest rank and step. Used when the run holds no
// pipeline; needs nothing but kernels (and NCCL calls, to tell waiting from transfer).
#include "analyzer/result/utilization_result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Throws AnalysisInputError when no rank has any device work.
UtilizationResult utilizationOf(const traces::Run& run, bool alignClocks);

}  // namespace bubblescope::analysis
