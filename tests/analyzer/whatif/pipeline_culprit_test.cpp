// Every pipeline opens with a culprit line (issue 26, item 4), as the job section does.
#include "analyzer/whatif/pipeline_culprit.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

// A 4-stage pipeline at `measured` ms against a 100 ms ideal, T_stage and T_ops as given.
PipelineResult pipelineAt(TimeNs measured, TimeNs stageMeans, TimeNs ops) {
  PipelineResult pl;
  pl.stepTimeIdeal = 100 * kMs;
  pl.stepTimeStage = stageMeans * kMs;
  pl.stepTimeOps = ops * kMs;
  pl.stepTimeMeasured = measured * kMs;
  pl.slowdown = static_cast<double>(measured) / 100.0;
  for (int s = 0; s < 4; ++s) {
    StageResult st;
    st.stage = s;
    st.slowdown = s == 2 ? 1.25 : 1.0;
    pl.stages.push_back(st);
  }
  return pl;
}

TEST(PipelineCulprit, ASlowStageIsNamedWithWhatItCosts) {
  const PipelineCulprit c = pipelineCulprit(pipelineAt(130, 125, 127));
  EXPECT_EQ(c.stage, 2);
  EXPECT_EQ(c.gain, 25 * kMs);
  EXPECT_EQ(c.text,
            "stage 2: S_s = 1.25x (imbalance: its ops run longer than the other stages'); the "
            "step would shrink by about 25.0 ms (19%) with it at the ideal");
}

TEST(PipelineCulprit, StallsAreNamedByTheStageAndClassThatCostTheMost) {
  PipelineResult pl = pipelineAt(130, 101, 102);
  Gap host;
  host.stage = 1;
  host.dominant = IdleClass::HostStall;
  host.byClass[static_cast<int>(IdleClass::HostStall)] = 12 * kMs;
  host.blame.cause = IdleClass::HostStall;
  host.blame.stage = 1;
  Gap knockOn = host;  // its knock-on on stage 3, blamed on stage 1's stall
  knockOn.stage = 3;
  Gap other;
  other.stage = 0;
  other.dominant = IdleClass::OtherStall;
  other.byClass[static_cast<int>(IdleClass::OtherStall)] = 10 * kMs;
  pl.gaps = {host, knockOn, other};
  const PipelineCulprit c = pipelineCulprit(pl);
  EXPECT_EQ(c.stage, 1);
  EXPECT_EQ(c.gain, 28 * kMs);
  EXPECT_EQ(c.text.rfind("stall: host on stage 1: 24.0 ms of idle", 0), 0u) << c.text;
}

// A pair's messages moving one at a time cost 0.15 ms in each of many gaps the schedule mostly
// explains: those pieces are what the step pays for, though no gap is labelled by them.
TEST(PipelineCulprit, StallPiecesOfGapsTheScheduleDominatesCount) {
  PipelineResult pl = pipelineAt(130, 101, 102);
  std::vector<Gap> gaps;
  for (int i = 0; i < 40; ++i) {
    Gap g;
    g.stage = i % 2 == 0 ? 0 : 3;
    g.dominant = IdleClass::ScheduleBubble;
    g.byClass[static_cast<int>(IdleClass::ScheduleBubble)] = 2 * kMs;
    g.byClass[static_cast<int>(IdleClass::CommStall)] = kMs / 4;
    g.blame.cause = IdleClass::CommStall;
    g.blame.stage = 1;
    gaps.push_back(g);
  }
  Gap host;
  host.stage = 2;
  host.dominant = IdleClass::HostStall;
  host.byClass[static_cast<int>(IdleClass::HostStall)] = 3 * kMs;
  host.blame.cause = IdleClass::HostStall;
  host.blame.stage = 2;
  gaps.push_back(host);
  pl.gaps = gaps;
  const PipelineCulprit c = pipelineCulprit(pl);
  EXPECT_EQ(c.stage, 1);
  EXPECT_EQ(c.text.rfind("stall: comm on stage 1: 10.0 ms of idle", 0), 0u) << c.text;
}

// A comm stall whose link is known is named by it, as the root causes name it.
TEST(PipelineCulprit, ACommStallOnAKnownLinkNamesTheLink) {
  PipelineResult pl = pipelineAt(130, 101, 102);
  Gap g;
  g.stage = 2;
  g.dominant = IdleClass::CommStall;
  g.byClass[static_cast<int>(IdleClass::CommStall)] = 12 * kMs;
  g.blame.cause = IdleClass::CommStall;
  g.blame.stage = 1;
  g.blame.toStage = 2;
  pl.gaps = {g};
  const PipelineCulprit c = pipelineCulprit(pl);
  EXPECT_EQ(c.stage, 1);
  EXPECT_EQ(c.toStage, 2);
  EXPECT_EQ(c.text.rfind("stall: comm on the link stage 1 -> stage 2: 12.0 ms of idle", 0), 0u)
      << c.text;
}

TEST(PipelineCulprit, APipelineWithinNoiseOfItsScheduleHasNone) {
  const PipelineCulprit none = pipelineCulprit(pipelineAt(100, 100, 100));
  EXPECT_EQ(none.stage, -1);
  EXPECT_EQ(none.text,
            "none: the pipeline is as good as its schedule (S = 1.00x); its idle is the "
            "schedule's own bubbles");
  // A 2% host stall is named, though S stays within the job's 3%.
  EXPECT_EQ(pipelineCulprit(pipelineAt(102, 100, 100)).text.rfind("stalls: ", 0), 0u);
}

TEST(PipelineCulprit, JitterWhenNoStageStandsOut) {
  const PipelineCulprit c = pipelineCulprit(pipelineAt(110, 101, 109));
  EXPECT_EQ(c.stage, -1);
  EXPECT_EQ(c.text.rfind("jitter: ", 0), 0u) << c.text;
  EXPECT_EQ(c.gain, 8 * kMs);
}

}  // namespace
}  // namespace bubblescope::analysis
