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

}  // namespace
}  // namespace bubblescope::analysis
