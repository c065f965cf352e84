// Which replicas a summary lists whole, and what a summarised one keeps: the culprit's replica
// first, those the DP sync waited on next, then the largest S_d; never more than asked; every one
// when there are no more.
#include <gtest/gtest.h>

#include <vector>

#include "analyzer/replicas/listed_replicas.h"

namespace bubblescope::analysis {
namespace {

JobResult jobOf(const std::vector<double>& sd, const std::vector<int>& dpRanks) {
  JobResult job;
  for (size_t i = 0; i < sd.size(); ++i) {
    job.dpRanks.push_back({dpRanks[i], "DP replica " + std::to_string(dpRanks[i]), sd[i], 0});
  }
  return job;
}

std::vector<int> listed(const std::vector<bool>& whole, const std::vector<int>& dpRanks) {
  std::vector<int> out;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (whole[i]) out.push_back(dpRanks[i]);
  }
  return out;
}

TEST(ReplicasListedWhole, EveryOneWhenThereAreNoMoreThanAsked) {
  const std::vector<int> dp = {0, 1, 2, 3};
  const auto whole = replicasListedWhole(jobOf({1.0, 1.2, 1.1, 1.0}, dp), dp, 4);
  EXPECT_EQ(listed(whole, dp), dp);
}

TEST(ReplicasListedWhole, TheCulpritThenTheSyncsLastThenTheLargestSd) {
  // DP ranks are not the replicas' order in the run: looked up by rank, not by index.
  const std::vector<int> dp = {10, 11, 12, 13, 14, 15, 16, 17};
  JobResult job = jobOf({1.00, 1.05, 1.30, 1.02, 1.10, 1.10, 1.00, 1.01}, dp);
  job.culpritDp = 16;  // named by the culprit although its S_d is low
  job.dpSync = {{13, 0, 500, 2}, {16, 1, 400, 1}};
  const auto whole = replicasListedWhole(job, dp, 4);
  // 16 (culprit), 13 (the sync's first), then S_d: 12 (1.30), 14 (1.10, before 15 on the tie).
  EXPECT_EQ(listed(whole, dp), (std::vector<int>{12, 13, 14, 16}));
}

TEST(ReplicasListedWhole, NeverMoreThanAskedWhateverTheSyncBlames) {
  const std::vector<int> dp = {0, 1, 2, 3, 4, 5};
  JobResult job = jobOf({1, 1, 1, 1, 1, 1}, dp);
  job.culpritDp = 5;
  job.dpSync = {{4, 0, 9, 1}, {3, 0, 8, 1}, {2, 0, 7, 1}};
  const auto whole = replicasListedWhole(job, dp, 2);
  EXPECT_EQ(listed(whole, dp), (std::vector<int>{4, 5}));
}

TEST(ReplicasListedWhole, WithoutSdTheFirstReplicas) {
  const std::vector<int> dp = {0, 1, 2, 3, 4};
  JobResult job;  // no step analysed: no S_d, no culprit
  const auto whole = replicasListedWhole(job, dp, 3);
  EXPECT_EQ(listed(whole, dp), (std::vector<int>{0, 1, 2}));
}

TEST(SummarisePipeline, KeepsTheFiguresAndGivesTheListsBack) {
  PipelineResult pl;
  pl.dpRank = 7;
  pl.stages.resize(2);
  pl.stages[1].slowdown = 1.4;
  pl.stages[1].perStep.push_back(Split{});
  pl.steps = {{3, 100, 200}};
  pl.total.span = 1000, pl.total.idle = 250;
  pl.schedule.name = "1F1B";
  pl.stepTimeMeasured = 120, pl.stepTimeIdeal = 100, pl.slowdown = 1.2;
  pl.model.reproduces = false, pl.model.largest = "late";
  pl.culprit = "stage 1: S_s = 1.40x", pl.culpritStage = 1, pl.culpritGain = 20;
  pl.gaps.resize(5);
  pl.ops.resize(9);
  pl.rootCauses.resize(2);
  pl.whatIf.resize(10);
  pl.topGaps = {0, 1};
  pl.bubbleTallies.resize(2);
  pl.activationSize.unknown = "no memory records";
  summarisePipeline(pl);
  EXPECT_TRUE(pl.summarised);
  EXPECT_EQ(pl.dpRank, 7);
  ASSERT_EQ(pl.stages.size(), 2u);
  EXPECT_EQ(pl.stages[1].slowdown, 1.4);
  EXPECT_EQ(pl.stages[1].perStep.size(), 1u);
  EXPECT_EQ(pl.steps.size(), 1u);
  EXPECT_EQ(pl.total.idle, 250);
  EXPECT_EQ(pl.schedule.name, "1F1B");
  EXPECT_EQ(pl.slowdown, 1.2);
  EXPECT_FALSE(pl.model.reproduces);
  EXPECT_EQ(pl.model.largest, "late");
  EXPECT_EQ(pl.culprit, "stage 1: S_s = 1.40x");
  EXPECT_EQ(pl.culpritGain, 20);
  EXPECT_TRUE(pl.gaps.empty() && pl.ops.empty() && pl.rootCauses.empty() && pl.whatIf.empty());
  EXPECT_TRUE(pl.topGaps.empty() && pl.bubbleTallies.empty());
  EXPECT_EQ(pl.gaps.capacity(), 0u);  // given back, not only cleared
  EXPECT_TRUE(pl.activationSize.unknown.empty());
}

}  // namespace
}  // namespace bubblescope::analysis
