// Transfers read off NCCL kernels follow the chunk layout: in a V, what stage 0 receives from
// stage 1 is chunk 1's activations first (the forward coming back up the V), then chunk 0's
// gradients; what it sends is chunk 0's activations, then chunk 1's gradients.
#include "analyzer/comm/kernel_comms.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

RecognizedOp op(OpKind kind, int chunk, TimeNs start, TimeNs end) {
  RecognizedOp o;
  o.op = {kind, 0, chunk};
  o.start = start;
  o.end = end;
  o.step = 0;
  return o;
}

CommKernel kernel(TimeNs start, TimeNs end) {
  CommKernel k;
  k.start = start;
  k.end = end;
  k.launch = start;
  return k;
}

TEST(KernelComms, AVsChunkOneActivationsComeBackUpAndAreForwards) {
  // Stage 0 of a 2-stage ZB-V, one microbatch: F0, then F1 and the loss's B1 (with its W), B0.
  RankOps ops;
  ops.ops = {op(OpKind::F, 0, 0, 10), op(OpKind::F, 1, 30, 40), op(OpKind::B, 1, 40, 50),
             op(OpKind::W, 1, 50, 60), op(OpKind::B, 0, 80, 90)};
  ops.commKernels = {kernel(10, 12), kernel(20, 30), kernel(50, 52), kernel(70, 80)};
  CommMatches matches;
  auto send = [&](uint32_t kernel, TimeNs posted) {
    P2pMatch m;
    m.sendKernel = {0, kernel};
    m.recvKernel = {1, 0};
    m.sendPosted = posted;
    matches.p2p.push_back(m);
  };
  auto receive = [&](uint32_t kernel, TimeNs posted) {
    P2pMatch m;
    m.sendKernel = {1, 0};
    m.recvKernel = {0, kernel};
    m.recvPosted = posted;
    matches.p2p.push_back(m);
  };
  send(0, 10);
  receive(1, 20);
  send(2, 50);
  receive(3, 70);
  engine::Schedule layout;
  layout.p = 2;
  layout.v = 2;
  layout.layout = engine::ChunkLayout::V;
  commsFromKernels(ops, 0, 0, matches, {0, 1}, layout);
  ASSERT_EQ(ops.comms.size(), 4u);
  struct Want {
    bool send;
    OpKind pass;
    int chunk;
  };
  const Want want[] = {
      {true, OpKind::F, 0}, {false, OpKind::F, 1}, {true, OpKind::B, 1}, {false, OpKind::B, 0}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ops.comms[i].send, want[i].send) << i;
    EXPECT_EQ(ops.comms[i].pass, want[i].pass) << i;
    EXPECT_EQ(ops.comms[i].chunk, want[i].chunk) << i;
    EXPECT_EQ(ops.comms[i].peer, 1) << i;
    EXPECT_EQ(ops.comms[i].mb, 0) << i;
    EXPECT_TRUE(ops.comms[i].onDevice);
  }
  EXPECT_EQ(ops.comms[1].start, 20);
  EXPECT_EQ(ops.comms[1].end, 30);
}

TEST(KernelComms, AChainSendsForwardsOnAndBackwardsBack) {
  RankOps ops;
  ops.ops = {op(OpKind::F, 0, 0, 10), op(OpKind::BW, 0, 30, 40)};
  ops.commKernels = {kernel(10, 12), kernel(20, 30), kernel(40, 42)};
  CommMatches matches;
  P2pMatch toNext, fromNext, toPrev;
  toNext.sendKernel = {1, 0};
  toNext.recvKernel = {2, 0};
  toNext.sendPosted = 10;
  fromNext.sendKernel = {2, 0};
  fromNext.recvKernel = {1, 1};
  fromNext.recvPosted = 20;
  toPrev.sendKernel = {1, 2};
  toPrev.recvKernel = {0, 0};
  toPrev.sendPosted = 40;
  matches.p2p = {toNext, fromNext, toPrev};
  engine::Schedule layout;
  layout.p = 3;
  commsFromKernels(ops, 1, 1, matches, {0, 1, 2}, layout);
  ASSERT_EQ(ops.comms.size(), 3u);
  EXPECT_EQ(ops.comms[0].pass, OpKind::F);
  EXPECT_EQ(ops.comms[0].peer, 2);
  EXPECT_EQ(ops.comms[1].pass, OpKind::B);
  EXPECT_FALSE(ops.comms[1].send);
  EXPECT_EQ(ops.comms[2].pass, OpKind::B);
  EXPECT_EQ(ops.comms[2].peer, 0);
}

