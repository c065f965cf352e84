#pragma once
// The DP sync (analysis.md §7): the replicas' stage s meet in the DP collectives of stage s
// (gradient reduce-scatter / all-reduce) after their last pipeline op, so every replica waits
// there for the one that arrived last. That waiting is blamed on the last replica and stage.
#include <vector>

#include "analyzer/result/dp_wait.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// Fills job.dpSync (largest waiting first) and job.dpWaitPerStep from each replica's waits
// (dpWaitsOf, replicas/dp_waits.h), over the steps every replica has.
void blameDpSync(const std::vector<DpWaits>& waits, JobResult& job);

}  // namespace bubblescope::analysis
