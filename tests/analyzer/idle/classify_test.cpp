// Classification of a stage's step (analysis.md §2-3): the span splits exactly into compute,
// exposed communication, other busy and idle, and each gap's idle fills, in order, the bubble
// the ideal schedule also leaves, then imbalance, jitter and stall, as the simulations say. The
// classes sum to idle exactly. Steps are in hand_steps.h.
#include "analyzer/idle/classify.h"

#include <gtest/gtest.h>

#include "analyzer/idle/gap_label.h"
#include "analyzer/idle/gap_sentence.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "tests/analyzer/hand_pipeline.h"
#include "tests/analyzer/idle/hand_steps.h"
#include "tests/analyzer/idle/step_analysis.h"

namespace bubblescope::analysis {
namespace {

using testing::HandPipeline;
using testing::kMs;
using testing::StepAnalysis;

// Idle by class, naming only the classes that are not zero.
IdleByClass classes(std::initializer_list<std::pair<IdleClass, TimeNs>> nonZero) {
  IdleByClass out{};
  for (auto [c, t] : nonZero) out[static_cast<int>(c)] = t;
  return out;
}

void expectAddsUp(const Split& s) {
  EXPECT_EQ(s.compute + s.exposedComm + s.otherBusy + s.idle, s.span);
  EXPECT_EQ(s.classSum(), s.idle);
}

struct FillCase {
  const char* what;
  TimeNs measured, ideal, stageMeans, measuredCosts;
  IdleByClass expected;
};

TEST(FillLevels, IdleFillsTheIdealBubbleThenImbalanceJitterAndStall) {
  using C = IdleClass;
  const FillCase cases[] = {
      {"every level", 10, 4, 6, 7,
       classes({{C::Warmup, 4}, {C::Imbalance, 2}, {C::Jitter, 1}, {C::CommStall, 3}})},
      {"ideal alone explains more than the gap", 3, 5, 6, 7, classes({{C::Warmup, 3}})},
      {"ideal run has no such gap", 10, -2, 0, 0, classes({{C::CommStall, 10}})},
      {"stage means shorten the gap", 10, 6, 4, 8,
       classes({{C::Warmup, 6}, {C::Jitter, 2}, {C::CommStall, 2}})},
      {"measured costs shorten it again", 10, 2, 6, 3,
       classes({{C::Warmup, 2}, {C::Imbalance, 4}, {C::CommStall, 4}})},
      {"simulations longer than the gap", 5, 1, 9, 12,
       classes({{C::Warmup, 1}, {C::Imbalance, 4}})},
      {"no gap", 0, 4, 6, 7, classes({})},
  };
  for (const auto& c : cases) {
    const IdleByClass got = fillLevels(c.measured, c.ideal, c.stageMeans, c.measuredCosts,
                                       IdleClass::Warmup, IdleClass::CommStall);
    EXPECT_EQ(got, c.expected) << c.what;
    TimeNs sum = 0;
    for (TimeNs v : got) sum += v;
    EXPECT_EQ(sum, c.measured) << c.what;
  }
}

TEST(FillLevels, BaselineAndStallKindNameTheClassesFilled) {
  const IdleByClass got = fillLevels(10, 4, 4, 4, IdleClass::ScheduleBubble, IdleClass::HostStall);
  EXPECT_EQ(got, classes({{IdleClass::ScheduleBubble, 4}, {IdleClass::HostStall, 6}}));
}

TEST(ChargeDpWait, TakesTheUnexplainedStallUpToTheWaitAndBlamesTheLaterReplica) {
  Gap g;
  g.stage = 2;
  g.idle = 10 * kMs;
  g.byClass[static_cast<int>(IdleClass::Drain)] = 2 * kMs;
  g.byClass[static_cast<int>(IdleClass::HostStall)] = 1 * kMs;
  g.byClass[static_cast<int>(IdleClass::OtherStall)] = 7 * kMs;
  g.blame.cause = IdleClass::OtherStall;
  BlameWords words;
  words.form = BlameForm::StartedLate;
  // The later replica arrived 7.5 ms after: the other stall first, then the host's.
  EXPECT_EQ(chargeDpWait(g, words, DpWait{7'500'000, 3}), 7'500'000);
  EXPECT_EQ(g.byClass[static_cast<int>(IdleClass::DpSync)], 7'500'000);
  EXPECT_EQ(g.byClass[static_cast<int>(IdleClass::OtherStall)], 0);
  EXPECT_EQ(g.byClass[static_cast<int>(IdleClass::HostStall)], 500'000);
  EXPECT_EQ(g.byClass[static_cast<int>(IdleClass::Drain)], 2 * kMs) << "the schedule's own stays";
  EXPECT_EQ(g.blame.cause, IdleClass::DpSync);
  labelGap(g, words, -1);
  EXPECT_EQ(gapSentence(g, words, PipelineTrace{}),
            "stage 2 waited 10.0 ms at the DP sync for DP replica 3, whose stage 2 finished its "
            "ops 7.5 ms later (wait: DP sync)");
  // A wait longer than the unexplained stall takes only that: no bubble becomes a DP wait.
  Gap small;
  small.stage = 0;
  small.idle = 3 * kMs;
  small.byClass[static_cast<int>(IdleClass::Drain)] = 2 * kMs;
  small.byClass[static_cast<int>(IdleClass::OtherStall)] = 1 * kMs;
  small.blame.cause = IdleClass::Drain;
  BlameWords smallWords;
  EXPECT_EQ(chargeDpWait(small, smallWords, DpWait{5 * kMs, 1}), 1 * kMs);
  EXPECT_EQ(smallWords.form, BlameForm::Bubble) << "its words stay the walk's";
  EXPECT_EQ(small.blame.cause, IdleClass::Drain) << "not its largest piece: the walk stays";
}

TEST(ClassifyStageStep, WaitingBehindASlowerStageIsWarmupAsFarAsTheIdealThenImbalance) {
  // Stage 0 idles 4-18 ms (the ideal run: 9 ms) and 22-26 ms (ideal: none).
  const StepAnalysis a(testing::slowSecondStage().build());
  std::vector<Gap> gaps;
  const Split s = a.classify(0, gaps);
  EXPECT_EQ(s.span, 30 * kMs);
  EXPECT_EQ(s.compute, 12 * kMs);
  EXPECT_EQ(s.exposedComm, 0);
  EXPECT_EQ(s.otherBusy, 0);
  EXPECT_EQ(s.idle, 18 * kMs);
  EXPECT_EQ(s.idleByClass,
            classes({{IdleClass::Warmup, 9 * kMs}, {IdleClass::Imbalance, 9 * kMs}}));
  expectAddsUp(s);

  ASSERT_EQ(gaps.size(), 2u);
  const Gap& first = gaps[0];
  EXPECT_EQ(first.stage, 0);
  EXPECT_EQ(first.step, 0);
  EXPECT_EQ(first.start, 4 * kMs);
  EXPECT_EQ(first.end, 18 * kMs);
  EXPECT_EQ(first.idle, 14 * kMs);
  EXPECT_EQ(first.nextOp, 2);  // BW0, stage 0's third op
  EXPECT_EQ(first.byClass,
            classes({{IdleClass::Warmup, 9 * kMs}, {IdleClass::Imbalance, 5 * kMs}}));
  // One label per gap, its largest piece (issue 26): the warm-up the ideal run also has. The
  // sentence leads with it and keeps the walk's explanation of the imbalance for its piece.
  EXPECT_EQ(first.dominant, IdleClass::Warmup);
  EXPECT_EQ(first.blame.cause, IdleClass::Imbalance);
  EXPECT_EQ(first.blame.stage, 1);
  EXPECT_TRUE(first.blame.text.starts_with(
      "stage 0 waited 14.0 ms, 9.0 ms of it for the pipeline to fill (warm-up bubble); of the "
      "rest, 5.0 ms "))
      << first.blame.text;
  // After its last forward the stage is in its drain phase: what the ideal run lacks is imbalance.
  const Gap& second = gaps[1];
  EXPECT_EQ(second.start, 22 * kMs);
  EXPECT_EQ(second.end, 26 * kMs);
  EXPECT_EQ(second.nextOp, 3);
  EXPECT_EQ(second.byClass, classes({{IdleClass::Imbalance, 4 * kMs}}));
  EXPECT_EQ(second.dominant, IdleClass::Imbalance);
}

TEST(ClassifyStageStep, SlowStageIdlesOnlyInWarmupAndDrain) {
  // Stage 1 waits 0-2 ms for its first input (ideal: 3) and 26-30 ms at the end (ideal: 6).
  const StepAnalysis a(testing::slowSecondStage().build());
  std::vector<Gap> gaps;
  const Split s = a.classify(1, gaps);
  EXPECT_EQ(s.compute, 24 * kMs);
  EXPECT_EQ(s.idle, 6 * kMs);
  EXPECT_EQ(s.idleByClass, classes({{IdleClass::Warmup, 2 * kMs}, {IdleClass::Drain, 4 * kMs}}));
  expectAddsUp(s);
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].nextOp, 0);
  EXPECT_EQ(gaps[1].start, 26 * kMs);
  EXPECT_EQ(gaps[1].end, 30 * kMs);
  EXPECT_EQ(gaps[1].nextOp, -1);  // the drain
  EXPECT_EQ(gaps[1].dominant, IdleClass::Drain);
}

TEST(ClassifyStageStep, LateLaunchIsHostStallOnItsStageAndOnTheStageWaitingDownstream) {
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/true).build());
  std::vector<Gap> gaps;
  // Stage 1: 0-2 warm-up, 4-7 the late launch, 17-21 drain (the ideal run also drains 4 ms).
  const Split s1 = a.classify(1, gaps);
  EXPECT_EQ(s1.span, 21 * kMs);
  EXPECT_EQ(s1.idle, 9 * kMs);
  EXPECT_EQ(s1.idleByClass, classes({{IdleClass::Warmup, 2 * kMs},
                                     {IdleClass::HostStall, 3 * kMs},
                                     {IdleClass::Drain, 4 * kMs}}));
  expectAddsUp(s1);
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[1].start, 4 * kMs);
  EXPECT_EQ(gaps[1].end, 7 * kMs);
  EXPECT_EQ(gaps[1].byClass, classes({{IdleClass::HostStall, 3 * kMs}}));
  EXPECT_EQ(gaps[1].dominant, IdleClass::HostStall);
  // Stage 0: waits 4-13 ms for BW0; the ideal run waits 6, the other 3 are the stall's knock-on.
  gaps.clear();
  const Split s0 = a.classify(0, gaps);
  EXPECT_EQ(s0.idle, 9 * kMs);
  EXPECT_EQ(s0.idleByClass,
            classes({{IdleClass::Warmup, 6 * kMs}, {IdleClass::HostStall, 3 * kMs}}));
  expectAddsUp(s0);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].blame.stage, 1);
  EXPECT_EQ(gaps[0].blame.op, testing::kF1);
}

