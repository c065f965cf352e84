#pragma once
// Utilization of any job (analysis.md §7): every rank's device time split per step, its idle
// gaps with what the host was doing, the slowest rank and step. Used when the run holds no
// pipeline; needs nothing but kernels (and NCCL calls, to tell waiting from transfer).
#include <string>
#include <vector>

#include "analyzer/result/utilization_result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Throws AnalysisInputError when no rank has any device work. What the NCCL matching warns of
// (comm_warnings.h) is added to `warnings` when given.
UtilizationResult utilizationOf(const traces::Run& run, bool alignClocks,
                                std::vector<std::string>* warnings = nullptr);

}  // namespace bubblescope::analysis
