// NCCL kernels whose call is not in the Kineto trace (the capture window opened after it, or it
// was made on a thread the trace did not keep): typed by the collective args Kineto copied onto
// them, or by their stream's neighbours where those leave no doubt, and tied to that call.
#include <gtest/gtest.h>

#include "traces/import/chrome_json/chrome_trace_import.h"

namespace bubblescope::traces::import {
namespace {

RankTrace importRank(const std::string& events) {
  const std::string json =
      R"J({"distributedInfo": {"rank": 6, "world_size": 16}, "traceEvents": [)J" + events + "]}";
  ByteSource source(json, "t.json");
  ImportedFile f = importChromeTrace(source);
  EXPECT_EQ(f.ranks.size(), 1u);
  return std::move(f.ranks.at(0));
}

// The row of the call tied to the kernel with this correlation id; -1 if none.
int callOf(const RankTrace& t, uint32_t correlation) {
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    if (t.correlations->correlation[i] != correlation) continue;
    for (size_t c = 0; c < t.ncclCalls->size(); ++c) {
      if (t.ncclCalls->id[c] == t.correlations->externalId[i]) return static_cast<int>(c);
    }
  }
  return -1;
}

std::string kernel(const std::string& name, double ts, uint32_t correlation,
                   const std::string& args = "") {
  return R"J({"ph": "X", "cat": "kernel", "name": ")J" + name +
         R"J(", "pid": 0, "tid": 21, "ts": )J" + std::to_string(ts) +
         R"J(, "dur": 50, "args": {"External id": )J" + std::to_string(correlation + 1000) +
         R"J(, "device": 0, "stream": 21, "correlation": )J" + std::to_string(correlation) +
         (args.empty() ? "" : ", " + args) + "}}";
}

std::string launch(double ts, uint32_t correlation, int tid = 8) {
  return R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": )J" +
         std::to_string(tid) + R"J(, "ts": )J" + std::to_string(ts) +
         R"J(, "dur": 4, "args": {"correlation": )J" + std::to_string(correlation) + "}}";
}

// A record_param_comms sending to global rank 10 of the group [2, 6, 10, 14], whose kernel is
// `correlation`'s (External id correlation + 1000).
std::string sendCall(double ts, uint32_t correlation) {
  return R"J({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": )J" +
         std::to_string(ts) + R"J(, "dur": 20, "args": {"External id": )J" +
         std::to_string(correlation + 1000) +
         R"J(, "Collective name": "send", "dtype": "BFloat16", "In msg nelems": 64,
         "Group size": 4, "Process Group Name": "3", "Process Group Ranks": "[2, 6, 10, 14]",
         "Dst Rank": 10}})J";
}

const char* kAllReduceArgs =
    R"J("Collective name": "allreduce", "In msg nelems": 2431040, "Out msg nelems": 2431040,
    "Group size": 4, "dtype": "Float", "Process Group Name": "0",
    "Process Group Description": "default_pg", "Process Group Ranks": "[0, 6, 7, 9]")J";

const char* kSendRecv = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";

