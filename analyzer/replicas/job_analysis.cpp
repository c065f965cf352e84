#include "analyzer/replicas/job_analysis.h"

#include "analyzer/replicas/culprit.h"
#include "analyzer/replicas/dp_sync.h"
#include "analyzer/replicas/job_whatif.h"
#include "analyzer/replicas/sequence_imbalance.h"

namespace bubblescope::analysis {

void analyzeJob(const std::vector<PipelineTrace>& pipelines, const std::vector<DpWaits>& dpWaits,
                JobResult& job) {
  std::vector<ReplicaSteps> replicas;
  for (const PipelineTrace& pl : pipelines) replicas.push_back({&pl, buildStepViews(pl)});
  job.present = true;
  decomposeSlowdown(replicas, job);
  blameDpSync(dpWaits, job);
  findSequenceImbalance(replicas, job);
  nameCulprit(job);
}

}  // namespace bubblescope::analysis
