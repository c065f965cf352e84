// The diagnosis from hand-built stop points: each kind of hang is told by its one sentence and
// names the right ranks; the wait-for graph has an edge per blocked rank.
#include "analyzer/hang/diagnose.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis::hang {
namespace {

constexpr TimeNs kT0 = 1'700'000'000'000'000'000;

RankStop stage(int s, RankEnd end = RankEnd::Stopped) {
  RankStop r;
  r.rank = r.stage = s;
  r.label = "stage " + std::to_string(s);
  r.end = end;
  r.aliveNs = kT0 + 5'000'000'000;
  r.step = "step 0";
  r.open = {"step 0"};
  return r;
}

Wait recv(const std::string& what, int on, TimeNs since = kT0) {
  Wait w;
  w.what = what;
  w.on = {on};
  w.since = since;
  return w;
}

TEST(HangDiagnose, TwoStagesWaitingOnEachOtherAreADeadlockNamingTheOneHoldingTheActivation) {
  std::vector<RankStop> ranks = {stage(0), stage(1), stage(2)};
  ranks[0].waits = {recv("RECV B mb=2 from=1", 1)};
  ranks[1].waits = {recv("RECV B mb=3 from=2", 2)};
  ranks[1].opsInStep = 8;
  ranks[2].waits = {recv("RECV F mb=4 from=1", 1)};
  const HangReport rep = diagnose(ranks, {});
  EXPECT_EQ(rep.verdict, Verdict::Deadlock);
  EXPECT_EQ(rep.diagnosis,
            "deadlock: stage 1 waits in RECV B mb=3 from=2; stage 2 waits in RECV F mb=4 from=1, "
            "which stage 1 sends only after that RECV: the two stages' orders disagree at stage 1 "
            "op #8 of step 0");
  EXPECT_EQ(rep.culprits, (std::vector<int>{1, 2}));
  ASSERT_EQ(rep.edges.size(), 3u);
  EXPECT_EQ(rep.edges[0].from, 0);
  EXPECT_EQ(rep.edges[0].to, 1);
}

TEST(HangDiagnose, ChainEndingAtADeadRankBlamesIt) {
  std::vector<RankStop> ranks = {stage(0), stage(1), stage(2, RankEnd::Died)};
  ranks[0].waits = {recv("RECV B mb=0 from=1", 1)};
  ranks[1].waits = {recv("RECV B mb=0 from=2", 2)};
  ranks[2].aliveNs = kT0 + 1'000'000'000;
  const HangReport rep = diagnose(ranks, {});
  EXPECT_EQ(rep.verdict, Verdict::DeadRank);
  EXPECT_EQ(rep.culprits, std::vector<int>{2});
  EXPECT_EQ(rep.diagnosis.rfind("stage 2 died: its trace ends at ", 0), 0u) << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find(" without a clean exit in step 0, 4.0 s before the last rank's"),
            std::string::npos)
      << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("stage 1 waits in RECV B mb=0 from=2"), std::string::npos);
}

TEST(HangDiagnose, ChainEndingAtALiveRankThatWaitsOnNobodySaysItNeverSent) {
  std::vector<RankStop> ranks = {stage(0), stage(1), stage(2)};
  ranks[0].waits = {recv("RECV B mb=1 from=1", 1)};
  ranks[2].waits = {recv("RECV F mb=3 from=1", 1)};
  ranks[1].lastOp = "F mb=2";
  ranks[1].opsInStep = 5;
  const HangReport rep = diagnose(ranks, {});
  EXPECT_EQ(rep.verdict, Verdict::NeverArrived);
  EXPECT_EQ(rep.culprits, std::vector<int>{1});
  EXPECT_EQ(rep.diagnosis.rfind("stage 1 never sent what stage 0 and stage 2 wait for: it stopped "
                                "outside any wait in step 0 after F mb=2, which ended at ",
                                0),
            0u)
      << rep.diagnosis;
}

TEST(HangDiagnose, SequenceMismatchComesFirst) {
  std::vector<RankStop> ranks = {stage(0, RankEnd::Clean), stage(1, RankEnd::Clean)};
  NcclFindings nccl;
  nccl.waits.resize(2);
  nccl.mismatches = {"rank 0's send #1 ...", "another"};
  nccl.mismatchRanks = {{0, 1}, {1, 0}};
  const HangReport rep = diagnose(ranks, nccl);
  EXPECT_EQ(rep.verdict, Verdict::SequenceMismatch);
  EXPECT_EQ(rep.diagnosis, "sequence mismatch: rank 0's send #1 ...");
  EXPECT_EQ(rep.details, std::vector<std::string>{"another"});
}

TEST(HangDiagnose, EveryRankClosedItsTraceIsClean) {
  std::vector<RankStop> ranks = {stage(0, RankEnd::Clean), stage(1, RankEnd::Clean)};
  const HangReport rep = diagnose(ranks, {});
  EXPECT_EQ(rep.verdict, Verdict::Clean);
  EXPECT_FALSE(rep.found());
  EXPECT_TRUE(rep.edges.empty());
}

TEST(HangDiagnose, StoppedRunWithNobodyWaitingSaysSo) {
  std::vector<RankStop> ranks = {stage(0, RankEnd::Clean), stage(1)};
  const HangReport rep = diagnose(ranks, {});
  EXPECT_EQ(rep.verdict, Verdict::Stopped);
  EXPECT_EQ(rep.diagnosis, "stage 1 was stopped before the end, but no rank waits on another");
}

}  // namespace
}  // namespace bubblescope::analysis::hang
