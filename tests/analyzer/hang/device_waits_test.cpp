// NCCL calls stuck on the device, from hand-built CUDA traces (launch calls, correlations, kernel
// records): a launched kernel with no record is stuck only where the recorder collected well
// after its launch, and only the first on its stream; the report then says so per rank, the
// wait-for graph keeps the wait on the partner, and two matched calls that both hang are NCCL
// stuck, not the schedule.
#include "analyzer/hang/device_waits.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"

namespace bubblescope::analysis::hang {
namespace {

using traces::NcclOp;
using traces::RankTrace;

constexpr TimeNs kMs = 1'000'000;
constexpr TimeNs kSecond = 1000 * kMs;
constexpr TimeNs kT0 = 1'700'000'000 * kSecond;
constexpr uint64_t kComm = 0xc0ffee;
constexpr uint64_t kStream = 0x5000;  // the cudaStream_t NCCL is given

// A rank of a 2-rank job as the agent records it with CUPTI: a capture window still open (the
// rank was stopped, not exited) unless `closed`, alive until `alive`.
RankTrace rankTrace(int rank, TimeNs alive, bool closed = false) {
  RankTrace t;
  t.meta.rank = rank;
  t.meta.captureWindows.push_back({kT0, closed ? alive : 0, "record"});
  t.meta.aliveNs = alive;
  return t;
}

// One NCCL call and its kernel's launch at `at` (correlation id `corr`); its kernel record, if
// it finished, from `kernelEnd` (0: none).
void addCall(RankTrace& t, NcclOp op, int peer, TimeNs at, uint32_t corr, TimeNs kernelEnd,
             uint64_t seq = 0) {
  auto& c = *t.ncclCalls;
  const uint64_t id = 1000 + c.size();
  c.start.push_back(at);
  c.end.push_back(at + 10'000);
  c.thread.push_back(t.threadIndex(100));
  c.op.push_back(op);
  c.peer.push_back(peer);
  c.count.push_back(100);
  c.dtype.push_back(7);
  c.bytes.push_back(400);
  c.comm.push_back(kComm);
  c.commRank.push_back(t.meta.rank);
  c.commSize.push_back(2);
  c.streamHandle.push_back(kStream);
  c.groupDepth.push_back(0);
  c.seq.push_back(seq);
  c.id.push_back(id);
  c.source.push_back(traces::NcclSource::Hook);
  t.apiCalls->start.push_back(at + 1'000);
  t.apiCalls->end.push_back(at + 5'000);
  t.apiCalls->thread.push_back(t.threadIndex(100));
  t.apiCalls->name.push_back(t.strings.intern("cuLaunchKernelEx"));
  t.apiCalls->correlation.push_back(corr);
  t.correlations->correlation.push_back(corr);
  t.correlations->externalKind.push_back(traces::ExternalKind::NcclCall);
  t.correlations->externalId.push_back(id);
  if (kernelEnd != 0) {
    t.kernels->start.push_back(at + 20'000);
    t.kernels->end.push_back(kernelEnd);
    t.kernels->stream.push_back(t.streamIndex(0, 13));
    t.kernels->name.push_back(t.strings.intern("ncclDevKernel_SendRecv"));
    t.kernels->correlation.push_back(corr);
  }
}

// Rank 0 sends to rank 1, which receives: both posted (matched), launched at kT0 + 1 s; neither
// kernel finished unless said. An all-reduce before it finished on both.
traces::Run sendRecv(TimeNs alive, bool sendFinished, bool recvFinished) {
  traces::Run run;
  for (int r = 0; r < 2; ++r) {
    RankTrace t = rankTrace(r, alive);
    addCall(t, NcclOp::AllReduce, -1, kT0 + 100 * kMs, 1, kT0 + 120 * kMs, 1);
    const bool finished = r == 0 ? sendFinished : recvFinished;
    addCall(t, r == 0 ? NcclOp::Send : NcclOp::Recv, 1 - r, kT0 + kSecond, 2,
            finished ? kT0 + kSecond + 50 * kMs : 0);
    run.ranks.push_back(std::move(t));
  }
  return run;
}

TEST(HangDeviceWaits, LaunchedKernelWithoutRecordLongBeforeTheEndIsStuck) {
  const traces::Run run = sendRecv(kT0 + 10 * kSecond, false, false);
  const auto stuck = stuckOnDevice(run);
  ASSERT_EQ(stuck.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(stuck[r].size(), 1u) << r;
    EXPECT_EQ(stuck[r][0].calls, std::vector<int32_t>{1});
    EXPECT_EQ(stuck[r][0].launch, kT0 + kSecond + 1'000);
  }
}

TEST(HangDeviceWaits, BothSidesPostedButKernelsHangIsNcclStuckNotADeadlock) {
  const HangReport rep = analyzeHang(sendRecv(kT0 + 10 * kSecond, false, false));
  EXPECT_EQ(rep.verdict, Verdict::NcclStuck) << rep.diagnosis;
  EXPECT_EQ(rep.diagnosis.rfind("NCCL stuck: rank 0's ncclSend peer=1 count=100 comm=0x", 0), 0u)
      << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("and rank 1's ncclRecv peer=0 count=100 comm=0x"), std::string::npos)
      << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("match, but their kernels never finished"), std::string::npos)
      << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("NCCL or the network under it is stuck, not the schedule"),
            std::string::npos)
      << rep.diagnosis;
  EXPECT_EQ(rep.culprits, (std::vector<int>{0, 1}));
  ASSERT_EQ(rep.edges.size(), 2u);
  EXPECT_EQ(rep.edges[0].from, 0);
  EXPECT_EQ(rep.edges[0].to, 1);
  EXPECT_EQ(rep.edges[1].from, 1);
  EXPECT_EQ(rep.edges[1].to, 0);
  const Wait& w = rep.ranks[1].waits.front();
  EXPECT_EQ(w.kernelLaunch, kT0 + kSecond + 1'000);
  EXPECT_TRUE(w.partnerPosted);
  EXPECT_TRUE(w.nccl);
  std::ostringstream json;
  writeHangReportJson(rep, json);
  const nlohmann::json j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["verdict"], "nccl-stuck");
  EXPECT_TRUE(j["ranks"][1]["waits"][0]["kernel_never_finished"].get<bool>());
  EXPECT_EQ(j["ranks"][1]["waits"][0]["kernel_launch_ns"], kT0 + kSecond + 1'000);
  EXPECT_EQ(j["ranks"][1]["waits"][0]["on"], nlohmann::json::array({0}));
  std::ostringstream text;
  printHangReport(rep, text);
  EXPECT_NE(text.str().find("ncclRecv peer=0 count=100 comm=0x0000000000c0ffee: its kernel never "
                            "finished, stuck on the device since "),
            std::string::npos)
      << text.str();
}

TEST(HangDeviceWaits, KernelLaunchedJustBeforeASigkillIsNotCalledStuck) {
  // Killed 1 s after the launch: the kernel may have finished after the agent's last collection.
  const traces::Run run = sendRecv(kT0 + 2 * kSecond, false, false);
  const auto stuck = stuckOnDevice(run);
  EXPECT_TRUE(stuck[0].empty());
  EXPECT_TRUE(stuck[1].empty());
  const HangReport rep = analyzeHang(run);
  EXPECT_EQ(rep.verdict, Verdict::Stopped) << rep.diagnosis;
}

TEST(HangDeviceWaits, FinishedKernelsAreNotStuckEvenWhenKilled) {
  const HangReport rep = analyzeHang(sendRecv(kT0 + 10 * kSecond, true, true));
  EXPECT_EQ(rep.verdict, Verdict::Stopped) << rep.diagnosis;
  for (const RankStop& r : rep.ranks) EXPECT_TRUE(r.waits.empty()) << r.label;
}

TEST(HangDeviceWaits, LaterWorkOnTheSameStreamFinishingProvesTheKernelFinished) {
  traces::Run run = sendRecv(kT0 + 10 * kSecond, false, false);
  // Rank 0's send record was lost, but a later all-reduce on its stream completed.
  addCall(run.ranks[0], NcclOp::AllReduce, -1, kT0 + 2 * kSecond, 3, kT0 + 2 * kSecond + kMs, 2);
  const auto stuck = stuckOnDevice(run);
  EXPECT_TRUE(stuck[0].empty());
  EXPECT_EQ(stuck[1].size(), 1u);
}

TEST(HangDeviceWaits, OnlyTheFirstStuckLaunchOfAStreamIsWhereItStopped) {
  traces::Run run = sendRecv(kT0 + 10 * kSecond, false, false);
  addCall(run.ranks[1], NcclOp::Recv, 0, kT0 + 2 * kSecond, 3, 0);  // queued behind it
  const auto stuck = stuckOnDevice(run);
  ASSERT_EQ(stuck[1].size(), 1u);
  EXPECT_EQ(stuck[1][0].correlation, 2u);
}

TEST(HangDeviceWaits, RankThatClosedItsTraceIsNotExamined) {
  traces::Run run = sendRecv(kT0 + 10 * kSecond, false, false);
  run.ranks[0].meta.captureWindows[0].end = kT0 + 10 * kSecond;
  const auto stuck = stuckOnDevice(run);
  EXPECT_TRUE(stuck[0].empty());
  EXPECT_EQ(stuck[1].size(), 1u);
}

TEST(HangDeviceWaits, ImportedTraceCollectedLongAfterTheLaunchIsStuckAndDidNotEndCleanly) {
  // A profiler collects every completed record when it stops; Kineto stamps when that was.
  traces::Run run = sendRecv(kT0 + 10 * kSecond, false, false);
  for (RankTrace& t : run.ranks) {
    t.meta.captureWindows.clear();
    t.meta.source = "kineto";
  }
  const HangReport rep = analyzeHang(run);
  EXPECT_EQ(rep.verdict, Verdict::NcclStuck) << rep.diagnosis;
  EXPECT_EQ(rep.ranks[0].end, RankEnd::Stopped);  // an imported trace is otherwise "exited"
}

TEST(HangDeviceWaits, ImportedTraceCutRightAfterItsLastLaunchesIsNotStuck) {
  // An on-demand window that ended while the last kernels ran: their records are simply missing.
  traces::Run run = sendRecv(0, false, false);
  for (RankTrace& t : run.ranks) {
    t.meta.captureWindows.clear();
    t.meta.source = "kineto";
  }
  const auto stuck = stuckOnDevice(run);
  EXPECT_TRUE(stuck[0].empty());
  EXPECT_TRUE(stuck[1].empty());
  EXPECT_EQ(analyzeHang(run).verdict, Verdict::Clean);
}

TEST(HangDeviceWaits, StuckReceiveWhosePeerNeverSentWaitsOnThatPeer) {
  traces::Run run = sendRecv(kT0 + 10 * kSecond, true, false);
  // Rank 0 never sent: drop its send (the last call, launch and kernel rows).
  RankTrace& t0 = run.ranks[0];
  t0.ncclCalls->forEachColumn([](auto& col) { col.pop_back(); });
  t0.apiCalls->forEachColumn([](auto& col) { col.pop_back(); });
  t0.correlations->forEachColumn([](auto& col) { col.pop_back(); });
  t0.kernels->forEachColumn([](auto& col) { col.pop_back(); });
  const HangReport rep = analyzeHang(run);
  ASSERT_FALSE(rep.ranks[1].waits.empty());
  const Wait& w = rep.ranks[1].waits.front();
  EXPECT_EQ(w.on, std::vector<int>{0});
  EXPECT_EQ(w.kernelLaunch, kT0 + kSecond + 1'000);
  EXPECT_FALSE(w.partnerPosted);
  EXPECT_EQ(rep.verdict, Verdict::NeverArrived) << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("rank 1 waits in ncclRecv peer=0 count=100 comm=0x0000000000c0ffee, "
                               "whose kernel never finished"),
            std::string::npos)
      << rep.diagnosis;
}

// An all-reduce of 4 members of which the run holds 2, stuck on both: the members not traced may
// never have come, so the traced two are not said to have matched calls NCCL failed to finish.
TEST(HangDeviceWaits, CollectiveWithMembersNotTracedStuckOnTheTracedOnesIsNotNcclStuck) {
  traces::Run run;
  for (int r = 0; r < 2; ++r) {
    RankTrace t = rankTrace(r, kT0 + 10 * kSecond);
    addCall(t, NcclOp::AllReduce, -1, kT0 + 100 * kMs, 1, kT0 + 120 * kMs, 1);
    addCall(t, NcclOp::AllReduce, -1, kT0 + kSecond, 2, 0, 2);
    for (int32_t& size : t.ncclCalls->commSize) size = 4;
    run.ranks.push_back(std::move(t));
  }
  const HangReport rep = analyzeHang(run);
  EXPECT_NE(rep.verdict, Verdict::NcclStuck) << rep.diagnosis;
  for (const RankStop& r : rep.ranks) {
    ASSERT_FALSE(r.waits.empty()) << r.label;
    EXPECT_EQ(r.waits.front().kernelLaunch, kT0 + kSecond + 1'000) << r.label;
    EXPECT_FALSE(r.waits.front().partnerPosted) << r.label;
  }
}

}  // namespace
}  // namespace bubblescope::analysis::hang
