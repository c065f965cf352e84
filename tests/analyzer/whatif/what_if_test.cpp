// The what-if table: the measured step, the balanced-stages step (T_ideal), each schedule of the
// literature at the measured mean costs, and twice the microbatches, from the simulator, each
// with the activations it holds per stage; none for a run whose steps did not finish. Costs
// here: F 2 ms, BW 4 ms on 4 stages, 8 microbatches, no transfer time, a 1 ms tail.
#include "analyzer/whatif/what_if.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analyzer/pipeline_analysis.h"
#include "analyzer/whatif/schedule_match.h"
#include "reference_engine/sim/simulate.h"
#include "tests/analyzer/hand_pipeline.h"

namespace bubblescope::analysis {
namespace {

using ::testing::HasSubstr;
using testing::kMs;

WhatIfInput oneF1BInput() {
  WhatIfInput in;
  in.p = 4;
  in.m = 8;
  in.schedule.name = "1F1B";
  in.schedule.exact = true;
  in.schedule.p = 4;
  in.schedule.m = 8;
  in.observed = engine::Schedule::oneF1B(4, 8);
  in.observed.kind = engine::ScheduleKind::Custom;  // as a trace shows it
  in.costs.ideal = {{{OpKind::F, 0}, 2 * kMs}, {{OpKind::BW, 0}, 4 * kMs}};
  in.measuredStep = 80 * kMs;
  in.idealStep = 67 * kMs;
  in.tail = 1 * kMs;
  return in;
}

const WhatIf& rowStarting(const std::vector<WhatIf>& rows, const std::string& prefix) {
  for (const WhatIf& w : rows) {
    if (w.scenario.rfind(prefix, 0) == 0) return w;
  }
  throw std::logic_error("no what-if row " + prefix);
}

struct RowCase {
  const char* scenario;
  TimeNs stepTime;
};

TEST(WhatIfTable, RowsAreEachScheduleSimulatedAtTheMeasuredCostsPlusTheTail) {
  // One microbatch's work on a stage is F + BW = 6 ms, 48 ms for 8. GPipe and 1F1B add
  // (p-1)(F+BW) = 18 ms; interleaved (v=2) half that. The split schedules take B = W = 2 ms
  // (half the BW): ZB-H1 adds (p-1)(F+B-W) = 6 ms inside its stages' spans; ZB-H2 adds nothing
  // inside a span (p-1)(F+B-2W) = 0, but its last stage starts (p-1)F = 6 ms after the first.
  const RowCase cases[] = {
      {"measured", 80 * kMs},
      {"balanced stages, no stalls (1F1B)", 67 * kMs},
      {"GPipe", (48 + 18 + 1) * kMs},
      {"1F1B", (48 + 18 + 1) * kMs},
      {"interleaved 1F1B (v=2)", (48 + 9 + 1) * kMs},
      {"ZB-H1", (48 + 6 + 1) * kMs},
      {"ZB-H2", (48 + 6 + 1) * kMs},
      // 16 microbatches at F 1, BW 2 ms in 1F1B: (16 + 3) * 3 ms.
      {"2x microbatches (1F1B, m=16)", (57 + 1) * kMs},
  };
  const auto rows = whatIfTable(oneF1BInput());
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0].scenario, "measured");
  EXPECT_EQ(rows[1].scenario, "balanced stages, no stalls (1F1B)");
  for (const auto& c : cases) {
    const WhatIf& w = rowStarting(rows, c.scenario);
    EXPECT_TRUE(w.available) << c.scenario << ": " << w.note;
    EXPECT_EQ(w.stepTime, c.stepTime) << c.scenario;
    // Bubble rate: 1 - one stage's compute (48 ms) / step time; speedup: measured / step time.
    EXPECT_DOUBLE_EQ(w.bubbleRate, 1.0 - 48.0 / (double(c.stepTime) / double(kMs))) << c.scenario;
    EXPECT_DOUBLE_EQ(w.speedup, 80.0 / (double(c.stepTime) / double(kMs))) << c.scenario;
  }
}

