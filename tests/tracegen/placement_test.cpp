// The sweep's placements on their own: every fault kind on every stage and phase of every job
// shape, each drawn op in its phase, a host stall the step feels, the same seed the same draw.
#include "tests/tracegen/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/p2p_order.h"
#include "tests/tracegen/truth.h"
#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

TEST(SweepPlacement, PhasesSplitTheStageOrderAtItsFirstBackwardAndLastForward) {
  for (SweepJob job : {SweepJob::OneF1BFused, SweepJob::ZbV, SweepJob::Interleaved}) {
    const JobSpec spec = sweepBase(job);
    for (int s = 0; s < spec.p; ++s) {
      const auto warmup = opsInPhase(spec, s, Phase::Warmup);
      const auto steady = opsInPhase(spec, s, Phase::Steady);
      const auto drain = opsInPhase(spec, s, Phase::Drain);
      std::vector<StageOp> all = warmup;
      all.insert(all.end(), steady.begin(), steady.end());
      all.insert(all.end(), drain.begin(), drain.end());
      EXPECT_EQ(all, stageOrder(spec, s));
      ASSERT_FALSE(warmup.empty());
      ASSERT_FALSE(steady.empty());
      ASSERT_FALSE(drain.empty());
      for (const StageOp& o : warmup) EXPECT_EQ(o.pass, PassKind::F);
      EXPECT_TRUE(isBackward(steady.front().pass));
      EXPECT_EQ(steady.back().pass, PassKind::F);
      for (const StageOp& o : drain) EXPECT_TRUE(isBackward(o.pass));
    }
  }
  // 1F1B's stage 0 of 4: three warm-up forwards and the first steady one before BW0.
  EXPECT_EQ(opsInPhase(sweepBase(SweepJob::OneF1BFused), 0, Phase::Warmup).size(), 4u);
}

TEST(SweepPlacement, EveryFaultKindLandsOnEveryStageAndPhaseOfEveryJob) {
  const std::vector<Slot> all = sweepSlots();
  std::set<std::tuple<SweepJob, FaultKind, int, Phase>> got;
  std::set<std::tuple<SweepJob, int, int>> links, postLinks, senderLinks;
  std::set<std::string> names;
  for (const Slot& s : all) {
    got.insert({s.job, s.kind, s.stage, s.phase});
    if (s.kind == FaultKind::SlowLink) links.insert({s.job, s.stage, s.peer});
    if (s.kind == FaultKind::SlowLinkLatePost) postLinks.insert({s.job, s.stage, s.peer});
    if (s.kind == FaultKind::SlowLinkSenderLatePost) senderLinks.insert({s.job, s.stage, s.peer});
    names.insert(s.name);
  }
  EXPECT_EQ(names.size(), all.size());
  for (SweepJob job :
       {SweepJob::OneF1BFused, SweepJob::OneF1BUnfused, SweepJob::ZbV, SweepJob::Interleaved}) {
    const JobSpec spec = sweepBase(job);
    EXPECT_TRUE(got.count({job, FaultKind::None, -1, Phase::Whole}));
    for (int s = 0; s < spec.p; ++s) {
      EXPECT_TRUE(got.count({job, FaultKind::SlowStage, s, Phase::Whole})) << s;
      for (Phase phase : {Phase::Warmup, Phase::Steady, Phase::Drain}) {
        EXPECT_TRUE(got.count({job, FaultKind::HostStall, s, phase})) << s;
        // A late post needs a receive in the phase: 1F1B's stage 0 receives no forward input,
        // its last stage's drain is BW7 alone, whose input is its own loss.
        const auto ops = opsInPhase(spec, s, phase);
        const bool receives = std::any_of(
            ops.begin(), ops.end(), [&](const StageOp& o) { return inputPeer(spec, s, o) >= 0; });
        EXPECT_EQ(got.count({job, FaultKind::HostStallAtPost, s, phase}) == 1, receives)
            << sweepJobName(job) << " stage " << s << " " << phaseName(phase);
      }
      if (s + 1 < spec.p) {
        EXPECT_TRUE(links.count({job, s, s + 1}));
        EXPECT_TRUE(links.count({job, s + 1, s}));
      }
    }
  }
  // Interleaving's loop also wraps from the last stage to the first.
  EXPECT_TRUE(links.count({SweepJob::Interleaved, 3, 0}));
  EXPECT_TRUE(links.count({SweepJob::Interleaved, 0, 3}));
  EXPECT_FALSE(links.count({SweepJob::ZbV, 3, 0}));
  EXPECT_EQ(postLinks, links);
  EXPECT_EQ(senderLinks, links);
  // 4 jobs x (fault-free + 4 slow stages + 12 host stalls + 6 links, slow alone and under a late
  // post at either end) + interleaving's 2 wrapped links, thrice + the late posts that have a
  // receive: 10 on either 1F1B, 12 on ZB-V and interleaved (stage 0 receives chunk 1's input in
  // its warm-up).
  EXPECT_EQ(all.size(), 4u * 35u + 6u + 10u + 10u + 12u + 12u);
}

