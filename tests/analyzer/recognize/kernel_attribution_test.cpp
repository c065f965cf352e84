// Kernel attribution: a kernel belongs to the op whose range encloses its launch call on the same
// thread (joined on the CUDA correlation id), else to the one op range of another thread that
// encloses it (PyTorch's autograd thread); the op's execution becomes its kernels' span and its
// compute time their union. NCCL kernels are communication and span their transfer; everything
// else (no owner, copies, memsets) is other device work.
#include "analyzer/recognize/kernel_attribution.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/analyzer/recognize/hand_trace.h"

namespace bubblescope::analysis {
namespace {

// The device spans of kernels outside the ops' compute.
template <class Work>
std::vector<Interval> spans(const std::vector<Work>& list) {
  std::vector<Interval> out;
  for (const Work& w : list) out.push_back({w.start, w.end});
  return out;
}

using testing::HandTrace;

// An op as the recognizer makes it from a range on `thread`.
struct ThreadedOp {
  RecognizedOp op;
  traces::ThreadIndex thread = 0;
};
ThreadedOp op(Op o, traces::ThreadIndex thread, TimeNs start, TimeNs end) {
  RecognizedOp r;
  r.op = o;
  r.start = start;
  r.end = end;
  return {r, thread};
}

// Puts the ops in `ops`; their threads, for attributeKernels.
std::vector<traces::ThreadIndex> place(RankOps& ops, const std::vector<ThreadedOp>& list) {
  std::vector<traces::ThreadIndex> threads;
  for (const ThreadedOp& t : list) {
    ops.ops.push_back(t.op);
    threads.push_back(t.thread);
  }
  return threads;
}

RecognizedComm comm(bool send, traces::ThreadIndex thread, TimeNs start, TimeNs end) {
  return analysis::RecognizedComm{.send = send,
                                  .pass = OpKind::F,
                                  .chunk = 0,
                                  .thread = static_cast<uint16_t>(thread),
                                  .mb = 0,
                                  .peer = 1,
                                  .step = 0,
                                  .start = start,
                                  .end = end};
}

constexpr Op F0{OpKind::F, 0, 0}, F1{OpKind::F, 1, 0}, F2{OpKind::F, 2, 0};

TEST(AttributeKernels, KernelsBelongToTheOpWhoseRangeEnclosesTheirLaunch) {
  HandTrace h;
  h.kernel(0, 12, 1, 14, 18);  // launched in F0, overlapping the next
  h.kernel(0, 15, 2, 17, 25);  // launched in F0
  h.kernel(0, 32, 3, 35, 50);  // launched in F1
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20), op(F1, 0, 30, 40)});
  attributeKernels(h.trace(), ops, threads);
  EXPECT_TRUE(ops.hasKernels);
  ASSERT_EQ(ops.ops.size(), 2u);
  EXPECT_EQ(ops.ops[0].op, F0);
  EXPECT_EQ(ops.ops[0].start, 14);
  EXPECT_EQ(ops.ops[0].end, 25);
  EXPECT_EQ(ops.hostOf(0).launch, 10);  // the host side stays the range
  EXPECT_EQ(ops.ops[1].start, 35);
  EXPECT_EQ(ops.ops[1].end, 50);
  const auto& k = ops.computeKernels;
  EXPECT_EQ(
      std::vector<Interval>(k.begin() + ops.opKernels[0].begin, k.begin() + ops.opKernels[0].end),
      (std::vector<Interval>{{14, 18}, {17, 25}}));
  EXPECT_EQ(
      std::vector<Interval>(k.begin() + ops.opKernels[1].begin, k.begin() + ops.opKernels[1].end),
      (std::vector<Interval>{{35, 50}}));
  EXPECT_TRUE(ops.otherKernels.empty());
  EXPECT_TRUE(ops.commKernels.empty());
}

TEST(AttributeKernels, KernelWithoutAnOwningRangeIsOtherWork) {
  HandTrace h;
  h.kernel(1, 25, 1, 13, 14);  // launched on another thread, outside every op range
  h.kernel(0, 25, 2, 26, 27);  // launched between the ops
  h.kernel(0, -1, 0, 28, 29);  // no correlation id
  h.kernel(0, -1, 7, 30, 31);  // a correlation id no launch call carries
  h.memcpy(40, 41).memset(42, 43);
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20)});
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(spans(ops.otherKernels),
            (std::vector<Interval>{{13, 14}, {26, 27}, {28, 29}, {30, 31}, {40, 41}, {42, 43}}));
  EXPECT_EQ(ops.opKernels[0].begin, ops.opKernels[0].end);
  // An op that launched nothing keeps its range.
  EXPECT_EQ(ops.ops[0].start, 10);
  EXPECT_EQ(ops.ops[0].end, 20);
}

// torch: backward() runs on the main thread inside its PP range while the autograd engine's
// device thread launches the kernels.
TEST(AttributeKernels, LaunchOnAnotherThreadBelongsToTheOneOpRangeEnclosingIt) {
  HandTrace h;
  h.kernel(1, 12, 1, 14, 18);  // the autograd thread, inside BW0's range on the main thread
  h.kernel(1, 16, 2, 18, 22);
  h.kernel(0, 32, 3, 35, 40);  // F1 on the main thread
  RankOps ops;
  constexpr Op BW0{OpKind::BW, 0, 0};
  const auto threads = place(ops, {op(BW0, 0, 10, 20), op(F1, 0, 30, 40)});
  attributeKernels(h.trace(), ops, threads);
  ASSERT_EQ(ops.ops.size(), 2u);
  EXPECT_EQ(ops.ops[0].op, BW0);
  EXPECT_EQ(ops.ops[0].start, 14);
  EXPECT_EQ(ops.ops[0].end, 22);
  EXPECT_EQ(ops.opKernels[0].firstLaunch, 12);
  EXPECT_EQ(ops.opKernels[0].end - ops.opKernels[0].begin, 2u);
  EXPECT_TRUE(ops.otherKernels.empty());
}

