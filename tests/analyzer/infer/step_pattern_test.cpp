// Steps of an unmarked stage from the collectives that end them: a forward after a collective
// opens a step; a collective between backwards (DDP buckets) does not; none, no steps.
#include "analyzer/infer/step_pattern.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

RankOps opsAt(const std::vector<std::pair<OpKind, TimeNs>>& launches) {
  RankOps ops;
  for (auto [kind, at] : launches) {
    RecognizedOp o;
    o.op = Op{kind, -1, 0};
    o.launch = o.start = at;
    o.hostEnd = o.end = at + 5;
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

}  // namespace
}  // namespace bubblescope::analysis
