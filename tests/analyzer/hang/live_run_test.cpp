// `bubblescope hang --all` builds the run the post-mortem analysis reads from the processes'
// answers (analyzer/hang/live_run.h). What it must settle: histories cut at different places
// still pair up, a call whose partner was made is no wait even when the partner's history lost
// it, and what has not lasted --min-wait is a job at work, not a hang. Checked through the
// analysis's own verdict.
#include <gtest/gtest.h>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/live_run.h"

namespace bubblescope::analysis::hang {
namespace {

using control::LiveCall;
using control::LiveCount;
using traces::NcclOp;

constexpr uint64_t kComm = 0xc0ffee;
constexpr int64_t kNow = 1'800'000'000'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

LiveRank rank(int r) {
  LiveRank l;
  l.status.pid = 1000 + r;
  l.status.rank = r;
  l.status.worldSize = 2;
  l.status.runId = "job";
  l.snapshot.aliveNs = kNow;
  return l;
}

LiveCall p2p(NcclOp op, int self, int peer, uint64_t seq, int64_t startNs) {
  LiveCall c;
  c.op = op;
  c.peer = peer;
  c.count = 100;
  c.bytes = 400;
  c.dtype = 7;
  c.comm = kComm;
  c.commRank = self;
  c.commSize = 2;
  c.seq = seq;
  c.startNs = startNs;
  c.endNs = startNs + 1000;
  c.tid = static_cast<uint64_t>(100 + self);
  return c;
}

// Rank 0 has sent `sent` times to rank 1, which has received `received`; each keeps its last
// `kept` calls.
std::vector<LiveRank> pair(uint64_t sent, uint64_t received, uint64_t kept, int64_t lastAgo) {
  std::vector<LiveRank> ranks = {rank(0), rank(1)};
  for (uint64_t n = sent > kept ? sent - kept + 1 : 1; n <= sent; ++n) {
    ranks[0].snapshot.calls.push_back(
        p2p(NcclOp::Send, 0, 1, n, kNow - lastAgo - static_cast<int64_t>(sent - n) * kSecond));
  }
  for (uint64_t n = received > kept ? received - kept + 1 : 1; n <= received; ++n) {
    ranks[1].snapshot.calls.push_back(
        p2p(NcclOp::Recv, 1, 0, n, kNow - lastAgo - static_cast<int64_t>(received - n) * kSecond));
  }
  ranks[0].snapshot.counts.push_back(LiveCount{"send", kComm, 1, sent, 0});
  ranks[1].snapshot.counts.push_back(LiveCount{"recv", kComm, 0, received, 1});
  return ranks;
}

TEST(LiveRun, HistoriesCutAtDifferentPlacesStillPairUp) {
  // Rank 1 received 100 of 100 sends, but keeps fewer of them: nothing waits.
  std::vector<LiveRank> ranks = pair(100, 100, 64, 10 * kSecond);
  ranks[1].snapshot.calls.erase(ranks[1].snapshot.calls.begin(),
                                ranks[1].snapshot.calls.begin() + 20);
  const traces::Run run = liveRun(ranks, 5 * kSecond);
  EXPECT_EQ(run.ranks[0].ncclCalls->size(), 44u);  // only the sends rank 1 still holds
  EXPECT_EQ(run.ranks[1].ncclCalls->size(), 44u);
  const auto report = analysis::hang::analyzeHang(run);
  EXPECT_EQ(report.verdict, analysis::hang::Verdict::Clean) << report.diagnosis;
  EXPECT_EQ(report.ranks[0].end, analysis::hang::RankEnd::Running);
}

TEST(LiveRun, ASendNeverReceivedIsAWaitOnThePeer) {
  // Rank 0 posted send #101, which rank 1 (at 100) has not received: rank 0 waits on rank 1.
  const traces::Run run = liveRun(pair(101, 100, 64, 10 * kSecond), 5 * kSecond);
  const auto report = analysis::hang::analyzeHang(run);
  ASSERT_TRUE(report.found()) << report.diagnosis;
  ASSERT_FALSE(report.ranks[0].waits.empty());
  EXPECT_TRUE(report.ranks[0].waits[0].nccl);
  EXPECT_EQ(report.ranks[0].waits[0].on, std::vector<int>{1});
  EXPECT_TRUE(report.ranks[1].waits.empty());
}

TEST(LiveRun, WhatHasNotLastedMinWaitIsNoHang) {
  // The same unanswered send, posted 1 s before the answer: the job is at work.
  const traces::Run run = liveRun(pair(101, 100, 64, kSecond), 5 * kSecond);
  const auto report = analysis::hang::analyzeHang(run);
  EXPECT_EQ(report.verdict, analysis::hang::Verdict::Clean) << report.diagnosis;

  std::vector<LiveRank> ranks = pair(3, 3, 64, 10 * kSecond);
  ranks[0].snapshot.ranges.push_back({100, 0, kNow - 10 * kSecond, "", "step 4"});
  ranks[0].snapshot.ranges.push_back({100, 1, kNow - kSecond, "", "RECV B mb=1 from=1"});
  const traces::Run young = liveRun(ranks, 5 * kSecond);
  ASSERT_EQ(young.ranks[0].openRanges->size(), 1u);  // the step, not the young receive
  EXPECT_EQ(young.ranks[0].strings.at(young.ranks[0].openRanges->name[0]), "step 4");
}

TEST(LiveRun, AMismatchBothHistoriesHoldIsKept) {
  std::vector<LiveRank> ranks = pair(5, 5, 64, 10 * kSecond);
  ranks[1].snapshot.calls.back().count = 200;
  ranks[1].snapshot.calls.back().bytes = 800;
  const auto report = analysis::hang::analyzeHang(liveRun(ranks, 5 * kSecond));
  EXPECT_EQ(report.verdict, analysis::hang::Verdict::SequenceMismatch) << report.diagnosis;
  // Numbered as the process counted it, not by place in the cut history.
  EXPECT_NE(report.diagnosis.find("rank 0's send #5 to rank 1"), std::string::npos)
      << report.diagnosis;
}

TEST(LiveRun, ACallWhosePeerDidNotAnswerStaysAWait) {
  std::vector<LiveRank> ranks = pair(7, 7, 64, 10 * kSecond);
  ranks.pop_back();  // rank 1 did not answer
  const traces::Run run = liveRun(ranks, 5 * kSecond);
  EXPECT_EQ(run.ranks[0].ncclCalls->size(), 7u);
}

}  // namespace
}  // namespace bubblescope::analysis::hang
