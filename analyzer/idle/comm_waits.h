#pragma once
// Where each stage's NCCL kernels waited, tied to the idle gaps the classification found, so the
// viewer can draw a kernel as its wait (in the gap's class) and its transfer (analysis.md §2).
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// The matched kernels of every stage's representative with a wait before their transfer, each in
// the gap of its stage it overlaps most; waits outside every gap (steps left out) are dropped.
std::vector<CommWait> commWaitsOf(const PipelineTrace& pl, const std::vector<Gap>& gaps);

}  // namespace bubblescope::analysis
