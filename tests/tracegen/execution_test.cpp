// The execution model on its own: it runs 1F1B without deadlock, a fault-free job is exactly as
// fast as its ideal, and each fault costs what it should.
#include "tests/tracegen/execution.h"

#include <gtest/gtest.h>

#include "tests/tracegen/expect_transfers.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {
namespace {

TEST(TracegenModel, FaultFreeJobIsItsOwnIdealAndItsPartsAddUp) {
  JobSpec spec;
  const JobTimeline job = execute(spec);
  const Truth t = truthOf(job);
  EXPECT_NEAR(t.slowdown, 1.0, 1e-6);
  for (const StageTruth& s : t.stages) {
    EXPECT_EQ(s.compute + s.comm + s.other + s.idle, s.span);
    EXPECT_EQ(s.compute, spec.steps * spec.m * (spec.costF + spec.costBW));
  }
  // 1F1B's bubble: every stage idles about (p-1)(F+BW) a step, plus the transfers and the tail.
  const TimeNs bubble = (spec.p - 1) * (spec.costF + spec.costBW) * spec.steps;
  for (const StageTruth& s : t.stages) {
    EXPECT_GT(s.idle, bubble * 9 / 10);
    EXPECT_LT(s.idle, bubble * 3 / 2);
  }
}

TEST(TracegenModel, EveryReceiveWaitsUntilItsSenderStartedAndEndsWithIt) {
  const int matched = expectReceivesMeetTheirSends(execute(JobSpec{}));
  const JobSpec spec;
  EXPECT_EQ(matched, spec.steps * spec.m * 2 * (spec.p - 1));
}

// torch's older P2POp path: each send and receive its own kernel, the pair's sides agreeing on
// their order, so the job runs and each receive meets its send; a pair's two messages then queue
// one behind the other, a few transfers a step slower than the (fused) ideal.
TEST(TracegenModel, UnfusedPostsEachCallAloneAndStillMeetTheirPeers) {
  JobSpec spec;
  spec.fuseP2p = false;
  const JobTimeline job = execute(spec);
  for (const RankTimeline& tl : job.ranks) {
    for (const std::vector<int>& batch : tl.batches) EXPECT_EQ(batch.size(), 1u);
  }
  EXPECT_EQ(expectReceivesMeetTheirSends(job), spec.steps * spec.m * 2 * (spec.p - 1));
  const Truth t = truthOf(job);
  EXPECT_GT(t.measuredStep, t.idealStep + 2 * spec.transfer);
  EXPECT_LT(t.measuredStep, t.idealStep + 2 * spec.m * spec.transfer);
  // Fused, the stages between the ends post some of theirs in twos.
  size_t fusedBatches = 0, calls = 0;
  for (const RankTimeline& tl : execute(JobSpec{}).ranks) {
    fusedBatches += tl.batches.size();
    for (const std::vector<int>& batch : tl.batches) calls += batch.size();
  }
  EXPECT_LT(fusedBatches, calls);
}

TEST(TracegenModel, SlowStageAndLateLaunchCostTime) {
  JobSpec slow;
  slow.slowStage = 2;
  slow.slowFactor = 1.5;
  EXPECT_GT(truthOf(execute(slow)).slowdown, 1.1);

  JobSpec late;
  late.lateLaunches.push_back({OpId{0, 1, PassKind::F, 1}, 12'000'000});
  const Truth t = truthOf(execute(late));
  ASSERT_EQ(t.hostStall.size(), 1u);
  // The CPU was ahead of the GPU by less than a few ops' launches: most of the pause shows on the device.
  EXPECT_GT(t.hostStall[0], 8'000'000);
  EXPECT_LE(t.hostStall[0], 12'000'000);
  EXPECT_GT(t.slowdown, 1.01);
}

}  // namespace
}  // namespace bubblescope::tracegen
