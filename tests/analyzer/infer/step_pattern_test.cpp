// Steps of an unmarked stage from the collectives that end them: a forward after a collective
// opens a step; a collective between backwards (DDP buckets) does not; none, no steps. Without
// collectives, the microbatch count that repeats on the first stage cuts them.
#include "analyzer/infer/step_pattern.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

RankOps opsAt(const std::vector<std::pair<OpKind, TimeNs>>& launches) {
  RankOps ops;
  for (auto [kind, at] : launches) {
    RecognizedOp o;
    o.op = Op{kind, -1, 0};
    o.start = at;  // its host range is its span (RankOps::opHosts empty)
    o.end = at + 5;
    ops.ops.push_back(o);
  }
  return ops;
}

TEST(StepPattern, AForwardAfterACollectiveOpensAStepWithTheReceiveBeforeIt) {
  RankOps ops = opsAt({{OpKind::F, 10}, {OpKind::BW, 20}, {OpKind::F, 100}, {OpKind::BW, 110}});
  stepsFromCollectives(ops, {{40, 50}}, {5, 60, 95});
  ASSERT_EQ(ops.steps.size(), 2u);
  EXPECT_EQ(ops.steps[0].start, 5);   // the first receive
  EXPECT_EQ(ops.steps[1].start, 60);  // the receive posted after the collective
  EXPECT_EQ(ops.steps[0].end, 59);
  EXPECT_EQ(ops.steps[1].end, 115);
  EXPECT_EQ(ops.steps[1].number, 1);
}

TEST(StepPattern, CollectivesBetweenBackwardsOrNoneGiveNoSteps) {
  RankOps ops = opsAt({{OpKind::F, 10}, {OpKind::BW, 20}, {OpKind::BW, 40}, {OpKind::F, 50}});
  stepsFromCollectives(ops, {{30, 35}}, {});
  EXPECT_TRUE(ops.steps.empty());
  stepsFromCollectives(ops, {}, {});
  EXPECT_TRUE(ops.steps.empty());
}

TEST(StepPattern, TheFirstStagesInFlightCountEmptiesOncePerStep) {
  using K = OpKind;
  // 1F1B, p = 3, m = 4, on stage 0: two warm-up forwards, then one forward one backward; twice.
  const std::vector<K> oneStep = {K::F, K::F, K::F, K::BW, K::F, K::BW, K::BW, K::BW};
  std::vector<K> twoSteps = oneStep;
  twoSteps.insert(twoSteps.end(), oneStep.begin(), oneStep.end());
  EXPECT_EQ(microbatchesPerStep(twoSteps), 4);
  // GPipe: all forwards, then all backwards.
  EXPECT_EQ(microbatchesPerStep({K::F, K::F, K::BW, K::BW, K::F, K::F, K::BW, K::BW}), 2);
  // One step is no pattern; unequal steps, a backward first or a step left open are none either.
  EXPECT_EQ(microbatchesPerStep(oneStep), 0);
  EXPECT_EQ(microbatchesPerStep({K::F, K::BW, K::F, K::F, K::BW, K::BW}), 0);
  EXPECT_EQ(microbatchesPerStep({K::BW, K::F, K::F, K::BW}), 0);
  EXPECT_EQ(microbatchesPerStep({K::F, K::BW, K::F, K::BW, K::F}), 0);
}

TEST(StepPattern, EveryMthBackwardEndsAStepAndTheNextOpensWithItsReceive) {
  // A middle stage, m = 2: receive (at 5, 55), F, F, BW, BW (its gradients sent after), twice.
  RankOps ops = opsAt({{OpKind::F, 10},
                       {OpKind::F, 20},
                       {OpKind::BW, 30},
                       {OpKind::BW, 40},
                       {OpKind::F, 60},
                       {OpKind::F, 70},
                       {OpKind::BW, 80},
                       {OpKind::BW, 90}});
  stepsByMicrobatchCount(ops, 2, {5, 25, 35, 55, 75, 85});
  ASSERT_EQ(ops.steps.size(), 2u);
  EXPECT_EQ(ops.steps[0].start, 5);
  EXPECT_EQ(ops.steps[0].end, 54);
  EXPECT_EQ(ops.steps[1].start, 55);  // the receive posted after the second backward
  EXPECT_EQ(ops.steps[1].end, 95);
  // Fewer ops than two steps' worth: no steps.
  RankOps one = opsAt({{OpKind::F, 10}, {OpKind::BW, 20}});
  stepsByMicrobatchCount(one, 1, {});
  EXPECT_TRUE(one.steps.empty());
}

}  // namespace
}  // namespace bubblescope::analysis