TEST(KinetoUntiedKernels, AKernelWithoutItsCallBecomesTheCallItsArgsDescribe) {
  const RankTrace t = importRank(
      launch(100, 77) + "," +
      kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 110, 77, kAllReduceArgs));
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  const int c = callOf(t, 77);
  ASSERT_EQ(c, 0);
  const NcclCalls& n = t.ncclCalls;
  EXPECT_EQ(n.op[0], NcclOp::AllReduce);
  EXPECT_EQ(n.count[0], 2431040u);
  EXPECT_EQ(n.bytes[0], 4u * 2431040u);
  EXPECT_EQ(n.dtype[0], 7);  // ncclFloat32
  EXPECT_EQ(n.commSize[0], 4);
  EXPECT_EQ(n.commRank[0], 1);  // rank 6 is second in [0, 6, 7, 9]
  EXPECT_NE(n.comm[0], 0u);
  // Made where it was launched: the launch's thread, over the launch.
  EXPECT_EQ(t.threads.at(n.thread[0]).tid, 8u);
  EXPECT_EQ(n.start[0], 100'000);
  EXPECT_EQ(n.end[0], 104'000);
}

TEST(KinetoUntiedKernels, AKernelTiedToItsCallStandsForNoSecondOne) {
  const RankTrace t = importRank(sendCall(100, 77) + "," + launch(105, 77, 7) + "," +
                                 kernel(kSendRecv, 110, 77,
                                        R"J("Collective name": "send", "Dst Rank": 10,
                                            "Process Group Name": "3",
                                            "Process Group Ranks": "[2, 6, 10, 14]")J"));
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  EXPECT_EQ(callOf(t, 77), 0);
  EXPECT_EQ(t.ncclCalls->start[0], 100'000);  // the record's, not the launch's
}

TEST(KinetoUntiedKernels, AnUntiedSendNamesItsPeerWithinTheGroup) {
  const RankTrace t =
      importRank(kernel(kSendRecv, 110, 77,
                        R"J("Collective name": "send", "Dst Rank": 14, "dtype": "BFloat16",
                 "In msg nelems": 64, "Process Group Name": "3",
                 "Process Group Ranks": "[2, 6, 10, 14]")J"));
  const int c = callOf(t, 77);
  ASSERT_GE(c, 0);
  EXPECT_EQ(t.ncclCalls->op[c], NcclOp::Send);
  EXPECT_EQ(t.ncclCalls->peer[c], 3);  // rank 14 is fourth in the group
  EXPECT_EQ(t.ncclCalls->commRank[c], 1);
  EXPECT_EQ(t.ncclCalls->bytes[c], 128u);
}

// No launch in the trace: posted no later than its kernel started nor than the next call on its
// stream, on that call's thread, so both sides still pair sends and receives in posting order.
TEST(KinetoUntiedKernels, WithoutALaunchTheCallIsPostedBeforeTheNextCallOnItsStream) {
  const RankTrace t = importRank(
      kernel(kSendRecv, 500, 76,
             R"J("Collective name": "send", "Dst Rank": 10, "Process Group Name": "3",
                 "Process Group Ranks": "[2, 6, 10, 14]")J") +
      "," + sendCall(300, 77) + "," + launch(305, 77, 7) + "," + kernel(kSendRecv, 900, 77));
  ASSERT_EQ(t.ncclCalls->size(), 2u);
  const int untied = callOf(t, 76);
  const int tied = callOf(t, 77);
  ASSERT_GE(untied, 0);
  ASSERT_GE(tied, 0);
  EXPECT_LT(t.ncclCalls->start[untied], t.ncclCalls->start[tied]);
  EXPECT_EQ(t.ncclCalls->start[untied], 300'000 - 1);
  EXPECT_EQ(t.ncclCalls->thread[untied], t.ncclCalls->thread[tied]);
  EXPECT_EQ(t.ncclCalls->peer[untied], t.ncclCalls->peer[tied]);
  EXPECT_EQ(t.ncclCalls->comm[untied], t.ncclCalls->comm[tied]);
}

TEST(KinetoUntiedKernels, ASendRecvKernelBetweenTwoSendsToOnePeerIsAnotherSendToIt) {
  const RankTrace t =
      importRank(sendCall(100, 71) + "," + launch(105, 71, 7) + "," + kernel(kSendRecv, 200, 71) +
                 "," + kernel(kSendRecv, 400, 72) + "," + sendCall(500, 73) + "," +
                 launch(505, 73, 7) + "," + kernel(kSendRecv, 600, 73));
  ASSERT_EQ(t.ncclCalls->size(), 3u);
  const int middle = callOf(t, 72);
  ASSERT_GE(middle, 0);
  EXPECT_EQ(t.ncclCalls->op[middle], NcclOp::Send);
  EXPECT_EQ(t.ncclCalls->peer[middle], t.ncclCalls->peer[callOf(t, 71)]);
  EXPECT_EQ(t.ncclCalls->comm[middle], t.ncclCalls->comm[callOf(t, 71)]);
  EXPECT_EQ(t.ncclCalls->count[middle], 0u);  // its size is its own: unknown
}

TEST(KinetoUntiedKernels, NeighboursThatDisagreeOrAGroupKernelLeaveItUntyped) {
  const std::string recv =
      R"J({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7,
          "ts": 500, "dur": 20, "args": {"External id": 1073, "Collective name": "recv",
          "Process Group Name": "3", "Process Group Ranks": "[2, 6, 10, 14]",
          "Src Rank": 10}})J";
  // A send, then a bare kernel, then a receive: which was it?
  const RankTrace mixed =
      importRank(sendCall(100, 71) + "," + kernel(kSendRecv, 200, 71) + "," +
                 kernel(kSendRecv, 400, 72) + "," + recv + "," + kernel(kSendRecv, 600, 73));
  EXPECT_EQ(mixed.ncclCalls->size(), 2u);
  EXPECT_EQ(callOf(mixed, 72), -1);
  // Two sends around a group's kernel: it ran several calls, which they cannot tell.
  const RankTrace group =
      importRank(sendCall(100, 71) + "," + kernel(kSendRecv, 200, 71) + "," +
                 kernel(kSendRecv, 400, 72, R"J("Collective name": "coalesced")J") + "," +
                 sendCall(500, 73) + "," + kernel(kSendRecv, 600, 73));
  EXPECT_EQ(group.ncclCalls->size(), 2u);
  EXPECT_EQ(callOf(group, 72), -1);
}

TEST(KinetoUntiedKernels, AKernelWithNeitherArgsNorNeighboursStaysUntied) {
  const RankTrace t = importRank(launch(100, 77) + "," + kernel(kSendRecv, 110, 77));
  EXPECT_EQ(t.ncclCalls->size(), 0u);
  EXPECT_EQ(t.correlations->size(), 0u);
}

}  // namespace
}  // namespace bubblescope::traces::import
