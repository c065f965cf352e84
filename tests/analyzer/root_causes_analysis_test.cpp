// Root cause first, end to end (issue 26, item 4): on synthetic jobs whose faults are known, the
// analysis lists one entry per fault, its knock-ons on the other stages folded under it, and what
// removing it wins matches what the fault cost.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyzer/analyze.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::analysis {
namespace {

using engine::OpKind;
using engine::Schedule;
using testing::synthesize;
using testing::SyntheticJob;

constexpr TimeNs kMs = 1'000'000;

bool holds(const RootCause& rc, int gap) {
  return std::count(rc.own.begin(), rc.own.end(), gap) +
             std::count(rc.knockOns.begin(), rc.knockOns.end(), gap) >
         0;
}

// The causes that cost at least a millisecond of idle: the findings, not the scheduling noise.
std::vector<const RootCause*> findings(const PipelineResult& pl) {
  std::vector<const RootCause*> out;
  for (const RootCause& rc : pl.rootCauses) {
    if (rc.idle >= kMs) out.push_back(&rc);
  }
  return out;
}

// The demo's stall alone: stage 1 stalls 15 ms before F5 of step 1. Stages 2 and 3 wait for F5
// and stage 0 for the backward that comes back late: today's top gaps list the knock-on on stage
// 3 before the stall itself. Grouped, the stall comes first, holding every one of them.
TEST(RootCausesAnalysis, StallComesFirstWithItsKnockOnsFoldedUnderIt) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.stall[{1, 1, 5, OpKind::F}] = 15 * kMs;
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines.at(0);
  ASSERT_FALSE(pl.rootCauses.empty());
  const RootCause& first = pl.rootCauses[0];
  EXPECT_TRUE(isStall(first.id.cause)) << first.text;
  EXPECT_EQ(first.id.stage, 1) << first.text;
  ASSERT_TRUE(first.id.hasOp) << first.text;
  EXPECT_EQ(first.id.op, (Op{OpKind::F, 5, 0})) << first.text;
  EXPECT_EQ(first.steps, std::vector<int>{1});
  // Its own gap is stage 1's before F5; the knock-ons reach every other stage.
  ASSERT_EQ(first.own.size(), 1u);
  const Gap& own = pl.gaps[first.own[0]];
  EXPECT_EQ(own.stage, 1);
  EXPECT_EQ(pl.ops[own.nextOp].op, (Op{OpKind::F, 5, 0}));
  std::vector<int> stages;
  for (int g : first.knockOns) stages.push_back(pl.gaps[g].stage);
  for (int s : {0, 2, 3}) {
    EXPECT_NE(std::find(stages.begin(), stages.end(), s), stages.end()) << "stage " << s;
  }
  EXPECT_GT(first.knockOnIdle, 3 * 10 * kMs);
  // Every top gap is this one stall, and nothing else is a finding.
  for (int g : pl.topGaps) EXPECT_TRUE(holds(first, g)) << pl.gaps[g].blame.text;
  EXPECT_EQ(findings(pl).size(), 1u) << pl.rootCauses[1].text;
  // Removing it wins the 15 ms it added to step 1 (the replay of measured costs has no stall):
  // all of what the stalls cost together.
  EXPECT_NEAR(first.win, 15 * kMs, kMs / 2);
  const TimeNs stalls = (pl.stepTimeMeasured - pl.stepTimeOps) * 3;
  EXPECT_NEAR(first.win, stalls, kMs / 2);
}

// The demo's two faults: stage 2 runs 1.3x slower in every step, stage 1 stalls once. Two
// findings, each with its knock-ons: the slow stage's many small gaps are one entry, and the
// gap on stage 3 before F5 of the stalled step is the stall's, not an entry of its own.
TEST(RootCausesAnalysis, SlowStageAndStallAreOneEntryEach) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.cost = [](int stage, int, const engine::Op& op) {
    const TimeNs base = op.kind == OpKind::BW ? 4 * kMs : 2 * kMs;
    return stage == 2 ? base * 13 / 10 : base;
  };
  job.stall[{1, 1, 5, OpKind::F}] = 15 * kMs;
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines.at(0);
  const std::vector<const RootCause*> found = findings(pl);
  ASSERT_EQ(found.size(), 2u);
  // Stage 2 costs every step: it wins more over the three steps than the one stall does.
  EXPECT_EQ(found[0]->id, (CauseId{IdleClass::Imbalance, 2, -1, false, {}})) << found[0]->text;
  EXPECT_GT(found[0]->knockOns.size(), 10u);
  EXPECT_EQ(found[1]->id.stage, 1) << found[1]->text;
  EXPECT_EQ(found[1]->id.op, (Op{OpKind::F, 5, 0})) << found[1]->text;
  EXPECT_GT(found[0]->win, found[1]->win);
  bool stage3 = false;
  for (int g : found[1]->knockOns) {
    const Gap& gap = pl.gaps[g];
    stage3 = stage3 || (gap.stage == 3 && gap.step == 1 && gap.nextOp >= 0 &&
                        pl.ops[gap.nextOp].op == Op{OpKind::F, 5, 0});
  }
  EXPECT_TRUE(stage3) << "stage 3's wait for F5 is a knock-on of the stall";
}

// One op that ran 2 ms long (jitter: its stage's mean barely moves) delays the whole warm-up:
// the replay with it at its ideal cost is about 2 ms shorter, and that is what removing it wins.
TEST(RootCausesAnalysis, AnOpThatRanLongWinsWhatItRanLong) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.cost = [](int stage, int step, const engine::Op& op) {
    const TimeNs base = op.kind == OpKind::BW ? 4 * kMs : 2 * kMs;
    return stage == 0 && step == 1 && op.kind == OpKind::F && op.mb == 0 ? base + 2 * kMs : base;
  };
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines.at(0);
  ASSERT_FALSE(pl.rootCauses.empty());
  const RootCause& first = pl.rootCauses[0];
  EXPECT_EQ(first.id, (CauseId{IdleClass::Jitter, 0, -1, true, Op{OpKind::F, 0, 0}})) << first.text;
  EXPECT_TRUE(first.own.empty());
  EXPECT_FALSE(first.knockOns.empty());
  // Its ideal is the mean F over every stage and step, 2 ms and a little: it wins a little less.
  EXPECT_GT(first.win, 19 * kMs / 10);
  EXPECT_LE(first.win, 2 * kMs);
}

}  // namespace
}  // namespace bubblescope::analysis
