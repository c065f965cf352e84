// Clock alignment: a receive cannot end before its send started, so matched transfers bound each
// stage's clock offset from its neighbour; a known skew is recovered from activations going down
// and gradients coming back, and no correction is made where causality does not demand one.
#include "analyzer/pipeline/clock_align.h"

#include <gtest/gtest.h>

#include "tests/analyzer/hand_pipeline.h"

namespace bubblescope::analysis {
namespace {

using testing::kMs;

// A pipeline of `p` stages where each neighbour pair exchanges one transfer each way, as recorded
// on clocks that run `skew[s]` ahead of the true time (negative: behind). Every transfer takes
// 1 ms from the send's start to the receive's end; stage s sends activations at 10s ms and
// gradients at 100 + 10s ms (true time).
PipelineTrace exchange(const std::vector<TimeNs>& skew, bool gradients = true) {
  const int p = static_cast<int>(skew.size());
  PipelineTrace pl;
  pl.p = p;
  pl.stages.resize(p);
  for (int s = 0; s < p; ++s) pl.stages[s].stage = s;
  std::vector<Transfer> transfers;
  auto transfer = [&](int from, int to, TimeNs sent) {
    auto& sender = pl.stages[from].ops.comms;
    auto& receiver = pl.stages[to].ops.comms;
    const OpKind pass = to > from ? OpKind::F : OpKind::B;
    sender.push_back(analysis::RecognizedComm{.send = true,
                                              .pass = pass,
                                              .thread = 1,
                                              .peer = to,
                                              .step = 0,
                                              .start = sent + skew[from],
                                              .end = sent + 1 * kMs + skew[from]});
    receiver.push_back(analysis::RecognizedComm{.send = false,
                                                .pass = pass,
                                                .peer = from,
                                                .step = 0,
                                                .start = sent - 5 * kMs + skew[to],
                                                .end = sent + 1 * kMs + skew[to]});
    transfers.push_back({from, to, static_cast<uint32_t>(sender.size() - 1),
                         static_cast<uint32_t>(receiver.size() - 1)});
  };
  for (int s = 0; s + 1 < p; ++s) {
    transfer(s, s + 1, 10 * s * kMs);
    if (gradients) transfer(s + 1, s, (100 + 10 * s) * kMs);
  }
  linkTransfers(pl, transfers);
  return pl;
}

struct OffsetCase {
  const char* what;
  std::vector<TimeNs> skew;
  bool gradients;
  std::vector<TimeNs> offsets;
};

TEST(EstimateClockOffsets, RecoversAKnownSkewFromTransfersBothWays) {
  const OffsetCase cases[] = {
      {"clocks agree", {0, 0}, true, {0, 0}},
      // Stage 1 reads 5 ms early: its receives seem to end 4 ms before the send started, its
      // sends to start 6 ms before the receive ended. Halfway between the bounds: +5 ms.
      {"stage 1 behind", {0, -5 * kMs}, true, {0, 5 * kMs}},
      {"stage 1 ahead", {0, 5 * kMs}, true, {0, -5 * kMs}},
      {"offsets add up along the chain",
       {0, -5 * kMs, -2 * kMs, 3 * kMs},
       true,
       {0, 5 * kMs, 2 * kMs, -3 * kMs}},
      // Only activations: the smallest shift that makes every receive end after its send began.
      {"stage 1 behind, forward only", {0, -5 * kMs}, false, {0, 4 * kMs}},
      // Stage 1 reads 0.5 ms early, but its receive still ends after the send began: causality
      // asks for no correction, so none is made.
      {"small skew, forward only", {0, -500'000}, false, {0, 0}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(estimateClockOffsets(exchange(c.skew, c.gradients)), c.offsets) << c.what;
  }
}

// Two stages whose receives of activations waited and ended 50 µs before their sends began (a
// clock 50 µs behind, or two processes' tick conversions around a step of the system clock), and
// one gradient back: sent at 20 ms, its receive posted at `gradientPosted` and ended at
// `gradientEnded`.
PipelineTrace behindBy50us(TimeNs gradientPosted, TimeNs gradientEnded) {
  PipelineTrace pl;
  pl.p = 2;
  pl.stages.resize(2);
  pl.stages[1].stage = 1;
  std::vector<Transfer> transfers;
  auto transfer = [&](int from, int to, Interval send, Interval recv) {
    const OpKind pass = to > from ? OpKind::F : OpKind::B;
    pl.stages[from].ops.comms.push_back(analysis::RecognizedComm{
        .send = true, .pass = pass, .peer = to, .start = send.start, .end = send.end});
    pl.stages[to].ops.comms.push_back(analysis::RecognizedComm{
        .send = false, .pass = pass, .peer = from, .start = recv.start, .end = recv.end});
    transfers.push_back({from, to, static_cast<uint32_t>(pl.stages[from].ops.comms.size() - 1),
                         static_cast<uint32_t>(pl.stages[to].ops.comms.size() - 1)});
  };
  for (TimeNs at : {10 * kMs, 14 * kMs}) {
    transfer(0, 1, {at, at + 4'000}, {at - 2 * kMs, at - 50'000});
  }
  transfer(1, 0, {20 * kMs, 20 * kMs + 3'000}, {gradientPosted, gradientEnded});
  linkTransfers(pl, transfers);
  return pl;
}

// The correction is what causality demands, moved towards the middle of what the bounds allow
// only as far as a bound that held its receive waiting allows: a receive posted 4 ms after its
// gradient was sent (the slow stage's, which never waits) says only that the skew is under 4 ms,
// and half of that is no estimate of it.
TEST(EstimateClockOffsets, OnlyAReceiveThatWaitedPullsTheOffsetTowardsTheMiddle) {
  // Posted 4 ms late, over in 1 µs: the violated bound, 50 µs (the middle would say 2 ms).
  EXPECT_EQ(estimateClockOffsets(behindBy50us(24 * kMs, 24 * kMs + 1'000)),
            (std::vector<TimeNs>{0, 50'000}));
  // Posted 2 ms before the send, ended 150 µs after it began: between 50 and 150 µs, the middle.
  EXPECT_EQ(estimateClockOffsets(behindBy50us(18 * kMs, 20 * kMs + 150'000)),
            (std::vector<TimeNs>{0, 100'000}));
}

TEST(EstimateClockOffsets, IgnoresTransfersBetweenStagesThatAreNotNeighbours) {
  PipelineTrace pl = exchange({0, 0, 0});
  std::vector<Transfer> transfers = transfersOf(pl);  // before comms are added: places move
  // A transfer 0 -> 2 whose receive seems to end 50 ms before the send started.
  pl.stages[0].ops.comms.push_back(analysis::RecognizedComm{.send = true,
                                                            .pass = OpKind::F,
                                                            .thread = 1,
                                                            .mb = 1,
                                                            .peer = 2,
                                                            .step = 0,
                                                            .start = 60 * kMs,
                                                            .end = 61 * kMs});
  pl.stages[2].ops.comms.push_back(analysis::RecognizedComm{.send = false,
                                                            .pass = OpKind::F,
                                                            .mb = 1,
                                                            .peer = 0,
                                                            .step = 0,
                                                            .start = 5 * kMs,
                                                            .end = 10 * kMs});
  transfers.push_back({0, 2, static_cast<uint32_t>(pl.stages[0].ops.comms.size() - 1),
                       static_cast<uint32_t>(pl.stages[2].ops.comms.size() - 1)});
  linkTransfers(pl, transfers);
  EXPECT_EQ(estimateClockOffsets(pl), (std::vector<TimeNs>{0, 0, 0}));
}

// A gradient transfer matched to the wrong send, a second apart: it alone asks stage 1 to be a
// second early, against every other transfer. It is left out, and said; the offset is the one
// the others give.
TEST(EstimateClockOffsets, ATransferThatContradictsTheOthersIsLeftOutAndSaid) {
  for (const TimeNs skew : {TimeNs{0}, -5 * kMs}) {
    PipelineTrace pl = exchange({0, skew});
    std::vector<Transfer> transfers = transfersOf(pl);  // before comms are added: places move
    for (int k = 1; k <= 4; ++k) {                      // more of the same exchange, 200 ms apart
      const PipelineTrace more = exchange({0, skew});
      for (int s = 0; s < 2; ++s) {
        for (auto c : more.stages[s].ops.comms) {
          c.start += 200 * k * kMs;
          c.end += 200 * k * kMs;
          pl.stages[s].ops.comms.push_back(c);
        }
      }
      for (Transfer t : transfersOf(more)) {
        t.send += 2 * k;
        t.recv += 2 * k;
        transfers.push_back(t);
      }
    }
    // Stage 1's send of a gradient, paired with stage 0's receive that ended 1 s before it.
    pl.stages[1].ops.comms.push_back(analysis::RecognizedComm{.send = true,
                                                              .pass = OpKind::B,
                                                              .thread = 1,
                                                              .mb = 7,
                                                              .peer = 0,
                                                              .step = 0,
                                                              .start = 1000 * kMs + skew,
                                                              .end = 1001 * kMs + skew});
    pl.stages[0].ops.comms.push_back(analysis::RecognizedComm{.send = false,
                                                              .pass = OpKind::B,
                                                              .mb = 7,
                                                              .peer = 1,
                                                              .step = 0,
                                                              .start = -2 * kMs,
                                                              .end = -1 * kMs});
    transfers.push_back({1, 0, static_cast<uint32_t>(pl.stages[1].ops.comms.size() - 1),
                         static_cast<uint32_t>(pl.stages[0].ops.comms.size() - 1)});
    linkTransfers(pl, transfers);
    std::vector<std::string> warnings;
    EXPECT_EQ(estimateClockOffsets(pl, &warnings), (std::vector<TimeNs>{0, -skew})) << skew;
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].rfind("clock alignment: 1 of 11 transfers between stage 0 and stage 1 "
                                "contradict the others (by up to 100",
                                0),
              0u)
        << warnings[0];
  }
  // Transfers that agree: nothing said.
  std::vector<std::string> none;
  estimateClockOffsets(exchange({0, -5 * kMs, 2 * kMs}), &none);
  EXPECT_TRUE(none.empty());
}

TEST(ShiftTimes, MovesEveryTimeOfTheRankByTheOffset) {
  RankOps ops;
  RecognizedOp op;
  op.start = 10;
  op.end = 20;
  ops.ops = {op};
  ops.opHosts = {{9, 21}};
  ops.comms = {analysis::RecognizedComm{
      .send = true, .pass = OpKind::F, .peer = 1, .step = 0, .start = 20, .end = 25}};
  ops.steps = {{3, 0, 100}};
  ops.optimizer = {{90, 95}};
  ops.gradSync = {{80, 90}};
  ops.otherBusy = {{30, 31}};
  ops.hostActivity = {{0, 9}};
  ops.computeKernels = {{11, 19}};
  CommKernel nccl;
  nccl.start = 21;
  nccl.end = 24;
  nccl.transferStart = 22;
  nccl.launch = 5;
  ops.commKernels = {nccl};
  ops.otherKernels = {{91, 94, 8}};
  shiftTimes(ops, 1000);
  EXPECT_EQ(ops.ops[0].start, 1010);
  EXPECT_EQ(ops.ops[0].end, 1020);
  EXPECT_EQ(ops.hostOf(0), (HostSpan{1009, 1021}));
  EXPECT_EQ(ops.comms[0].start, 1020);
  EXPECT_EQ(ops.comms[0].end, 1025);
  EXPECT_EQ(ops.steps[0].start, 1000);
  EXPECT_EQ(ops.steps[0].end, 1100);
  EXPECT_EQ(ops.steps[0].number, 3);
  EXPECT_EQ(ops.optimizer[0], (Interval{1090, 1095}));
  EXPECT_EQ(ops.gradSync[0], (Interval{1080, 1090}));
  EXPECT_EQ(ops.otherBusy[0], (Interval{1030, 1031}));
  EXPECT_EQ(ops.hostActivity[0], (Interval{1000, 1009}));
  EXPECT_EQ(ops.computeKernels[0], (Interval{1011, 1019}));
  EXPECT_EQ(ops.commKernels[0].start, 1021);
  EXPECT_EQ(ops.commKernels[0].end, 1024);
  EXPECT_EQ(ops.commKernels[0].transferStart, 1022);
  EXPECT_EQ(ops.commKernels[0].launch, 1005);
  EXPECT_EQ(ops.otherKernels[0].start, 1091);
  EXPECT_EQ(ops.otherKernels[0].end, 1094);
  EXPECT_EQ(ops.otherKernels[0].launch, 1008);
}

TEST(BuildPipeline, AlignsEachStagesClockByItsEstimatedOffset) {
  // Stage 1's clock reads 5 ms early: its F0, truly 3-5 ms, is recorded at -2-0 ms.
  testing::HandPipeline h(2);
  h.op(0, {OpKind::F, 0, 0}, 0, 2 * kMs).send(0, OpKind::F, 0, 1, 2 * kMs, 3 * kMs);
  h.recv(1, OpKind::F, 0, 0, -5 * kMs, -2 * kMs).op(1, {OpKind::F, 0, 0}, -2 * kMs, 0);
  h.op(1, {OpKind::BW, 0, 0}, 0, 4 * kMs).send(1, OpKind::B, 0, 0, 4 * kMs, 5 * kMs);
  h.recv(0, OpKind::B, 0, 1, 2 * kMs, 10 * kMs).op(0, {OpKind::BW, 0, 0}, 10 * kMs, 14 * kMs);
  PipelineOptions options;
  options.alignClocks = true;
  const PipelineTrace pl = h.build(options);
  ASSERT_EQ(pl.transferCount(), 2u);
  EXPECT_EQ(pl.stages[0].clockOffset, 0);
  EXPECT_EQ(pl.stages[1].clockOffset, 5 * kMs);
  EXPECT_EQ(pl.stages[1].ops.ops[0].start, 3 * kMs);
  EXPECT_EQ(pl.stages[1].ops.comms[0].end, 3 * kMs);
}

TEST(BuildPipeline, AWindowsLeadingAndTrailingTransfersAreNotPairedAWindowApart) {
  // A live window cut mid-step at both ends, on one clock: stage 0's began in step 0's tail
  // with the receive of B1 (its send fell before stage 1's window), stage 1's ends in step 4,
  // still open, with the send of B1 (stage 0's snapshot came before its receive). Neither lies
  // in a step range; paired, they made stage 1 seem 43 ms late.
  testing::HandPipeline h(2);
  for (int n = 1; n <= 3; ++n) {
    const TimeNs at = (n - 1) * 10 * kMs;
    h.step(n, at, at + 10 * kMs - 1);
    h.op(0, {OpKind::F, 0, 0}, at, at + 2 * kMs)
        .send(0, OpKind::F, 0, 1, at + 2 * kMs, at + 3 * kMs);
    h.recv(1, OpKind::F, 0, 0, at + 1 * kMs, at + 3 * kMs)
        .op(1, {OpKind::F, 0, 0}, at + 3 * kMs, at + 5 * kMs);
    h.op(1, {OpKind::BW, 0, 0}, at + 5 * kMs, at + 7 * kMs)
        .send(1, OpKind::B, 0, 0, at + 7 * kMs, at + 8 * kMs);
    h.recv(0, OpKind::B, 0, 1, at + 3 * kMs, at + 8 * kMs)
        .op(0, {OpKind::BW, 0, 0}, at + 8 * kMs, at + 9 * kMs);
  }
  h.recv(0, OpKind::B, 1, 1, -3 * kMs, -2 * kMs);  // step 0's, before the window's first range
  h.send(1, OpKind::B, 1, 0, 41 * kMs, 42 * kMs);  // step 4's, after its last
  PipelineOptions options;
  options.alignClocks = true;
  const PipelineTrace pl = h.build(options);
  EXPECT_EQ(pl.transferCount(), 6u);  // F0 and B0 of each step; B1 has no partner in the window
  EXPECT_EQ(pl.stages[1].clockOffset, 0);
}

}  // namespace
}  // namespace bubblescope::analysis
