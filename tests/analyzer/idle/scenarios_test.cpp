// The simulations behind the idle classes: mean op costs (ideal over all stages and steps, and
// per stage), the observed order as a schedule, and that order re-run with ideal, stage-mean or
// measured costs. Steps are in hand_steps.h.
#include "analyzer/idle/scenarios.h"

#include <gtest/gtest.h>

#include "analyzer/idle/stage_alone.h"
#include "tests/analyzer/hand_pipeline.h"
#include "tests/analyzer/idle/hand_steps.h"
#include "tests/analyzer/idle/step_analysis.h"

namespace bubblescope::analysis {
namespace {

using testing::HandPipeline;
using testing::kBW0;
using testing::kF0;
using testing::kMs;
using testing::StepAnalysis;

TEST(MeanCosts, IdealIsTheMeanOverAllStagesAndStageTheMeanOnEachStage) {
  const PipelineTrace pl = testing::slowSecondStage().build();
  const MeanCosts c = meanCosts(pl, buildStepViews(pl));
  EXPECT_EQ(c.ideal,
            (std::map<CostKey, TimeNs>{{{OpKind::F, 0}, 3 * kMs}, {{OpKind::BW, 0}, 6 * kMs}}));
  ASSERT_EQ(c.stage.size(), 2u);
  EXPECT_EQ(c.stageOf(0, kF0), 2 * kMs);
  EXPECT_EQ(c.stageOf(0, kBW0), 4 * kMs);
  EXPECT_EQ(c.stageOf(1, kF0), 4 * kMs);
  EXPECT_EQ(c.stageOf(1, kBW0), 8 * kMs);
  EXPECT_EQ(c.idealOf({OpKind::W, 0, 0}), 0);  // no W ran: no cost
}

TEST(MeanCosts, MeansRunOverStepsAndKeepChunksApart) {
  // One stage, two steps: F of chunk 0 takes 2 then 4 ms, F of chunk 1 takes 1 then 1 ms.
  HandPipeline h(1);
  h.step(0, 0, 9 * kMs).step(1, 10 * kMs, 19 * kMs);
  h.op(0, kF0, 0, 2 * kMs).op(0, {OpKind::F, 0, 1}, 2 * kMs, 3 * kMs);
  h.op(0, kF0, 10 * kMs, 14 * kMs).op(0, {OpKind::F, 0, 1}, 14 * kMs, 15 * kMs);
  const PipelineTrace pl = h.build();
  const MeanCosts c = meanCosts(pl, buildStepViews(pl));
  EXPECT_EQ(c.idealOf(kF0), 3 * kMs);
  EXPECT_EQ(c.idealOf({OpKind::F, 0, 1}), 1 * kMs);
  EXPECT_EQ(c.stageOf(0, kF0), 3 * kMs);
}

TEST(ObservedSchedule, IsEachStagesOpOrderInTheStep) {
  const PipelineTrace pl = testing::oneMicrobatchAtATime().build();
  const auto views = buildStepViews(pl);
  const engine::Schedule s = observedSchedule(pl, views.at(0));
  EXPECT_EQ(s.kind, engine::ScheduleKind::Custom);
  EXPECT_EQ(s.p, 2);
  EXPECT_EQ(s.m, 2);
  EXPECT_EQ(s.v, 1);
  const std::vector<Op> order = {testing::kF0, testing::kBW0, testing::kF1, testing::kBW1};
  EXPECT_EQ(s.stages, (std::vector<std::vector<Op>>{order, order}));
}

struct SimCase {
  const char* what;
  Scenario scenario;
  TimeNs transfer;
  TimeNs makespan;
};

// Microbatch ids are labels, not a count (issue 28): ids 0 and 5,000,000 are two microbatches,
// not a 5,000,001-microbatch schedule; a step cut short keeps the count its ids span.
TEST(ObservedSchedule, SparseMicrobatchIdsAreNumberedNotCounted) {
  HandPipeline h(2);
  const Op f0{OpKind::F, 0, 0}, fFar{OpKind::F, 5'000'000, 0};
  const Op b0{OpKind::BW, 0, 0}, bFar{OpKind::BW, 5'000'000, 0};
  h.op(0, f0, 0, 2 * kMs).op(0, fFar, 2 * kMs, 4 * kMs);
  h.op(0, b0, 12 * kMs, 16 * kMs).op(0, bFar, 16 * kMs, 20 * kMs);
  h.op(1, f0, 2 * kMs, 4 * kMs).op(1, fFar, 4 * kMs, 6 * kMs);
  h.op(1, b0, 6 * kMs, 10 * kMs).op(1, bFar, 10 * kMs, 14 * kMs);
  const StepAnalysis sparse(h.build());
  const engine::Schedule order = observedSchedule(sparse.pl, sparse.view());
  EXPECT_EQ(order.m, 2);
  EXPECT_EQ(order.stages[0][1].mb, 1);
  EXPECT_EQ(order.stages[1][3].mb, 1);

  // A step holding microbatches 1 and 2 only (its start cut off) still counts 3.
  HandPipeline cut(2);
  const Op f1{OpKind::F, 1, 0}, f2{OpKind::F, 2, 0}, b1{OpKind::BW, 1, 0}, b2{OpKind::BW, 2, 0};
  cut.op(0, f1, 0, 2 * kMs).op(0, f2, 2 * kMs, 4 * kMs);
  cut.op(0, b1, 12 * kMs, 16 * kMs).op(0, b2, 16 * kMs, 20 * kMs);
  cut.op(1, f1, 2 * kMs, 4 * kMs).op(1, f2, 4 * kMs, 6 * kMs);
  cut.op(1, b1, 6 * kMs, 10 * kMs).op(1, b2, 10 * kMs, 14 * kMs);
  const StepAnalysis partial(cut.build());
  EXPECT_EQ(observedSchedule(partial.pl, partial.view()).m, 3);
}

TEST(SimulateStep, EachScenarioRunsTheObservedOrderWithItsCosts) {
  // GPipe 2x2, stage 0 at F 2 / BW 4 ms, stage 1 at F 4 / BW 8 ms; ideal F 3 / BW 6 ms.
  const SimCase cases[] = {
      // 0-3-6 forwards on stage 0, stage 1 6-9 .. BW1 15-21, stage 0's BW1 21-27.
      {"ideal", Scenario::Ideal, 0, 27 * kMs},
      // The critical path crosses between the stages twice (F0 down, BW1 back): 1 ms each.
      {"ideal, 1 ms transfers", Scenario::Ideal, 1 * kMs, 29 * kMs},
      {"stage means (= measured here)", Scenario::Stage, 0, 30 * kMs},
      {"measured op costs", Scenario::Ops, 0, 30 * kMs},
  };
  const PipelineTrace pl = testing::slowSecondStage().build();
  const auto views = buildStepViews(pl);
  const MeanCosts costs = meanCosts(pl, views);
  const engine::Schedule order = observedSchedule(pl, views.at(0));
  for (const auto& c : cases) {
    const auto r = simulateStep(pl, views[0], order, costs, c.scenario, c.transfer);
    ASSERT_TRUE(r) << c.what;
    EXPECT_EQ(r->makespan, c.makespan) << c.what;
  }
}

TEST(SimulateStep, EachStageAloneRunsWithItsMeasuredCostsAndIdealOnesElsewhere) {
  const PipelineTrace pl = testing::slowSecondStage().build();
  const auto views = buildStepViews(pl);
  const MeanCosts costs = meanCosts(pl, views);
  const engine::Schedule order = observedSchedule(pl, views.at(0));
  const engine::PreparedSchedule prepared(order);
  engine::SimCosts ideal = stepCosts(pl, views[0], costs, Scenario::Ideal, 0);
  const auto alone =
      stageAloneMakespans(prepared, ideal, stepCosts(pl, views[0], costs, Scenario::Ops, 0),
                          engine::simulate(prepared, ideal).makespan);
  ASSERT_EQ(alone.size(), 2u);
  // Stage 0 measured, stage 1 ideal: stage 1's BW1 ends at 20, stage 0's BW1 at 24.
  EXPECT_EQ(alone[0].makespan, 24 * kMs);
  // Stage 1 measured, stage 0 ideal: stage 1's BW1 ends at 27, stage 0's BW1 at 33.
  EXPECT_EQ(alone[1].makespan, 33 * kMs);
  EXPECT_TRUE(alone[0].replayed && alone[1].replayed);
}

TEST(SimulateStep, IdealRunPlacesEveryOpAtItsIdealCost) {
  const PipelineTrace pl = testing::slowSecondStage().build();
  const auto views = buildStepViews(pl);
  const engine::Schedule order = observedSchedule(pl, views.at(0));
  const auto r = simulateStep(pl, views[0], order, meanCosts(pl, views), Scenario::Ideal, 0);
  ASSERT_TRUE(r);
  const std::vector<std::pair<TimeNs, TimeNs>> stage1 = {
      {3 * kMs, 6 * kMs}, {6 * kMs, 9 * kMs}, {9 * kMs, 15 * kMs}, {15 * kMs, 21 * kMs}};
  ASSERT_EQ(r->stages[1].ops.size(), stage1.size());
  for (size_t i = 0; i < stage1.size(); ++i) {
    EXPECT_EQ(r->stages[1].ops[i].start, stage1[i].first) << "op " << i;
    EXPECT_EQ(r->stages[1].ops[i].end, stage1[i].second) << "op " << i;
  }
}

TEST(SimulateStep, OrderThatCannotRunGivesNothing) {
  // A partial capture: stage 0's BW0 waits for stage 1's BW0, which is not in the step.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kBW0, 8 * kMs, 12 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs);
  const PipelineTrace pl = h.build();
  const auto views = buildStepViews(pl);
  const engine::Schedule order = observedSchedule(pl, views.at(0));
  EXPECT_FALSE(simulateStep(pl, views[0], order, meanCosts(pl, views), Scenario::Ideal, 0));
}

// Imbalance the blame walk finds no op for is blamed on the stage whose means exceed the ideal
// most; a stage within noise of the ideal is no such stage.
TEST(MeanCosts, MostImbalancedStageIsTheOneWhoseMeansExceedTheIdealMost) {
  MeanCosts costs;
  costs.ideal = {{{OpKind::F, 0}, 2 * kMs}, {{OpKind::BW, 0}, 4 * kMs}};
  costs.stage = {{{{OpKind::F, 0}, 2 * kMs}, {{OpKind::BW, 0}, 3 * kMs}},
                 {{{OpKind::F, 0}, 2 * kMs + kMs / 2}, {{OpKind::BW, 0}, 4 * kMs}},
                 {{{OpKind::F, 0}, 2 * kMs + kMs / 5}, {{OpKind::BW, 0}, 5 * kMs}}};
  EXPECT_EQ(mostImbalancedStage(costs), 2);
  costs.stage[2] = costs.ideal;
  EXPECT_EQ(mostImbalancedStage(costs), 1);
  costs.stage[1][{OpKind::F, 0}] = 2 * kMs + 50'000;  // within a twentieth of the ideal
  EXPECT_EQ(mostImbalancedStage(costs), -1);
}

// A stage's means in a sorted list behave as the map they replaced: looked up by kind and chunk
// whatever order they were added in, each key once, read in key order.
TEST(CostTable, FindsEachKeyOnceInKeyOrderWhateverTheOrderAdded) {
  CostTable t{{{OpKind::W, 1}, 3}, {{OpKind::F, 0}, 1}};
  t[{OpKind::B, 0}] = 2;
  t[{OpKind::F, 0}] += 10;  // the same key: changed, not added
  std::vector<CostTable::Entry> seen(t.begin(), t.end());
  EXPECT_EQ(seen, (std::vector<CostTable::Entry>{
                      {{OpKind::F, 0}, 11}, {{OpKind::B, 0}, 2}, {{OpKind::W, 1}, 3}}));
  ASSERT_NE(t.find({OpKind::B, 0}), t.end());
  EXPECT_EQ(t.find({OpKind::B, 0})->second, 2);
  EXPECT_EQ(t.find({OpKind::B, 1}), t.end());
  const std::map<CostKey, TimeNs> map{{{OpKind::F, 1}, 5}, {{OpKind::F, 0}, 4}};
  const CostTable fromMap = map;
  EXPECT_EQ(std::vector<CostTable::Entry>(fromMap.begin(), fromMap.end()),
            (std::vector<CostTable::Entry>(map.begin(), map.end())));
}

}  // namespace
}  // namespace bubblescope::analysis