// A capture window that opened after F0 and F1 were launched holds their sends' kernels but not
// the ops: the sends that start before F2 (the first op the trace holds) ended carry ops it does
// not hold, and F2's output is the third send, not the first.
TEST(KernelComms, SendsOfOpsBeforeTheCaptureAreNotGivenToTheFirstOpItHolds) {
  RankOps ops;
  RecognizedOp f2 = op(OpKind::F, 0, 20, 30);
  f2.op.mb = 2;
  ops.ops = {f2};
  ops.commKernels = {kernel(12, 14), kernel(16, 18), kernel(30, 32)};
  CommMatches matches;
  for (uint32_t k = 0; k < 3; ++k) {
    P2pMatch m;
    m.sendKernel = {0, k};
    m.recvKernel = {1, k};
    m.sendPosted = static_cast<TimeNs>(k);
    matches.p2p.push_back(m);
  }
  engine::Schedule layout;
  layout.p = 2;
  commsFromKernels(ops, 0, 0, matches, {0, 1}, layout);
  ASSERT_EQ(ops.comms.size(), 1u);
  EXPECT_EQ(ops.comms[0].mb, 2);
  EXPECT_EQ(ops.comms[0].start, 30);
}

// NCCL pairs a pair's n-th send with its n-th receive, in the sender's order: a 2-stage V whose
// stage 1 runs B0 (chunk 1) before F1 (chunk 0) still receives F1's activations first, because
// stage 0 sent them first. Read alone, stage 1 would give its second receive to B0 (its op order);
// with stage 0 read beside it, each receive takes what its send carried.
TEST(KernelComms, AReceiveCarriesWhatItsSendCarriedNotTheNextOpsInput) {
  auto at = [](OpKind kind, int mb, int chunk, TimeNs start, TimeNs end) {
    RecognizedOp o = op(kind, chunk, start, end);
    o.op.mb = mb;
    return o;
  };
  RankOps s0, s1;
  //   stage 0: F0.0 0-1, F1.0 1-2, F0.1 4-5, B0.1 5-6; sends F0.0, F1.0, B0.1; receives F0.1
  //   stage 1: F0.0 1.5-2.5, F0.1 2.5-3.5, B0.1 6.5-7.5, F1.0 8-9
  s0.ops = {at(OpKind::F, 0, 0, 0, 10), at(OpKind::F, 1, 0, 10, 20), at(OpKind::F, 0, 1, 40, 50),
            at(OpKind::B, 0, 1, 50, 60)};
  s0.commKernels = {kernel(10, 12), kernel(20, 22), kernel(35, 37), kernel(60, 62)};
  s1.ops = {at(OpKind::F, 0, 0, 15, 25), at(OpKind::F, 0, 1, 25, 35), at(OpKind::B, 0, 1, 65, 75),
            at(OpKind::F, 1, 0, 80, 90)};
  s1.commKernels = {kernel(10, 12), kernel(20, 22), kernel(35, 37), kernel(60, 62)};
  CommMatches matches;
  auto match = [&](uint32_t from, uint32_t sendKernel, uint32_t recvKernel, TimeNs posted) {
    P2pMatch m;
    m.sendKernel = {from, sendKernel};
    m.recvKernel = {1 - from, recvKernel};
    m.sendPosted = m.recvPosted = posted;
    matches.p2p.push_back(m);
  };
  match(0, 0, 0, 10);
  match(0, 1, 1, 20);
  match(1, 2, 2, 35);
  match(0, 3, 3, 60);
  engine::Schedule layout;
  layout.p = 2;
  layout.v = 2;
  layout.layout = engine::ChunkLayout::V;
  commsFromKernels({KernelCommStage{&s0, 0, 0}, KernelCommStage{&s1, 1, 1}}, matches, {0, 1},
                   layout);
  ASSERT_EQ(s1.comms.size(), 4u);
  // By start: receive F0.0, receive F1.0, send F0.1, receive B0.1.
  EXPECT_FALSE(s1.comms[1].send);
  EXPECT_EQ(s1.comms[1].pass, OpKind::F);
  EXPECT_EQ(s1.comms[1].mb, 1);
  EXPECT_EQ(s1.comms[1].chunk, 0);
  EXPECT_FALSE(s1.comms[3].send);
  EXPECT_EQ(s1.comms[3].pass, OpKind::B);
  EXPECT_EQ(s1.comms[3].mb, 0);
  EXPECT_EQ(s1.comms[3].chunk, 1);
  // Stage 0's receive of F0.1 (chunk 1's forward coming back up the V) is what stage 1 sent.
  ASSERT_EQ(s0.comms.size(), 4u);
  EXPECT_FALSE(s0.comms[2].send);
  EXPECT_EQ(s0.comms[2].pass, OpKind::F);
  EXPECT_EQ(s0.comms[2].chunk, 1);

  // Stage 1 read alone gives its second receive to the next op that takes an input from stage 0.
  RankOps alone = s1;
  alone.comms.clear();
  commsFromKernels(alone, 1, 1, matches, {0, 1}, layout);
  ASSERT_EQ(alone.comms.size(), 4u);
  EXPECT_EQ(alone.comms[1].pass, OpKind::B);
}

}  // namespace
}  // namespace bubblescope::analysis
