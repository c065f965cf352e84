#include "analyzer/replicas/job_analysis.h"

#include "analyzer/replicas/culprit.h"
#include "analyzer/replicas/dp_sync.h"
#include "analyzer/replicas/sequence_imbalance.h"

namespace bubblescope::analysis {

void analyzeJob(const std::vector<PipelineTrace>& pipelines, const std::vector<DpWaits>& dpWaits,
                JobResult& job) {
  // The rounds a distributed analysis makes, in one process. A replica's step views are built
  // for each round and dropped after it: 10,000 replicas' views held at once were the peak.
  std::vector<ReplicaCosts> costs;
  std::vector<std::optional<SequenceImbalance>> imbalances;
  costs.reserve(pipelines.size());
  imbalances.reserve(pipelines.size());
  JobIdealSums sums;
  for (const PipelineTrace& pl : pipelines) {
    const ReplicaSteps replica{&pl, buildStepViews(pl)};
    sums.add(costs.emplace_back(replicaCostsOf(replica)));
    imbalances.push_back(sequenceImbalanceOf(replica));
  }
  const JobIdeal ideal = sums.finish();
  std::vector<ReplicaReplay> replays;
  replays.reserve(pipelines.size());
  for (const PipelineTrace& pl : pipelines) {
    replays.push_back(replayReplica({&pl, buildStepViews(pl)}, ideal));
  }
  analyzeJobFrom(costs, ideal, replays, dpWaits, std::move(imbalances), job);
}

void analyzeJobFrom(const std::vector<ReplicaCosts>& costs, const JobIdeal& ideal,
                    const std::vector<ReplicaReplay>& replays, const std::vector<DpWaits>& dpWaits,
                    std::vector<std::optional<SequenceImbalance>>&& imbalances, JobResult& job) {
  job.present = true;
  finishSlowdown(costs, ideal, replays, job);
  blameDpSync(dpWaits, job);
  for (auto& found : imbalances) {
    if (found) job.sequenceImbalance.push_back(std::move(*found));
  }
  nameCulprit(job);
}

}  // namespace bubblescope::analysis
