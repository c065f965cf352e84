#pragma once
// The one sentence a report leads with for a job of several replicas or TP ranks: which DP
// replica, stage and op type to fix, and by how much the step would shrink. Pure: reads the
// decomposition (S_s, S_d, S_k), the TP groups and the sequence-length findings.
#include <string>

#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// A part straggles when its what-if slowdown is at least this far above 1 ...
inline constexpr double kStragglerExcess = 0.03;
// ... and its excess is this many times the next part's of its table (one replica or one stage
// stands out; a slow stage on every replica raises every S_d alike).
inline constexpr double kStandsOut = 2.0;

void nameCulprit(JobResult& job);

// Where the culprit is a replica's stalls (JobResult::culpritStalls), what that replica's pipeline
// names (its culprit's first clause: "stall: comm on stage 2: 35.1 ms of idle ..."), once the
// replicas are analysed after the job.
void addStallingPipeline(JobResult& job, const std::string& pipelineCulprit);

}  // namespace bubblescope::analysis
