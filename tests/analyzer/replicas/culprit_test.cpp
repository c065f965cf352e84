// The job's culprit from its tables (culprit.h): a replica whose stalls, not its op costs, hold the
// job up is named with what its pipeline found; stalls spread over every replica name none.
#include "analyzer/replicas/culprit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bubblescope::analysis {
namespace {

// Three replicas whose op costs are at the ideal (S_d, S_s and S_k 1.00x), 100 ms ideal steps,
// measured `measured`, with `stalls` per replica.
JobResult jobWith(TimeNs measured, std::vector<TimeNs> stalls) {
  JobResult job;
  job.present = true;
  job.steps = 4;
  job.stepTimeIdeal = 100'000'000;
  job.stepTimeOps = 100'500'000;
  job.stepTimeMeasured = measured;
  job.slowdown = static_cast<double>(measured) / 1e8;
  for (int d = 0; d < 3; ++d) {
    job.dpRanks.push_back({d, "DP replica " + std::to_string(d), 1.004, 100'400'000});
  }
  for (int s = 0; s < 4; ++s) job.stages.push_back({s, "stage " + std::to_string(s), 1.002, 0});
  job.opTypes.push_back({0, "forward-compute", 1.003, 0});
  job.stallsByReplica = std::move(stalls);
  return job;
}

TEST(JobCulprit, AReplicaWhoseStallsStandOutIsNamedWithItsPipelinesCulprit) {
  JobResult job = jobWith(113'000'000, {400'000, 12'500'000, 300'000});
  nameCulprit(job);
  EXPECT_EQ(job.culpritDp, 1);
  EXPECT_EQ(job.culpritStage, -1);
  EXPECT_TRUE(job.culpritStalls);
  EXPECT_EQ(job.culpritGain, 12'500'000);  // its stalls, within measured - T_ops
  addStallingPipeline(job,
                      "stall: comm on stage 2: 35.1 ms of idle over the steps analysed; stalls "
                      "together; the step would shrink by about 7.5 ms (11%) without them");
  EXPECT_EQ(job.culprit,
            "DP replica 1: stalls, not op costs: its ops ran 12.5 ms a step longer than their "
            "costs explain (its op costs: S_d = 1.00x) and the other replicas waited for it at "
            "the DP sync; its pipeline: stall: comm on stage 2: 35.1 ms of idle over the steps "
            "analysed; the step would shrink by about 12.5 ms (11%) without them");
}

TEST(JobCulprit, StallsInEveryReplicaOrTooSmallNameNoReplica) {
  for (const std::vector<TimeNs>& stalls :
       {std::vector<TimeNs>{6'000'000, 5'000'000, 4'000'000},  // none stands out twice over
        std::vector<TimeNs>{2'500'000, 100'000, 100'000}}) {   // under 3% of the ideal step
    JobResult job = jobWith(106'000'000, stalls);
    nameCulprit(job);
    EXPECT_EQ(job.culpritDp, -1) << job.culprit;
    EXPECT_FALSE(job.culpritStalls);
    EXPECT_EQ(job.culprit,
              "no straggler: S = 1.06x, most of it stalls spread over the replicas (their op "
              "costs alone: 1.00x; each pipeline's culprit says where); no stage, DP replica or "
              "op type is more than 3% above the ideal");
  }
  JobResult quiet = jobWith(101'000'000, {300'000, 200'000, 100'000});
  nameCulprit(quiet);
  EXPECT_EQ(quiet.culprit,
            "no straggler: S = 1.01x; no stage, DP replica or op type is more than 3% above the "
            "ideal");
}

TEST(JobCulprit, AReplicaSlowInItsOpCostsIsNamedByItsOpCostsNotItsStalls) {
  JobResult job = jobWith(120'000'000, {0, 9'000'000, 0});
  job.stepTimeOps = 118'000'000;
  job.dpRanks[1].slowdown = 1.18;
  nameCulprit(job);
  EXPECT_EQ(job.culpritDp, 1);
  EXPECT_FALSE(job.culpritStalls);
  EXPECT_EQ(job.culprit.rfind("DP replica 1, every stage: S_d = 1.18x", 0), 0u) << job.culprit;
}

}  // namespace
}  // namespace bubblescope::analysis