TEST(ClassifyStageStep, UnexplainedLateLaunchIsOtherStall) {
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/false).build());
  std::vector<Gap> gaps;
  const Split s1 = a.classify(1, gaps);
  EXPECT_EQ(s1.idleByClass, classes({{IdleClass::Warmup, 2 * kMs},
                                     {IdleClass::OtherStall, 3 * kMs},
                                     {IdleClass::Drain, 4 * kMs}}));
  expectAddsUp(s1);
}

TEST(ClassifyStageStep, GapTheIdealScheduleAlsoLeavesMidStepIsScheduleBubble) {
  const StepAnalysis a(testing::oneMicrobatchAtATime().build());
  std::vector<Gap> gaps;
  // Stage 1 idles 0-2 (before its first backward: warm-up), 8-14 (after its first backward,
  // before its last forward: steady) and 20-24 (drain).
  const Split s1 = a.classify(1, gaps);
  EXPECT_EQ(s1.span, 24 * kMs);
  EXPECT_EQ(s1.idle, 12 * kMs);
  EXPECT_EQ(s1.idleByClass, classes({{IdleClass::Warmup, 2 * kMs},
                                     {IdleClass::ScheduleBubble, 6 * kMs},
                                     {IdleClass::Drain, 4 * kMs}}));
  expectAddsUp(s1);
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[1].start, 8 * kMs);
  EXPECT_EQ(gaps[1].end, 14 * kMs);
  EXPECT_EQ(gaps[1].blame.cause, IdleClass::ScheduleBubble);
  EXPECT_EQ(gaps[1].blame.stage, -1);
  // Stage 0 idles 2-8 (warm-up, up to its first backward) and 14-20 (after its last forward).
  gaps.clear();
  const Split s0 = a.classify(0, gaps);
  EXPECT_EQ(s0.idleByClass, classes({{IdleClass::Warmup, 6 * kMs}, {IdleClass::Drain, 6 * kMs}}));
  expectAddsUp(s0);
}

