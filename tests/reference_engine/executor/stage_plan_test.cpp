// Which ops receive and send what, for the chain, the interleaved ring and the V.
#include "reference_engine/executor/stage_plan.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

using Pairs = std::vector<std::pair<int, int>>;

// Every stage runs, per microbatch, F on each chunk in model order then backward in reverse.
Schedule handMade(int p, int v, ChunkLayout layout) {
  Schedule s;
  s.p = p;
  s.m = 1;
  s.v = v;
  s.layout = layout;
  s.stages.resize(p);
  for (int stage = 0; stage < p; ++stage) {
    std::vector<std::pair<int, int>> byVs;  // (virtual stage, chunk)
    for (int c = 0; c < v; ++c) byVs.push_back({s.virtualStage(stage, c), c});
    std::sort(byVs.begin(), byVs.end());
    for (auto [vs, c] : byVs) s.stages[stage].push_back({OpKind::F, 0, c});
    for (auto it = byVs.rbegin(); it != byVs.rend(); ++it) {
      s.stages[stage].push_back({OpKind::BW, 0, it->second});
    }
  }
  return s;
}

TEST(StagePlan, ChainStageReceivesFromPreviousAndSendsToNext) {
  Schedule s = Schedule::oneF1B(3, 2);
  auto plan = planStage(s, 1);
  ASSERT_EQ(plan.size(), 4u);
  for (const PlannedOp& p : plan) {
    ASSERT_TRUE(p.input && p.output);
    if (p.op.kind == OpKind::F) {
      EXPECT_EQ(*p.input, (Endpoint{0, 0}));
      EXPECT_EQ(*p.output, (Endpoint{2, 0}));
    } else {
      EXPECT_EQ(*p.input, (Endpoint{2, 0}));
      EXPECT_EQ(*p.output, (Endpoint{0, 0}));
    }
  }
}

TEST(StagePlan, FirstAndLastStagesHaveNoOuterNeighbour) {
  Schedule s = Schedule::gpipe(3, 2);
  for (const PlannedOp& p : planStage(s, 0)) {
    if (p.op.kind == OpKind::F) {
      EXPECT_FALSE(p.input);
    } else {
      EXPECT_FALSE(p.output);
    }
    EXPECT_FALSE(p.lastVirtualStage);
  }
  for (const PlannedOp& p : planStage(s, 2)) {
    if (p.op.kind == OpKind::F) {
      EXPECT_FALSE(p.output);
    } else {
      EXPECT_FALSE(p.input);
    }
    EXPECT_TRUE(p.lastVirtualStage);
  }
}

TEST(StagePlan, FirstOfMicrobatchMarksOnlyTheFirstOpOfEachMicrobatch) {
  auto plan = planStage(Schedule::oneF1B(2, 3), 0);
  int marked = 0;
  for (const PlannedOp& p : plan) {
    if (p.firstOfMicrobatch) {
      ++marked;
      EXPECT_EQ(p.op.kind, OpKind::F);
    }
  }
  EXPECT_EQ(marked, 3);
}

TEST(StagePlan, InterleavedChunkOneOfStageZeroReceivesOverTheRingEdge) {
  Schedule s = handMade(3, 2, ChunkLayout::Looped);
  auto plan = planStage(s, 0);
  const PlannedOp& f1 = plan[1];  // F chunk 1 = virtual stage 3
  ASSERT_EQ(f1.op, (Op{OpKind::F, 0, 1}));
  EXPECT_EQ(f1.virtualStage, 3);
  EXPECT_EQ(*f1.input, (Endpoint{2, 0}));
  EXPECT_EQ(*f1.output, (Endpoint{1, 1}));
  EXPECT_EQ(channelPairs(s), (Pairs{{0, 1}, {0, 2}, {1, 2}}));
}

TEST(StagePlan, VTurnIsALocalHandOffOnTheLastStage) {
  Schedule s = handMade(3, 2, ChunkLayout::V);
  auto plan = planStage(s, 2);
  // stage 2 holds virtual stages 2 (chunk 0) and 3 (chunk 1): the turn of the V
  const PlannedOp& f0 = plan[0];
  ASSERT_EQ(f0.op, (Op{OpKind::F, 0, 0}));
  EXPECT_EQ(*f0.output, (Endpoint{2, 1}));
  const PlannedOp& f1 = plan[1];
  EXPECT_EQ(*f1.input, (Endpoint{2, 0}));
  EXPECT_EQ(*f1.output, (Endpoint{1, 1}));
  // stage 0's chunk 1 is the model's last layer
  EXPECT_TRUE(planStage(s, 0)[1].lastVirtualStage);
  EXPECT_EQ(channelPairs(s), (Pairs{{0, 1}, {1, 2}}));
}

TEST(StagePlan, OneStageNeedsNoChannels) {
  EXPECT_TRUE(channelPairs(Schedule::oneF1B(1, 4)).empty());
  EXPECT_TRUE(channelPairs(handMade(1, 2, ChunkLayout::V)).empty());
}

TEST(StagePlan, WeightGradientExchangesNothing) {
  Schedule s;
  s.p = 2;
  s.m = 1;
  s.stages = {{{OpKind::F, 0, 0}, {OpKind::B, 0, 0}, {OpKind::W, 0, 0}},
              {{OpKind::F, 0, 0}, {OpKind::B, 0, 0}, {OpKind::W, 0, 0}}};
  auto plan = planStage(s, 1);
  EXPECT_EQ(*plan[1].output, (Endpoint{0, 0}));
  EXPECT_FALSE(plan[2].input);
  EXPECT_FALSE(plan[2].output);
}

}  // namespace
}  // namespace bubblescope::engine
