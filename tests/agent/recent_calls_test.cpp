// The NCCL history a live `hang` query reads (agent/nccl/recent_calls.h): calls are numbered per
// communicator and peer (sends and receives apart) and per communicator (collectives), the last
// kRecentCalls are kept oldest first, counts cover every call ever made, and a call's end lands
// on its own entry only.
#include <gtest/gtest.h>

#include "agent/nccl/recent_calls.h"

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

RecentCall call(NcclOp op, uint64_t comm, int32_t peer, uint64_t start) {
  RecentCall c;
  c.op = op;
  c.comm = comm;
  c.peer = peer;
  c.commRank = 0;
  c.startTicks = start;
  return c;
}

uint64_t countOf(const std::vector<CallCount>& counts, CallCount::Kind kind, uint64_t comm,
                 int32_t peer) {
  for (const CallCount& c : counts) {
    if (c.kind == kind && c.comm == comm && c.peer == peer) return c.calls;
  }
  return 0;
}

TEST(RecentCalls, NumbersPerPeerKeepsTheLastCallsAndCountsThemAll) {
  forgetRecentCalls();
  const uint64_t a = 0xa, b = 0xb;
  uint64_t t = 1;
  auto made = [&](NcclOp op, uint64_t comm, int32_t peer, uint64_t collectiveSeq) {
    const uint64_t handle = noteCallStart(call(op, comm, peer, t), collectiveSeq);
    noteCallEnd(handle, t + 1);
    t += 2;
  };
  for (int i = 0; i < 50; ++i) {
    made(NcclOp::Send, a, 1, 0);
    made(NcclOp::Send, a, 2, 0);
    made(NcclOp::AllReduce, b, -1, static_cast<uint64_t>(i + 1));
  }
  const uint64_t open = noteCallStart(call(NcclOp::Recv, a, 1, t++), 0);
  std::vector<RecentCall> calls;
  std::vector<CallCount> counts;
  ASSERT_TRUE(copyRecentCalls(calls, counts));
  ASSERT_EQ(calls.size(), kRecentCalls);
  EXPECT_EQ(calls.back().op, NcclOp::Recv);
  EXPECT_EQ(calls.back().seq, 1u);       // first receive from peer 1
  EXPECT_EQ(calls.back().endTicks, 0u);  // still in the call
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_LT(calls[i - 1].startTicks, calls[i].startTicks);
  const RecentCall& lastSend = calls[calls.size() - 3];
  EXPECT_EQ(lastSend.op, NcclOp::Send);
  EXPECT_EQ(lastSend.peer, 2);
  EXPECT_EQ(lastSend.seq, 50u);                 // the 50th send to peer 2, not the 100th send
  EXPECT_EQ(calls[calls.size() - 2].seq, 50u);  // the collective's own number
  EXPECT_EQ(countOf(counts, CallCount::Kind::Send, a, 1), 50u);
  EXPECT_EQ(countOf(counts, CallCount::Kind::Send, a, 2), 50u);
  EXPECT_EQ(countOf(counts, CallCount::Kind::Recv, a, 1), 1u);
  EXPECT_EQ(countOf(counts, CallCount::Kind::Collective, b, -1), 50u);

  // A call whose slot was taken by newer calls does not stamp its end on them.
  for (uint32_t i = 0; i < kRecentCalls; ++i) noteCallStart(call(NcclOp::AllGather, b, -1, t++), 0);
  noteCallEnd(open, 999'999);
  ASSERT_TRUE(copyRecentCalls(calls, counts));
  for (const RecentCall& c : calls) EXPECT_NE(c.endTicks, 999'999u);
  forgetRecentCalls();
}

}  // namespace
}  // namespace bubblescope::agent