TEST(WhatIfTable, SplitSchedulesSayWhenBAndWWereNotTimedApart) {
  const auto rows = whatIfTable(oneF1BInput());
  for (const char* split : {"ZB-H1", "ZB-H2", "ZB-V"}) {
    EXPECT_EQ(rowStarting(rows, split).note,
              "B and W not timed apart: each taken as half of BW (2.00 ms)")
        << split;
  }
  EXPECT_EQ(rowStarting(rows, "1F1B").note, "");
  EXPECT_EQ(rowStarting(rows, "2x").note,
            "same global batch: each op takes half the measured time");

  // Measured B and W: nothing assumed.
  WhatIfInput in = oneF1BInput();
  in.costs.ideal = {
      {{OpKind::F, 0}, 2 * kMs}, {{OpKind::B, 0}, 2 * kMs}, {{OpKind::W, 0}, 2 * kMs}};
  EXPECT_EQ(rowStarting(whatIfTable(in), "ZB-H1").note, "");
}

TEST(WhatIfTable, ScheduleThatCannotServeTheJobIsMarkedUnavailableWithItsReason) {
  WhatIfInput in = oneF1BInput();
  in.m = 6;  // interleaved 1F1B needs m to be a multiple of p
  const WhatIf& w = rowStarting(whatIfTable(in), "interleaved");
  EXPECT_FALSE(w.available);
  EXPECT_THAT(w.note, HasSubstr("multiple of p"));
}

TEST(WhatIfTable, TwiceTheMicrobatchesKeepsTheDetectedScheduleElse1F1B) {
  WhatIfInput in = oneF1BInput();
  in.schedule.name = "GPipe";
  EXPECT_EQ(whatIfTable(in).back().scenario, "2x microbatches (GPipe, m=16)");
  in.schedule.name = "custom";
  in.schedule.exact = false;
  EXPECT_EQ(whatIfTable(in).back().scenario, "2x microbatches (1F1B, m=16)");
}

struct HeldCase {
  const char* scenario;
  std::vector<double> perStage;
};

TEST(WhatIfTable, EachRowHoldsItsSchedulesActivationsInMicrobatchesOfTheMeasuredJob) {
  // Each held from its F until its W or BW ends. Twice the microbatches are each half the size,
  // so 1F1B's count at m=16 (4 3 2 1 again) is half the measured memory.
  const HeldCase cases[] = {
      {"measured", {4, 3, 2, 1}},
      {"balanced stages, no stalls (1F1B)", {4, 3, 2, 1}},
      {"GPipe", {8, 8, 8, 8}},
      {"1F1B", {4, 3, 2, 1}},
      {"interleaved 1F1B (v=2)", {5.5, 4.5, 3.5, 2.5}},
      {"ZB-H1", {4, 4, 4, 4}},
      {"ZB-H2", {7, 7, 7, 7}},
      {"ZB-V", {4, 4, 4, 4}},
      {"2x microbatches (1F1B, m=16)", {2, 1.5, 1, 0.5}},
  };
  const auto rows = whatIfTable(oneF1BInput());
  for (const HeldCase& c : cases) {
    EXPECT_EQ(rowStarting(rows, c.scenario).activations, c.perStage) << c.scenario;
    EXPECT_TRUE(rowStarting(rows, c.scenario).activationBytes.empty())
        << "bytes come from the trace's memory records, not the table";
  }
  WhatIfInput in = oneF1BInput();
  in.m = 6;
  EXPECT_TRUE(rowStarting(whatIfTable(in), "interleaved").activations.empty()) << "n/a row";
}

// A 1F1B pipeline of `steps` steps written from the simulator's timeline (2 ms per op, 1 ms
// between steps), the last cut at `cut` ms into it: what a hang leaves, every op that had ended.
PipelineTrace oneF1BSteps(int steps, TimeNs cut) {
  const engine::Schedule schedule = engine::Schedule::oneF1B(4, 8);
  engine::SimCosts costs;
  costs.perKind = {2 * kMs, 2 * kMs, 2 * kMs, -1};
  const engine::SimResult run = engine::simulate(schedule, costs);
  testing::HandPipeline h(4);
  for (int k = 0; k < steps; ++k) {
    const TimeNs at = k * (run.makespan + kMs);
    const bool last = k == steps - 1;
    h.step(k, at, at + run.makespan + kMs / 2);
    for (int s = 0; s < 4; ++s) {
      for (size_t i = 0; i < schedule.stages[s].size(); ++i) {
        const auto& t = run.stages[s].ops[i];
        if (last && t.end > cut) continue;
        h.op(s, schedule.stages[s][i], at + t.start, at + t.end);
      }
    }
  }
  return h.build();
}

