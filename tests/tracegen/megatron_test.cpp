// Megatron-LM jobs as NDTimeline traces them (PP x TP x DP), imported and analysed: each DP
// replica's pipeline is analysed as one, and the analysis agrees with the execution model's truth.
#include <gtest/gtest.h>

#include "analyzer/analyze.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/megatron_truth.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

struct Analysed {
  MegatronTruth truth;
  traces::import::ImportedRun imported;
  analysis::AnalysisResult result;
};

Analysed analyse(const MegatronJob& job, bool gzip = false) {
  testing::TempDir dir;
  const MegatronTimeline tl = executeMegatron(job);
  const auto file = dir.path() / (gzip ? "timeline.json.gz" : "timeline.json");
  writeNdTimeline(tl, file, gzip);
  Analysed out;
  out.truth = megatronTruth(tl);
  out.imported = traces::import::importRun(traces::import::resolveInputs({file}));
  out.result = analysis::analyzeRun(out.imported.run);
  return out;
}

TEST(MegatronModel, FaultFreeOneF1BStepIsTheTextbookFormula) {
  MegatronJob job;
  job.pp = 4, job.dp = 1, job.m = 8, job.transfer = 0, job.tpSkew = 0;
  const MegatronTimeline tl = executeMegatron(job);
  // (m + p - 1)(F + B) of pipeline, data-load before it, the tail after it.
  const TimeNs pipeline = (job.m + job.pp - 1) * (job.costF + job.costB);
  const TimeNs tail = job.reduceScatter + job.clipGrad + job.optimizer + job.allGather;
  EXPECT_EQ(tl.stepEnd[0] - tl.stepStart[0], job.dataLoad + pipeline + tail);
  EXPECT_NEAR(megatronTruth(tl).slowdown, 1.0, 1e-9);
}

TEST(MegatronModel, ASlowReplicaHoldsEveryReplicaAtTheSync) {
  MegatronJob job;
  job.slowReplica = 0;
  job.slowReplicaFactor = 1.5;
  const MegatronTimeline tl = executeMegatron(job);
  // Replica 1 ends its pipeline early, but its reduce-scatter starts with replica 0's.
  TimeNs rs[2] = {0, 0};
  for (const NdRank& r : tl.ranks) {
    for (const NdEvent& e : r.events) {
      if (e.step == 0 && e.name == "grads-reduce-scatter" && r.pp == 0) rs[r.dp] = e.start;
    }
  }
  EXPECT_EQ(rs[0], rs[1]);
  EXPECT_GT(megatronTruth(tl).slowdown, 1.15);
}

TEST(MegatronImport, Pp4Dp2TimelineIsAnalysedReplicaByReplica) {
  MegatronJob job;  // PP4 x DP2, fault-free
  const Analysed a = analyse(job, /*gzip=*/true);
  EXPECT_EQ(a.imported.run.ranks.size(), 8u);
  EXPECT_EQ(a.result.pp, 4);
  EXPECT_EQ(a.result.dp, 2);
  EXPECT_EQ(a.result.topologySource, "metadata");
  ASSERT_EQ(a.result.pipelines.size(), 2u);
  for (const auto& pl : a.result.pipelines) {
    EXPECT_EQ(pl.stages.size(), 4u);
    EXPECT_EQ(pl.steps.size(), 3u);
    EXPECT_EQ(pl.schedule.name, "1F1B");
    EXPECT_NEAR(pl.slowdown, a.truth.slowdown, 0.03 * a.truth.slowdown);
  }
  EXPECT_EQ(a.result.pipelines[1].dpRank, 1);
  // Stage s of replica d is global rank d + 2s (Megatron's order).
  EXPECT_EQ(a.result.pipelines[1].stages[2].rank, 5);
}

}  // namespace
}  // namespace bubblescope::tracegen