TEST(AttributeKernels, OwnThreadsRangeComesFirstAndTwoOtherThreadsOpsLeaveALaunchUnowned) {
  HandTrace h;
  h.t.threadIndex(300);        // a third thread: index 2
  h.kernel(2, 15, 1, 16, 17);  // enclosed by ops on threads 0 and 1: whose is it? nobody's
  h.kernel(1, 12, 2, 13, 14);  // thread 1's own op encloses it, though thread 0's does too
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20), op(F1, 1, 11, 19)});
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(spans(ops.otherKernels), (std::vector<Interval>{{16, 17}}));
  ASSERT_EQ(ops.opKernels.size(), ops.ops.size());
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const OpKernels& k = ops.opKernels[i];
    if (ops.ops[i].op == F1) {
      EXPECT_EQ(k.end - k.begin, 1u);
    } else {
      EXPECT_EQ(k.end, k.begin) << "F0 launched nothing of its own";
    }
  }
}

TEST(AttributeKernels, NcclKernelsAreCommunicationAndSpanTheTransferThatLaunchedThem) {
  HandTrace h;
  h.kernel(1, 21, 1, 22, 30, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  h.kernel(1, 23, 2, 31, 40, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
  h.kernel(0, 12, 3, 13, 19);                   // F0's GEMM
  h.kernel(0, 14, 4, 15, 16, "ncclAllReduce");  // launched in F0: still communication
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20)});
  ops.comms = {comm(true, 1, 20, 25)};
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(spans(ops.commKernels), (std::vector<Interval>{{15, 16}, {22, 30}, {31, 40}}));
  // Until matched with their peers (analyzer/comm) they are transfer from their start.
  for (const CommKernel& k : ops.commKernels) EXPECT_EQ(k.transferStart, k.start);
  EXPECT_EQ(ops.comms[0].start, 22);
  EXPECT_EQ(ops.comms[0].end, 40);
  EXPECT_EQ(ops.launchOf(0), 20);  // posted when its range began, kept beside it
  // F0's own compute is the non-NCCL kernel it launched.
  EXPECT_EQ(ops.ops[0].start, 13);
  EXPECT_EQ(ops.ops[0].end, 19);
}

TEST(AttributeKernels, KernelGoesToTheInnermostRangeAroundItsLaunch) {
  // A receive nested in an op on one thread: its NCCL kernel spans the receive, the op's GEMM
  // before and after it are the op's.
  HandTrace h;
  h.kernel(0, 12, 1, 12, 20);
  h.kernel(0, 25, 2, 26, 34, "ncclDevKernel_SendRecv");
  h.kernel(0, 36, 3, 40, 48);
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 50)});
  ops.comms = {comm(false, 0, 24, 35)};
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(ops.comms[0].start, 26);
  EXPECT_EQ(ops.comms[0].end, 34);
  EXPECT_EQ(ops.ops[0].start, 12);
  EXPECT_EQ(ops.ops[0].end, 48);
}

TEST(AttributeKernels, TransferWithoutKernelsKeepsItsRange) {
  HandTrace h;
  h.kernel(0, 12, 1, 13, 14);
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20)});
  ops.comms = {comm(true, 1, 20, 25)};
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(ops.comms[0].start, 20);
  EXPECT_EQ(ops.comms[0].end, 25);
  // Posted as it began: nothing is kept beside it.
  EXPECT_TRUE(ops.commLaunches.empty());
  EXPECT_EQ(ops.launchOf(0), 20);
}

TEST(AttributeKernels, OpsAreSortedAgainByWhenTheirKernelsRan) {
  // F0's kernel runs after F1's range: the device ran F1 first.
  HandTrace h;
  h.kernel(0, 12, 1, 50, 60);
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20), op(F1, 1, 30, 40)});
  attributeKernels(h.trace(), ops, threads);
  EXPECT_EQ(ops.ops[0].op, F1);
  EXPECT_EQ(ops.ops[1].op, F0);
  EXPECT_EQ(ops.ops[1].start, 50);
  // Its kernels are found through its OpKernels wherever it moved.
  EXPECT_EQ(ops.computeKernels[ops.opKernels[1].begin], (Interval{50, 60}));
}

TEST(AttributeKernels, TraceWithoutKernelsLeavesTheOpsAsTheyWere) {
  HandTrace h;
  h.range(0, 10, 20, "F mb=0");
  RankOps ops;
  const auto threads = place(ops, {op(F0, 0, 10, 20)});
  attributeKernels(h.trace(), ops, threads);
  EXPECT_FALSE(ops.hasKernels);
  EXPECT_EQ(ops.ops[0].start, 10);
}

struct UnionCase {
  const char* what;
  std::vector<Interval> in;
  TimeNs length;
};

TEST(UnionLength, CountsOverlapsOnce) {
  const UnionCase cases[] = {
      {"nothing", {}, 0},
      {"one", {{3, 8}}, 5},
      {"overlapping, unsorted", {{20, 25}, {0, 10}, {5, 15}}, 20},
      {"touching", {{0, 5}, {5, 10}}, 10},
      {"nested", {{0, 10}, {2, 3}, {4, 6}}, 10},
  };
  for (const auto& c : cases) EXPECT_EQ(unionLength(c.in), c.length) << c.what;
}

}  // namespace
}  // namespace bubblescope::analysis
