// The blame walk: a gap is blamed on the place its dependency chain leads to, a producer that ran
// longer than its ideal cost (imbalance or jitter), a late arrival (comm stall), a late launch
// (host or other stall), or nothing (the schedule's own bubble). Steps are in hand_steps.h.
#include "analyzer/idle/blame.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "analyzer/idle/gap_sentence.h"
#include "tests/analyzer/idle/hand_steps.h"
#include "tests/analyzer/idle/step_analysis.h"

namespace bubblescope::analysis {
namespace {

using testing::HandPipeline;
using ::testing::HasSubstr;
using testing::kBW0;
using testing::kBW1;
using testing::kF0;
using testing::kF1;
using testing::kMs;
using testing::StepAnalysis;

TEST(Blame, GapFiguresArePrintfsDigitsOnEveryScaleAndAtEveryHalfway) {
  // The sentences' figures were printf("%.2f ms" / "%.1f ms"); they must stay its digits, ties
  // (0.15 ms is 0.1499... as a double) included.
  auto printed = [](TimeNs t) {
    char buf[40];
    std::snprintf(buf, sizeof buf, t < 1'000'000 ? "%.2f ms" : "%.1f ms",
                  static_cast<double>(t) / 1e6);
    return std::string(buf);
  };
  std::mt19937_64 random(28);
  std::vector<TimeNs> values = {0,         1,        4'999,     5'000,     15'000,
                                150'000,   999'999,  1'000'000, 1'050'000, 1'150'000,
                                2'250'000, -150'000, INT64_MAX, INT64_MIN};
  for (TimeNs scale = 10; scale < TimeNs{1} << 50; scale *= 7) {
    for (int i = 0; i < 2000; ++i) {
      const TimeNs t = static_cast<TimeNs>(random() % static_cast<uint64_t>(scale));
      values.push_back(t);
      values.push_back(t / 10'000 * 10'000 + 5'000);     // a halfway of the two decimals
      values.push_back(t / 100'000 * 100'000 + 50'000);  // ... and of the one
    }
  }
  for (TimeNs t : values) ASSERT_EQ(gapMs(t), printed(t)) << t;
  EXPECT_EQ(waitedText(2, 3'140'000), "stage 2 waited 3.1 ms");
}

TEST(Blame, GapBeforeBackwardIsBlamedOnTheSlowerStagesBackward) {
  // Stage 0 waits 4..18 ms for the gradients of BW0, which took 8 ms on stage 1 (ideal 6).
  const StepAnalysis a(testing::slowSecondStage().build());
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 14 * kMs);
  EXPECT_EQ(b.cause, IdleClass::Imbalance);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kBW0);
  EXPECT_DOUBLE_EQ(b.costRatio, 8.0 / 6.0);
  EXPECT_EQ(b.text,
            "stage 0 waited 14.0 ms for BW0 on stage 1, which ran 1.3x its ideal (imbalance)");
}

// The analysis keeps one walker a thread and resets it onto each step (issue 28): onto another
// pipeline's step and back, its walks (and the outcomes it keeps of them) are a fresh walker's.
TEST(Blame, AWalkerResetOntoAnotherStepBlamesAsOneMadeForThatStep) {
  const StepAnalysis slow(testing::slowSecondStage().build());
  const StepAnalysis late(testing::lateLaunchOnSecondStage(/*hostBusy=*/true).build());
  const auto same = [](const Blame& a, const Blame& b) {
    EXPECT_EQ(a.cause, b.cause);
    EXPECT_EQ(a.stage, b.stage);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.text, b.text);
  };
  BlameWalker walker;
  for (int round = 0; round < 2; ++round) {
    for (const StepAnalysis* a : {&late, &slow}) {
      walker.reset(a->pl, a->view(), a->costs, 0, a->sims.ops);
      same(a->written(0, 9 * kMs, walker.startOf(0, 2, IdleClass::Warmup)),
           a->startOf(0, 2, IdleClass::Warmup, 9 * kMs));
      for (int stage = 0; stage < a->pl.p; ++stage) {
        same(a->written(stage, kMs, walker.drainOf(stage)), a->drainOf(stage, kMs));
      }
    }
  }
}

TEST(Blame, ProducerLongForOneMicrobatchOnlyIsJitter) {
  // Stage 1's BW takes 8 and 4 ms: its mean is the ideal 6 ms, so BW0's 8 ms is jitter.
  //   stage 0: F0 0-2, F1 2-4,                              BW0 14-20, BW1 20-26
  //   stage 1:         F0 2-4, F1 4-6, BW0 6-14, BW1 14-18
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(0, kBW0, 14 * kMs, 20 * kMs).op(0, kBW1, 20 * kMs, 26 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).op(1, kF1, 4 * kMs, 6 * kMs);
  h.op(1, kBW0, 6 * kMs, 14 * kMs).op(1, kBW1, 14 * kMs, 18 * kMs);
  const StepAnalysis a(h.build());
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 10 * kMs);
  EXPECT_EQ(b.cause, IdleClass::Jitter);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kBW0);
  EXPECT_DOUBLE_EQ(b.costRatio, 8.0 / 6.0);
  EXPECT_THAT(b.text, HasSubstr("for BW0 on stage 1, which ran 1.3x its ideal (jitter)"));
}

