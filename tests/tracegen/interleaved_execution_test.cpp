// The execution model on an interleaved 1F1B job: it runs without deadlock, each receive meets its
// send (across the loop's wrap too), every dependency holds in the executed timeline, and a
// fault-free job is its own ideal with a bubble a v-th of 1F1B's on the same model.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/expect_transfers.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {
namespace {

JobSpec interleavedSpec(int p, int m) {
  JobSpec spec;
  spec.schedule = JobSchedule::Interleaved;
  spec.p = p;
  spec.m = m;
  spec.costF = 1'000'000;
  spec.costBW = 2'000'000;
  return spec;
}

TEST(InterleavedModel, EveryOpRunsOnceAndAfterWhatItNeeds) {
  for (auto [p, m] : {std::pair{2, 4}, std::pair{4, 8}, std::pair{4, 4}, std::pair{3, 9}}) {
    const JobSpec spec = interleavedSpec(p, m);
    const JobTimeline job = execute(spec);
    // (stage, step, pass, chunk, mb) -> when its kernels ran
    std::map<std::tuple<int, int, PassKind, int, int>, std::pair<TimeNs, TimeNs>> t;
    for (const RankTimeline& tl : job.ranks) {
      for (const OpRun& op : tl.ops) {
        const OpId& id = op.id;
        t[{id.stage, id.step, id.pass, id.chunk, id.mb}] = {tl.kernels[op.firstKernel].start,
                                                            tl.kernels[op.lastKernel].end};
      }
    }
    ASSERT_EQ(t.size(), static_cast<size_t>(p * spec.steps * m * 4)) << "p=" << p << " m=" << m;
    for (const auto& [key, span] : t) {
      const auto [s, k, pass, chunk, mb] = key;
      const int vs = virtualStage(spec, s, chunk);
      if (pass == PassKind::F && vs > 0) {
        const auto& in =
            t.at({stageOfVirtual(spec, vs - 1), k, pass, chunkOfVirtual(spec, vs - 1), mb});
        EXPECT_GE(span.first, in.second + spec.transfer) << "p=" << p << " stage " << s;
      }
      if (pass == PassKind::BW && vs + 1 < virtualStages(spec)) {
        const auto& in =
            t.at({stageOfVirtual(spec, vs + 1), k, pass, chunkOfVirtual(spec, vs + 1), mb});
        EXPECT_GE(span.first, in.second + spec.transfer) << "p=" << p << " stage " << s;
      }
      if (pass == PassKind::BW) {
        EXPECT_GE(span.first, t.at({s, k, PassKind::F, chunk, mb}).second);
      }
    }
  }
}

TEST(InterleavedModel, SendsAndReceivesPairUpInOrderOnEveryLinkAndTheWrap) {
  const JobSpec spec = interleavedSpec(4, 8);
  // F and BW of each microbatch cross each of the 2p - 1 boundaries between virtual stages.
  EXPECT_EQ(expectReceivesMeetTheirSends(execute(spec)),
            spec.steps * spec.m * 2 * (2 * spec.p - 1));
}

// A fault-free job is its ideal but for its pairs' messages, posted alone, queueing on each pair's
// stream (the ideal moves each on its own: truth.h): about 1% at p = 4. Interleaving's point: the
// bubble of 1F1B on the same model, (p - 1)(t_f + t_b), divided by v.
TEST(InterleavedModel, FaultFreeJobLosesOnlyItsQueuedTransfersAndAFractionOfOneF1BsBubble) {
  const JobSpec spec = interleavedSpec(4, 8);
  const Truth t = truthOf(execute(spec));
  EXPECT_GT(t.slowdown, 1.005);
  EXPECT_LT(t.slowdown, 1.02);
  JobSpec chain = spec;
  chain.schedule = JobSchedule::OneF1B;
  chain.costF = 2 * spec.costF;  // one stage of the chain holds both chunks
  chain.costBW = 2 * spec.costBW;
  const Truth tc = truthOf(execute(chain));
  for (int s = 0; s < spec.p; ++s) {
    const StageTruth& st = t.stages[s];
    EXPECT_EQ(st.compute + st.comm + st.other + st.idle, st.span);
    EXPECT_EQ(st.compute, spec.steps * spec.m * 2 * (spec.costF + spec.costBW));
    EXPECT_LT(st.idle, tc.stages[s].idle * 2 / 3) << "stage " << s;
  }
  EXPECT_LT(t.measuredStep, tc.measuredStep);
}

// torch >= 2.1's one p2p stream per rank for both neighbours: posted one by one in the order every
// rank shares, the loop's ring of ranks does not wait on itself.
TEST(InterleavedModel, RunsWithOneP2pStreamForBothNeighbours) {
  for (auto [p, m] : {std::pair{2, 4}, std::pair{3, 6}, std::pair{4, 8}, std::pair{4, 12}}) {
    JobSpec spec = interleavedSpec(p, m);
    spec.sharedP2pStream = true;
    EXPECT_NEAR(truthOf(execute(spec)).slowdown, 1.0, 1e-6) << "p=" << p << " m=" << m;
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
