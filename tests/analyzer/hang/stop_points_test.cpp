// Where each rank stopped, from hand-built traces: its open RECV resolved to the rank of the
// stage it names, a receive it unwound out of when its peer vanished, and how it ended.
#include "analyzer/hang/stop_points.h"

#include <signal.h>

#include <gtest/gtest.h>

namespace bubblescope::analysis::hang {
namespace {

using traces::RankTrace;

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kT0 = 1'700'000'000 * kSecond;

RankTrace stageTrace(int stage, bool closed) {
  RankTrace t;
  t.meta.rank = stage;
  t.meta.extra["BUBBLESCOPE_PP_RANK"] = std::to_string(stage);
  t.meta.captureWindows.push_back({kT0, closed ? kT0 + 3 * kSecond : 0, "record"});
  t.meta.aliveNs = kT0 + 3 * kSecond;
  return t;
}

void addRange(RankTrace& t, const char* name, TimeNs start, TimeNs end) {
  const auto th = t.threadIndex(100 + static_cast<uint64_t>(t.meta.rank));
  t.ranges->start.push_back(start);
  t.ranges->end.push_back(end);
  t.ranges->thread.push_back(th);
  t.ranges->domain.push_back(0);
  t.ranges->name.push_back(t.strings.intern(name));
  t.ranges->depth.push_back(1);
  t.ranges->kind.push_back(traces::RangeKind::PushPop);
}

void addOpen(RankTrace& t, const char* name, TimeNs start, uint16_t depth) {
  const auto th = t.threadIndex(100 + static_cast<uint64_t>(t.meta.rank));
  t.openRanges->start.push_back(start);
  t.openRanges->thread.push_back(th);
  t.openRanges->domain.push_back(0);
  t.openRanges->name.push_back(t.strings.intern(name));
  t.openRanges->depth.push_back(depth);
  t.openRanges->kind.push_back(traces::RangeKind::PushPop);
}

TEST(HangStopPoints, OpenReceiveWaitsOnTheRankOfTheStageItNames) {
  traces::Run run;
  run.ranks.push_back(stageTrace(1, false));  // in the run's order: stage 1 first
  run.ranks.push_back(stageTrace(0, false));
  RankTrace& s1 = run.ranks[0];
  addRange(s1, "F mb=0", kT0 + 1, kT0 + 2);
  addRange(s1, "F mb=1", kT0 + 3, kT0 + 4);
  addOpen(s1, "step 0", kT0, 0);
  addOpen(s1, "RECV B mb=0 from=0", kT0 + 5, 1);
  const auto stops = stopPoints(run);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0].label, "stage 1");
  EXPECT_EQ(stops[0].step, "step 0");
  EXPECT_EQ(stops[0].opsInStep, 2);
  EXPECT_EQ(stops[0].lastOp, "F mb=1");
  ASSERT_EQ(stops[0].waits.size(), 1u);
  EXPECT_EQ(stops[0].waits[0].what, "RECV B mb=0 from=0");
  EXPECT_EQ(stops[0].waits[0].on, std::vector<int>{1});  // stage 0 is the run's second trace
  EXPECT_EQ(stops[0].end, RankEnd::Stopped);
}

// A live answer lists a thread's open ranges innermost first, and ranges pushed while dormant
// within the same tenth of a second share their start: still outermost first.
TEST(HangStopPoints, RangesOpenedInTheSameTickAreListedOutermostFirst) {
  traces::Run run;
  run.ranks.push_back(stageTrace(1, false));
  run.ranks.push_back(stageTrace(0, false));
  RankTrace& s1 = run.ranks[0];
  addOpen(s1, "RECV B mb=0 from=0", kT0, 2);
  addOpen(s1, "B mb=0", kT0, 1);
  addOpen(s1, "step 0", kT0, 0);
  const auto stops = stopPoints(run);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0].open, (std::vector<std::string>{"step 0", "B mb=0", "RECV B mb=0 from=0"}));
  EXPECT_EQ(stops[0].step, "step 0");
  ASSERT_EQ(stops[0].waits.size(), 1u);
  EXPECT_EQ(stops[0].waits[0].what, "RECV B mb=0 from=0");
}

TEST(HangStopPoints, ReceiveUnwoundAtTheEndCountsAsItsWait) {
  traces::Run run;
  run.ranks.push_back(stageTrace(0, true));
  run.ranks.push_back(stageTrace(1, false));
  RankTrace& s0 = run.ranks[0];
  addRange(s0, "F mb=0", kT0 + 1, kT0 + 2);
  // Blocked 2 s, then the peer vanished: the exception closed the receive, the process exited.
  addRange(s0, "RECV B mb=0 from=1", kT0 + 3, kT0 + 3 * kSecond - 1000);
  const auto stops = stopPoints(run);
  EXPECT_EQ(stops[0].end, RankEnd::Clean);
  ASSERT_EQ(stops[0].waits.size(), 1u);
  EXPECT_EQ(stops[0].waits[0].on, std::vector<int>{1});
  EXPECT_EQ(stops[0].waits[0].unwoundAt, kT0 + 3 * kSecond - 1000);

  // A receive followed by more work is history, not a wait.
  addRange(s0, "BW mb=0", kT0 + 3 * kSecond - 500, kT0 + 3 * kSecond - 100);
  EXPECT_TRUE(stopPoints(run)[0].waits.empty());
}

TEST(HangStopPoints, CrashSignalOrALongSilenceIsADeath) {
  traces::Run run;
  run.ranks.push_back(stageTrace(0, false));
  run.ranks.push_back(stageTrace(1, false));
  run.ranks.push_back(stageTrace(2, false));
  run.ranks[1].meta.extra["end_signal"] = std::to_string(SIGABRT);
  run.ranks[2].meta.aliveNs = kT0 + kSecond;  // 2 s before the others
  const auto stops = stopPoints(run);
  EXPECT_EQ(stops[0].end, RankEnd::Stopped);
  EXPECT_EQ(stops[1].end, RankEnd::Died);
  EXPECT_EQ(stops[2].end, RankEnd::Died);
}

}  // namespace
}  // namespace bubblescope::analysis::hang