TEST(Blame, InputArrivingLateAfterItsProducerEndedIsACommStallAtTheProducer) {
  // F1's activations arrive at 7 ms; F1 ended at 4 and a healthy link takes 1 ms: 2 ms late.
  const StepAnalysis a(testing::lateActivationsToSecondStage().build(), 1 * kMs);
  EXPECT_EQ(a.blame->readyTime(1, 1), 7 * kMs);
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 3 * kMs);
  EXPECT_EQ(b.cause, IdleClass::CommStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.costRatio, 0);
  EXPECT_EQ(b.text,
            "stage 1 waited 3.0 ms because the activations of F1 on stage 0 took 2.0 ms longer "
            "than a healthy link takes, on the link stage 0 -> stage 1 (stall: comm)");
}

TEST(Blame, ReceivePostedLateIsAHostStallOfTheReceiverNotASchedulesBubble) {
  // Stage 1 is free at 4 ms and stage 0's send of F1 runs 4-5, but stage 1's host, in the data
  // loader 4-7, posts the receive only at 7: F1's input comes at 7.1, F1 runs 7.1-9.1. The
  // receive's own readiness (7.1) hides nothing: the producers' data was there at 4.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 1, 1, 4 * kMs, 5 * kMs);
  h.op(0, kBW0, 13 * kMs, 17 * kMs).op(0, kBW1, 17 * kMs, 21 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).recv(1, OpKind::F, 1, 0, 7 * kMs, 7 * kMs + 100'000);
  h.op(1, kF1, 7 * kMs + 100'000, 9 * kMs + 100'000);
  h.op(1, kBW0, 9 * kMs + 100'000, 13 * kMs).op(1, kBW1, 13 * kMs, 17 * kMs);
  h.host(1, 4 * kMs, 7 * kMs);
  const StepAnalysis a(h.build());
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 3 * kMs);
  EXPECT_EQ(b.cause, IdleClass::HostStall);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 1 waited 3.0 ms because the host posted the receive of F1 on stage 1 3.0 ms "
            "after the stage was free, while it was in 'dataloader' (stall: host)");
}