TEST(WhatIfTable, ARunWhoseOnlyStepDidNotFinishGetsNoWhatIfAndSaysWhy) {
  // Cut 30 ms into the 66 ms step: stage 0 has run the backward of microbatches 0 and 1 only.
  std::vector<std::string> warnings;
  const PipelineResult r = analyzePipeline(oneF1BSteps(1, 30 * kMs), warnings);
  EXPECT_TRUE(r.whatIf.empty());
  EXPECT_THAT(r.whatIfWithheld, HasSubstr("no step finished (step 0: "));
  EXPECT_THAT(r.whatIfWithheld, HasSubstr("never runs): a run that hung or was cut short"));
  EXPECT_EQ(r.steps.size(), 1u) << "the rest of the analysis still reads the step";
}

TEST(WhatIfTable, StepsThatDidNotFinishAreLeftOutOfTheWhatIfsWithAWarning) {
  std::vector<std::string> warnings;
  const PipelineResult r = analyzePipeline(oneF1BSteps(3, 30 * kMs), warnings);
  ASSERT_FALSE(r.whatIf.empty()) << r.whatIfWithheld;
  EXPECT_EQ(r.schedule.name, "1F1B");
  // The measured row is the finished steps' 66 ms ((8 + 3) * 6 ms), not the mean with the cut one.
  EXPECT_EQ(r.whatIf[0].stepTime, 66 * kMs);
  EXPECT_EQ(rowStarting(r.whatIf, "1F1B").stepTime, 66 * kMs);
  EXPECT_EQ(r.whatIf[0].activations, (std::vector<double>{4, 3, 2, 1}));
  bool warned = false;
  for (const auto& w : warnings) {
    warned = warned || w.rfind("1 step(s) did not finish (step 2: ", 0) == 0;
  }
  EXPECT_TRUE(warned) << ::testing::PrintToString(warnings);
}

// A fault-free 1F1B step written from the simulator's timeline: its T_ideal (the observed order at
// ideal costs) is the step the balanced-stages row shows, and the 1F1B row finds it again.
TEST(WhatIfTable, BalancedStagesRowOfABalancedOneF1BRunEqualsItsOneF1BRow) {
  const engine::Schedule schedule = engine::Schedule::oneF1B(4, 8);
  engine::SimCosts costs;
  costs.perKind = {2 * kMs, 2 * kMs, 2 * kMs, -1};
  const engine::SimResult run = engine::simulate(schedule, costs);
  testing::HandPipeline h(4);
  for (int s = 0; s < 4; ++s) {
    for (size_t i = 0; i < schedule.stages[s].size(); ++i) {
      h.op(s, schedule.stages[s][i], run.stages[s].ops[i].start, run.stages[s].ops[i].end);
    }
  }
  const PipelineTrace pl = h.build();
  const auto views = buildStepViews(pl);
  const engine::Schedule order = observedSchedule(pl, views.at(0));
  WhatIfInput in;
  in.p = 4;
  in.m = order.m;
  in.schedule = detectSchedule(order);
  in.costs = meanCosts(pl, views);
  in.tail = 1 * kMs;
  in.measuredStep = views[0].end - views[0].start + in.tail;
  in.idealStep =
      simulateStep(pl, views[0], order, in.costs, Scenario::Ideal, 0)->makespan + in.tail;
  EXPECT_EQ(in.schedule.name, "1F1B");
  EXPECT_EQ(in.idealStep, 67 * kMs);

  const auto rows = whatIfTable(in);
  EXPECT_EQ(rows[1].scenario, "balanced stages, no stalls (1F1B)");
  EXPECT_EQ(rows[1].stepTime, in.idealStep);
  EXPECT_EQ(rowStarting(rows, "1F1B").stepTime, in.idealStep);
  EXPECT_DOUBLE_EQ(rows[1].speedup, 1.0);  // nothing to win: measured is ideal
}

}  // namespace
}  // namespace bubblescope::analysis
