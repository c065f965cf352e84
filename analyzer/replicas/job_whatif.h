#pragma once
// The job's slowdown and its what-if decomposition (analysis.md §7; Lin et al., OSDI '25, with
// our definitions): every replica's steps re-run by the reference simulator in their observed op
// order, with every op at the job-wide mean of its kind and chunk (all replicas, stages and
// steps), transfers at their median, and the tail (DP sync, optimizer) at its measured work; the
// job's step is its slowest replica's, as the DP sync makes it. S_s, S_d, S_k: the same with
// only stage s, DP replica d or op kind k at its measured costs, over T_ideal.
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/job_result.h"
#include "analyzer/timeline/step_view.h"

namespace bubblescope::analysis {

struct ReplicaSteps {
  const PipelineTrace* pipeline = nullptr;
  std::vector<StepView> views;
};

// Fills the slowdowns, step times and culprit of `job`. Steps missing on a replica, or whose
// order the simulator cannot re-run, are left out (said in job.notes).
void decomposeSlowdown(const std::vector<ReplicaSteps>& replicas, JobResult& job);

// The op type names of Megatron's timers, by kind: "forward-compute", "backward-compute", ...
const char* opTypeName(OpKind kind);

}  // namespace bubblescope::analysis
