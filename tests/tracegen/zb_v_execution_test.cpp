// The execution model on a ZB-V job: it runs without deadlock, every dependency of the V holds
// in the executed timeline, and a fault-free job is its own ideal with no bubble in its middle.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/expect_transfers.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {
namespace {

JobSpec zbVSpec(int p, int m) {
  JobSpec spec;
  spec.schedule = JobSchedule::ZbV;
  spec.p = p;
  spec.m = m;
  spec.costF = 1'000'000;
  spec.costB = 1'000'000;
  spec.costW = 1'000'000;
  return spec;
}

// When each op's kernels ran, by (stage, step, pass, chunk, mb).
using Key = std::tuple<int, int, PassKind, int, int>;
std::map<Key, std::pair<TimeNs, TimeNs>> opTimes(const JobTimeline& job) {
  std::map<Key, std::pair<TimeNs, TimeNs>> out;
  for (const RankTimeline& tl : job.ranks) {
    for (const OpRun& op : tl.ops) {
      const OpId& id = op.id;
      out[{id.stage, id.step, id.pass, id.chunk, id.mb}] = {tl.kernels[op.firstKernel].start,
                                                            tl.kernels[op.lastKernel].end};
    }
  }
  return out;
}

TEST(ZbVModel, EveryOpRunsOnceAndAfterWhatItNeeds) {
  for (auto [p, m] : {std::pair{2, 3}, std::pair{4, 8}, std::pair{4, 12}, std::pair{3, 2}}) {
    const JobSpec spec = zbVSpec(p, m);
    const JobTimeline job = execute(spec);
    const auto t = opTimes(job);
    ASSERT_EQ(t.size(), static_cast<size_t>(p * spec.steps * m * 6)) << "p=" << p << " m=" << m;
    auto start = [&](int s, int k, PassKind pass, int c, int mb) {
      return t.at({s, k, pass, c, mb}).first;
    };
    auto end = [&](int s, int k, PassKind pass, int c, int mb) {
      return t.at({s, k, pass, c, mb}).second;
    };
    constexpr PassKind F = PassKind::F, B = PassKind::B, W = PassKind::W;
    for (int k = 0; k < spec.steps; ++k) {
      for (int mb = 0; mb < m; ++mb) {
        for (int s = 0; s < p; ++s) {
          // Down the V and back up, forward then backward; a transfer between stages.
          if (s > 0) {
            EXPECT_GE(start(s, k, F, 0, mb), end(s - 1, k, F, 0, mb) + spec.transfer);
            EXPECT_GE(start(s - 1, k, F, 1, mb), end(s, k, F, 1, mb) + spec.transfer);
            EXPECT_GE(start(s, k, B, 1, mb), end(s - 1, k, B, 1, mb) + spec.transfer);
            EXPECT_GE(start(s - 1, k, B, 0, mb), end(s, k, B, 0, mb) + spec.transfer);
          }
          for (int c = 0; c < 2; ++c) {
            EXPECT_GE(start(s, k, B, c, mb), end(s, k, F, c, mb));
            EXPECT_GE(start(s, k, W, c, mb), end(s, k, B, c, mb));
          }
        }
        // The turn at the bottom of the V, and the loss on stage 0.
        EXPECT_GE(start(p - 1, k, F, 1, mb), end(p - 1, k, F, 0, mb));
        EXPECT_GE(start(p - 1, k, B, 0, mb), end(p - 1, k, B, 1, mb));
        EXPECT_GE(start(0, k, B, 1, mb), end(0, k, F, 1, mb));
      }
    }
  }
}

TEST(ZbVModel, SendsAndReceivesPairUpInOrderOnEveryLink) {
  const int matched = expectReceivesMeetTheirSends(execute(zbVSpec(4, 8)));
  // Each microbatch crosses each of the p - 1 links four times: F and B, down and up the V.
  const JobSpec spec = zbVSpec(4, 8);
  EXPECT_EQ(matched, spec.steps * spec.m * 4 * (spec.p - 1));
}

TEST(ZbVModel, FaultFreeJobIsItsOwnIdealAndItsPartsAddUp) {
  const JobSpec spec = zbVSpec(4, 8);
  const Truth t = truthOf(execute(spec));
  EXPECT_NEAR(t.slowdown, 1.0, 1e-6);
  for (const StageTruth& s : t.stages) {
    EXPECT_EQ(s.compute + s.comm + s.other + s.idle, s.span);
    EXPECT_EQ(s.compute, spec.steps * spec.m * 2 * (spec.costF + spec.costB + spec.costW));
  }
}

// ZB-V's point: at T_F = T_B = T_W and m >= 2p - 1 its bubble is far below 1F1B's
// (p - 1)(T_F + T_B + T_W) of the same model, even with transfers between the ops.
TEST(ZbVModel, BubbleIsFarBelowOneF1BsOnTheSameModel) {
  const JobSpec v = zbVSpec(4, 8);
  JobSpec chain = v;
  chain.schedule = JobSchedule::OneF1B;
  chain.costF = 2 * v.costF;  // one stage of the chain holds both of the V's chunks
  chain.costBW = 2 * (v.costB + v.costW);
  const Truth tv = truthOf(execute(v)), tc = truthOf(execute(chain));
  for (int s = 0; s < v.p; ++s) {
    EXPECT_LT(tv.stages[s].idle, tc.stages[s].idle / 2) << "stage " << s;
  }
  EXPECT_LT(tv.measuredStep, tc.measuredStep);
}

// torch >= 2.1's one p2p stream per rank for both neighbours: a stage's messages to the stage
// before and after it queue on one stream, and the job still runs (no receive blocks a send that
// its sender needs first).
TEST(ZbVModel, RunsWithOneP2pStreamForBothNeighbours) {
  for (auto [p, m] : {std::pair{2, 3}, std::pair{4, 8}, std::pair{4, 12}, std::pair{5, 9}}) {
    JobSpec spec = zbVSpec(p, m);
    spec.sharedP2pStream = true;
    const Truth t = truthOf(execute(spec));
    EXPECT_NEAR(t.slowdown, 1.0, 1e-6) << "p=" << p << " m=" << m;
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