TEST(ClassifyStageStep, IdleBetweenAnOpsKernelsIsHostStall) {
  // One stage: F0 runs 0-4 ms but its kernels only 0-1 and 3-4; BW0's kernel runs 4-8.
  HandPipeline h(1);
  h.op(0, testing::kF0, 0, 4 * kMs).op(0, testing::kBW0, 4 * kMs, 8 * kMs);
  std::vector<RankOps> ops = h.rankOps();
  ops[0].hasKernels = true;
  ops[0].computeKernels = {{0, 1 * kMs}, {3 * kMs, 4 * kMs}, {4 * kMs, 8 * kMs}};
  ops[0].opKernels = {{.begin = 0, .end = 2}, {.begin = 2, .end = 3}};
  const StepAnalysis a(
      buildPipeline(testing::chainTopology(1), 0, ops, HandPipeline::noClockAlignment()));
  std::vector<Gap> gaps;
  const Split s = a.classify(0, gaps);
  EXPECT_EQ(s.span, 8 * kMs);
  EXPECT_EQ(s.compute, 6 * kMs);
  EXPECT_EQ(s.idle, 2 * kMs);
  EXPECT_EQ(s.idleByClass, classes({{IdleClass::HostStall, 2 * kMs}}));
  EXPECT_TRUE(gaps.empty());
  expectAddsUp(s);
}

}  // namespace
}  // namespace bubblescope::analysis