// A late post, send or start is one piece of an op's delay. A knock-on walking through the op
// follows the largest piece; so does the gap the op ends, of the pieces inside it (from when its
// stage was free). The CI's engine run (a link held 10 ms, the receiver's host 2.1 ms late to post
// on a loaded machine) blamed all 57.9 ms of the post's knock-ons on it: "stall: host on stage 1"
// for the step.
TEST(Blame, ReceivePostedLateForDataASlowLinkHeldLongerIsTheLinksToItsKnockOns) {
  // Stage 1 is free at 4 ms and its host posts F1's receive at 6, 2 ms late; but the link holds
  // F1's activations in their send 4-12 (its healthy transfer takes 0.1 ms): they come at 12.1.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 1, 1, 4 * kMs, 12 * kMs);
  h.op(0, kBW0, 18 * kMs + 100'000, 22 * kMs + 100'000);
  h.op(0, kBW1, 22 * kMs + 100'000, 26 * kMs + 100'000);
  h.op(1, kF0, 2 * kMs, 4 * kMs).recv(1, OpKind::F, 1, 0, 6 * kMs, 12 * kMs + 100'000);
  h.op(1, kF1, 12 * kMs + 100'000, 14 * kMs + 100'000);
  h.op(1, kBW0, 14 * kMs + 100'000, 18 * kMs + 100'000);
  h.op(1, kBW1, 18 * kMs + 100'000, 22 * kMs + 100'000);
  const StepAnalysis a(h.build(), 100'000);
  // The gap F1 ends (4-12.1): the post's 2 ms in it, and the link's 6 ms once both sides had
  // started; posted in time, the data would have come at 10.1.
  const Blame own = a.startOf(1, 1, IdleClass::Warmup, 8 * kMs + 100'000);
  EXPECT_EQ(own.cause, IdleClass::CommStall);
  EXPECT_EQ(own.text,
            "stage 1 waited 8.1 ms because the activations of F1 on stage 0 took 6.0 ms longer "
            "than a healthy link takes, on the link stage 0 -> stage 1 (stall: comm)");
  // Stage 0 waits 4-18.1 for BW0's gradients, which follow F1 on stage 1.
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 14 * kMs + 100'000);
  EXPECT_EQ(b.cause, IdleClass::CommStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.toStage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 0 waited 14.1 ms because the activations of F1 on stage 0 took 6.0 ms longer "
            "than a healthy link takes, on the link stage 0 -> stage 1 (stall: comm)");
}

// The link holds F0's activations 2-7 ms, so stage 1 runs F0 7-9, 4.9 ms behind its stall-free
// start, and F1 at 9.3, 0.3 ms after the stage was free. F1's send and receive run as given. The
// gap before F1 is stage 1's `own` stall; stage 0's wait for BW0, which follows F1 on stage 1, is
// the link's: F1's 5.2 ms of delay is 4.9 ms of it.
void expectHeldLinkNamedBeyondALateF1(TimeNs sendStart, TimeNs sendEnd, TimeNs recvStart,
                                      TimeNs recvEnd, const std::string& own) {
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 0, 1, 2 * kMs, 7 * kMs).send(0, OpKind::F, 1, 1, sendStart, sendEnd);
  h.op(0, kBW0, 15 * kMs + 300'000, 19 * kMs + 300'000);
  h.op(0, kBW1, 19 * kMs + 300'000, 23 * kMs + 300'000);
  h.recv(1, OpKind::F, 0, 0, 2 * kMs, 7 * kMs).op(1, kF0, 7 * kMs, 9 * kMs);
  h.recv(1, OpKind::F, 1, 0, recvStart, recvEnd);
  h.op(1, kF1, 9 * kMs + 300'000, 11 * kMs + 300'000);
  h.op(1, kBW0, 11 * kMs + 300'000, 15 * kMs + 300'000);
  h.op(1, kBW1, 15 * kMs + 300'000, 19 * kMs + 300'000);
  const StepAnalysis a(h.build(), 100'000);
  EXPECT_EQ(a.startOf(1, 1, IdleClass::ScheduleBubble, 300'000).text, own);
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 11 * kMs + 300'000);
  EXPECT_EQ(b.cause, IdleClass::CommStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.op, kF0);
  EXPECT_EQ(b.text,
            "stage 0 waited 11.3 ms because the activations of F0 on stage 0 took 4.9 ms longer "
            "than a healthy link takes, on the link stage 0 -> stage 1 (stall: comm)");
}

TEST(Blame, ReceivePostedLateAfterAnOpALinkHeldIsTheLinksToItsKnockOns) {
  // F1's activations queue behind F0's on the link (7-7.1); stage 1's host posts their receive
  // at 9.3, 0.3 ms late, for data there since 7.1.
  expectHeldLinkNamedBeyondALateF1(
      7 * kMs, 7 * kMs + 100'000, 9 * kMs + 300'000, 9 * kMs + 300'000,
      "stage 1 waited 0.30 ms because the host posted the receive of F1 on stage 1 0.3 ms after "
      "the stage was free (stall: host)");
}

TEST(Blame, AnOpStartedLateAfterAnOpALinkHeldIsTheLinksToItsKnockOns) {
  // F1's input is there since 4.1, its receive posted in time; F1 starts late with nothing in
  // the trace to say why.
  expectHeldLinkNamedBeyondALateF1(
      4 * kMs, 4 * kMs + 100'000, 4 * kMs, 4 * kMs + 100'000,
      "stage 1 waited 0.30 ms because F1 on stage 1 started 0.3 ms after it was ready, with "
      "nothing in the trace to explain it (stall: other)");
}

TEST(Blame, AStallPassedForALargerImbalanceStillNamesTheStallPiece) {
  // Stage 1's F0 runs 6 ms (2-8; the mean F, 3 ms); its host, in the data loader 8-8.3, starts
  // F1 0.3 ms late. Stage 0's wait for BW0 follows F1 back to F0's 3 ms overrun, the larger
  // piece; the host's 0.3 ms it passed is what the gap's stall piece is.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(0, kBW0, 14 * kMs + 300'000, 18 * kMs + 300'000);
  h.op(0, kBW1, 18 * kMs + 300'000, 22 * kMs + 300'000);
  h.op(1, kF0, 2 * kMs, 8 * kMs).op(1, kF1, 8 * kMs + 300'000, 10 * kMs + 300'000);
  h.op(1, kBW0, 10 * kMs + 300'000, 14 * kMs + 300'000);
  h.op(1, kBW1, 14 * kMs + 300'000, 18 * kMs + 300'000);
  h.host(1, 8 * kMs, 8 * kMs + 300'000);
  const StepAnalysis a(h.build());
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 10 * kMs + 300'000);
  EXPECT_FALSE(isStall(b.cause)) << b.text;
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF0);
  ASSERT_TRUE(b.stallPassed.has_value()) << b.text;
  EXPECT_EQ(*b.stallPassed, IdleClass::HostStall);
  // The gap F1 ends is the host's own.
  EXPECT_EQ(a.startOf(1, 1, IdleClass::ScheduleBubble, 300'000).cause, IdleClass::HostStall);
}

TEST(Blame, SendPostedLateIsTheSendersHostStallNotTheLinks) {
  // F1 ends on stage 0 at 4 ms, but its host posts the send only at 6; stage 1, waiting in its
  // receive since 4, gets the activations at 6.1. The link took 0.1 ms: the sender was late.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 1, 1, 6 * kMs, 6 * kMs + 100'000);
  h.op(0, kBW0, 15 * kMs, 19 * kMs).op(0, kBW1, 19 * kMs, 23 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).recv(1, OpKind::F, 1, 0, 4 * kMs, 6 * kMs + 100'000);
  h.op(1, kF1, 6 * kMs + 100'000, 8 * kMs + 100'000);
  h.op(1, kBW0, 8 * kMs + 100'000, 12 * kMs).op(1, kBW1, 12 * kMs, 16 * kMs);
  const StepAnalysis a(h.build(), 100'000);
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 2 * kMs);
  EXPECT_EQ(b.cause, IdleClass::HostStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 1 waited 2.0 ms because the host of stage 0 posted the send of the activations "
            "of F1 on stage 0 2.0 ms after it ended (stall: host)");
}

TEST(Blame, SendPostedLateIntoALinkThatHeldItLongerIsTheLinksToItsKnockOns) {
  // F1 ends on stage 0 at 4 ms; its host posts the send at 4.3, 0.3 ms late, and the link holds
  // it 8 ms (4.3-12.3); stage 1, waiting in its receive since 4, gets the activations at 12.4.
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 1, 1, 4 * kMs + 300'000, 12 * kMs + 300'000);
  h.op(0, kBW0, 18 * kMs + 400'000, 22 * kMs + 400'000);
  h.op(0, kBW1, 22 * kMs + 400'000, 26 * kMs + 400'000);
  h.op(1, kF0, 2 * kMs, 4 * kMs).recv(1, OpKind::F, 1, 0, 4 * kMs, 12 * kMs + 400'000);
  h.op(1, kF1, 12 * kMs + 400'000, 14 * kMs + 400'000);
  h.op(1, kBW0, 14 * kMs + 400'000, 18 * kMs + 400'000);
  h.op(1, kBW1, 18 * kMs + 400'000, 22 * kMs + 400'000);
  const StepAnalysis a(h.build(), 100'000);
  EXPECT_EQ(a.startOf(1, 1, IdleClass::Warmup, 300'000).cause, IdleClass::HostStall);
  // Stage 0 waits 4-18.4 for BW0's gradients, which follow F1 on stage 1.
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 14 * kMs + 400'000);
  EXPECT_EQ(b.cause, IdleClass::CommStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 0 waited 14.4 ms because the activations of F1 on stage 0 took 8.0 ms longer "
            "than a healthy link takes, on the link stage 0 -> stage 1 (stall: comm)");
}

TEST(Blame, SendQueuedBehindASlowTransferOnItsLinkIsTheLinksNotTheSenders) {
  // Stage 0's link thread moves F0's activations 2-5 ms (held 3 ms) and only then F1's, 5-8,
  // although F1 ended at 4: the send began late because it queued behind the slow one.
  //   stage 0: F0 0-2, F1 2-4, SEND F0 2-5, SEND F1 5-8
  //   stage 1: RECV F0 2-5, F0 5-7, RECV F1 7-8, F1 8-10
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 0, 1, 2 * kMs, 5 * kMs).send(0, OpKind::F, 1, 1, 5 * kMs, 8 * kMs);
  h.op(0, kBW0, 14 * kMs, 18 * kMs).op(0, kBW1, 18 * kMs, 22 * kMs);
  h.recv(1, OpKind::F, 0, 0, 2 * kMs, 5 * kMs).op(1, kF0, 5 * kMs, 7 * kMs);
  h.recv(1, OpKind::F, 1, 0, 7 * kMs, 8 * kMs).op(1, kF1, 8 * kMs, 10 * kMs);
  h.op(1, kBW0, 10 * kMs, 14 * kMs).op(1, kBW1, 14 * kMs, 18 * kMs);
  const StepAnalysis a(h.build(), 100'000);
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 1 * kMs);
  EXPECT_EQ(b.cause, IdleClass::CommStall);
  EXPECT_EQ(b.stage, 0);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 1 waited 1.0 ms because the activations of F1 on stage 0 waited 1.0 ms behind "
            "the transfer before them on the link stage 0 -> stage 1 (stall: comm)");
}

TEST(Blame, ReadyOpLaunchedLateIsAHostStallWhenTheHostWasBusy) {
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/true).build());
  EXPECT_EQ(a.blame->readyTime(1, 1), 4 * kMs);
  EXPECT_EQ(a.blame->hostBusy(1, 4 * kMs, 7 * kMs), 3 * kMs);
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 3 * kMs);
  EXPECT_EQ(b.cause, IdleClass::HostStall);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_EQ(b.text,
            "stage 1 waited 3.0 ms because F1 on stage 1 started 3.0 ms after it was ready, the "
            "host was busy in 'dataloader' (stall: host)");
  const int name = a.blame->hostNameDuring(1, 4 * kMs, 7 * kMs);
  ASSERT_GE(name, 0);
  EXPECT_EQ(a.pl.stages[1].ops.hostNames.at(name), "dataloader");
  EXPECT_EQ(a.blame->hostNameDuring(1, 0, 4 * kMs), -1) << "nothing ran then";
}

TEST(Blame, ReadyOpLaunchedLateWithNothingToExplainItIsAnOtherStall) {
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/false).build());
  EXPECT_EQ(a.blame->hostBusy(1, 4 * kMs, 7 * kMs), 0);
  const Blame b = a.startOf(1, 1, IdleClass::Warmup, 3 * kMs);
  EXPECT_EQ(b.cause, IdleClass::OtherStall);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_THAT(b.text, HasSubstr("with nothing in the trace to explain it (stall: other)"));
}

TEST(Blame, KnockOnGapDownstreamIsBlamedOnTheStallUpstream) {
  // Stage 0 waits 4..13 ms for BW0 from stage 1, which ran on time after F1, which was late.
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/true).build());
  const Blame b = a.startOf(0, 2, IdleClass::Warmup, 9 * kMs);
  EXPECT_EQ(b.cause, IdleClass::HostStall);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_THAT(b.text, HasSubstr("stage 0 waited 9.0 ms because F1 on stage 1 started 3.0 ms"));
}

TEST(Blame, GapNoOpExplainsKeepsItsBaselineAndNamesNoStage) {
  // Stage 1 waits 0..2 ms for F0 of stage 0, which ran at its ideal cost from the step start.
  const StepAnalysis a(testing::lateLaunchOnSecondStage(/*hostBusy=*/false).build());
  const Blame warmup = a.startOf(1, 0, IdleClass::Warmup, 2 * kMs);
  EXPECT_EQ(warmup.cause, IdleClass::Warmup);
  EXPECT_EQ(warmup.stage, -1);
  EXPECT_EQ(warmup.text, "stage 1 waited 2.0 ms for the pipeline to fill (warm-up bubble)");
  const Blame steady = a.startOf(1, 0, IdleClass::ScheduleBubble, 2 * kMs);
  EXPECT_EQ(steady.cause, IdleClass::ScheduleBubble);
  EXPECT_EQ(steady.stage, -1);
  EXPECT_EQ(steady.text,
            "stage 1 waited 2.0 ms in a gap the schedule itself leaves (schedule bubble)");
}

TEST(Blame, DrainOnTheStageThatEndsTheStepIsAPlainDrain) {
  const StepAnalysis a(testing::slowSecondStage().build());
  const Blame b = a.drainOf(0, 1 * kMs);
  EXPECT_EQ(b.cause, IdleClass::Drain);
  EXPECT_EQ(b.stage, -1);
  EXPECT_EQ(b.text, "stage 0 waited 1.0 ms for the other stages to drain (drain bubble)");
}

TEST(Blame, DrainFollowsTheStepsLastOpBackToWhatHeldItUp) {
  // Stage 1 ends at 26 ms; the step ends with BW1 on stage 0 (26-30), which waited for BW1 on
  // stage 1 (8 ms, ideal 6).
  const StepAnalysis a(testing::slowSecondStage().build());
  const Blame b = a.drainOf(1, 4 * kMs);
  EXPECT_EQ(b.cause, IdleClass::Imbalance);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kBW1);
  EXPECT_DOUBLE_EQ(b.costRatio, 8.0 / 6.0);
  EXPECT_EQ(b.text,
            "stage 1 waited 4.0 ms for the step's last op (BW1 on stage 0), held up for BW1 on "
            "stage 1, which ran 1.3x its ideal (imbalance)");
}

TEST(Blame, DrainBehindALongLastOpOnAnotherStageIsBlamedOnIt) {
  // Forwards only; F1 on stage 1 takes 6 ms (ideal: the mean of 2, 2, 2, 6 = 3 ms).
  //   stage 0: F0 0-2, F1 2-4
  //   stage 1:         F0 2-4, F1 4-10
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).op(1, kF1, 4 * kMs, 10 * kMs);
  const StepAnalysis a(h.build());
  const Blame b = a.drainOf(0, 6 * kMs);
  EXPECT_EQ(b.cause, IdleClass::Imbalance);  // stage 1's mean F (4 ms) is above the ideal 3
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.op, kF1);
  EXPECT_DOUBLE_EQ(b.costRatio, 2.0);
  EXPECT_EQ(b.text,
            "stage 0 waited 6.0 ms for F1 on stage 1 to finish the step, which ran 2.0x its ideal "
            "(imbalance)");
}

}  // namespace
}  // namespace bubblescope::analysis
