#pragma once
// The job-wide analysis of a run of several DP replicas or TP ranks (job_result.h): after each
// replica's pipeline has been analysed on its own, the replicas together.
#include <optional>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/replicas/job_whatif.h"
#include "analyzer/result/dp_wait.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// Fills everything of `job` but the TP groups (foldTpGroups does those, before the pipelines are
// built). `dpWaits`: each pipeline's waits at the DP sync (dpWaitsOf), in the same order.
void analyzeJob(const std::vector<PipelineTrace>& pipelines, const std::vector<DpWaits>& dpWaits,
                JobResult& job);

// The same from what each replica's process sent (analyze under MPI: replicaCostsOf, then
// replayReplica at the ideal JobIdealSums makes of their costs, and sequenceImbalanceOf), each list
// in replica order.
void analyzeJobFrom(const std::vector<ReplicaCosts>& costs, const JobIdeal& ideal,
                    const std::vector<ReplicaReplay>& replays, const std::vector<DpWaits>& dpWaits,
                    std::vector<std::optional<SequenceImbalance>>&& imbalances, JobResult& job);

}  // namespace bubblescope::analysis