// Under a slow link, one receive from its sender posted late on its receiver by a fifth to three
// fifths of the link's extra as the analysis measures it: a piece smaller than the link's.
TEST(SweepPlacement, ALatePostUnderASlowLinkIsOnItsReceiverAndSmallerThanTheLinksExtra) {
  for (const Slot& slot : sweepSlots()) {
    if (slot.kind != FaultKind::SlowLinkLatePost &&
        slot.kind != FaultKind::SlowLinkSenderLatePost) {
      continue;
    }
    const bool atSender = slot.kind == FaultKind::SlowLinkSenderLatePost;
    const int lateAt = atSender ? slot.stage : slot.peer, other = atSender ? slot.peer : slot.stage;
    const Placement p = place(slot, 7);
    ASSERT_EQ(p.spec.slowLinks.size(), 1u) << slot.name;
    ASSERT_EQ(p.spec.lateLaunches.size(), 1u) << slot.name;
    const SlowLink& link = p.spec.slowLinks.front();
    const LateLaunch& late = p.spec.lateLaunches.front();
    EXPECT_EQ(link.from, slot.stage);
    EXPECT_EQ(link.to, slot.peer);
    EXPECT_EQ(late.op.stage, lateAt) << slot.name;
    EXPECT_TRUE(late.beforeInputPost);
    const StageOp drawn{late.op.pass, late.op.mb, late.op.chunk};
    EXPECT_EQ(inputPeer(p.spec, lateAt, drawn), other) << slot.name << ": " << p.where;
    const TimeNs shows = postLateness(execute(p.spec), late.op, other);
    EXPECT_GE(shows, link.extra / 5 - 20'000) << slot.name << ": " << p.where;
    EXPECT_LE(shows, link.extra * 3 / 5 + 20'000) << slot.name << ": " << p.where;
    EXPECT_EQ(p.cls, analysis::IdleClass::CommStall);
  }
}

// The seed draws the op in its phase and a stall the step feels: past the host's lead, grown
// where the op had slack.
TEST(SweepPlacement, EachHostStallFallsOnAnOpOfItsPhaseAndTheStepFeelsIt) {
  int felt = 0, stalls = 0;
  for (const Slot& slot : sweepSlots()) {
    if (slot.kind != FaultKind::HostStall && slot.kind != FaultKind::HostStallAtPost) continue;
    const Placement p = place(slot, 7);
    ASSERT_EQ(p.spec.lateLaunches.size(), 1u) << slot.name;
    const LateLaunch& late = p.spec.lateLaunches.front();
    EXPECT_EQ(late.op.stage, slot.stage);
    EXPECT_EQ(late.beforeInputPost, slot.kind == FaultKind::HostStallAtPost);
    const auto ops = opsInPhase(p.spec, slot.stage, slot.phase);
    const StageOp drawn{late.op.pass, late.op.mb, late.op.chunk};
    EXPECT_NE(std::find(ops.begin(), ops.end(), drawn), ops.end()) << slot.name << ": " << p.where;
    EXPECT_GE(late.delay, 6'000'000) << slot.name;
    ++stalls;
    const double base = truthOf(execute(sweepBase(slot.job))).measuredStep;
    felt += truthOf(execute(p.spec)).measuredStep >= 1.01 * base;
  }
  // Only a stall of a step's very first op cannot show: it delays the whole step.
  EXPECT_GT(felt, stalls * 3 / 4);
}

TEST(SweepPlacement, TheSameSeedDrawsTheSamePlacementsAndAnotherOthers) {
  int differ = 0, n = 0;
  for (const Slot& slot : sweepSlots()) {
    if (slot.kind == FaultKind::HostStall) continue;  // the test above runs those
    const Placement a = place(slot, 11), b = place(slot, 11), c = place(slot, 12);
    EXPECT_EQ(a.where, b.where);
    EXPECT_EQ(a.spec.clockSkew, b.spec.clockSkew);
    EXPECT_EQ(a.spec.slowFactor, b.spec.slowFactor);
    differ += a.spec.clockSkew != c.spec.clockSkew;
    ++n;
  }
  EXPECT_GT(differ, n / 2);
}

}  // namespace
}  // namespace bubblescope::tracegen
