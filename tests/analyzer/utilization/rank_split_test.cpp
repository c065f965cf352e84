// One rank's device time split per step: compute claims time first, then NCCL moving data, then
// copies, then NCCL waiting; the rest is idle, in gaps; the parts add up to the span exactly.
#include "analyzer/utilization/rank_split.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "analyzer/timeline/intervals.h"

namespace bubblescope::analysis {
namespace {

// The split, with the gaps it hands out gathered.
struct Split {
  RankSplit split;
  std::vector<StepGap> gaps;
};

Split splitWithGaps(const RankDevice& d) {
  Split s;
  s.split = splitRank(d, [&](const StepGap& g) { s.gaps.push_back(g); });
  return s;
}

TEST(RankSplit, LayersClaimTimeInOrderAndAddUpToTheSpan) {
  RankDevice d;
  d.compute = {{0, 10}, {20, 30}};
  // NCCL kernel 5..25: waits 5..12, moves 12..25 (20..25 hidden under compute).
  CommSpan c;
  c.start = 5;
  c.end = 25;
  c.transferStart = 12;
  d.comms = {c};
  d.copies = {{30, 34}, {40, 45}};
  const Split r = splitWithGaps(d);
  const RankSplit& s = r.split;
  ASSERT_EQ(s.steps.size(), 1u);
  const UtilizationSplit& u = s.steps[0].split;
  EXPECT_EQ(u.span, 45);
  EXPECT_EQ(u.compute, 20);
  EXPECT_EQ(u.exposedComm, 8);  // 12..20
  EXPECT_EQ(u.commWait, 2);     // 5..12 waits, but only 10..12 is not under compute
  EXPECT_EQ(u.sum(), u.span);
  EXPECT_EQ(u.otherBusy, 4 + 5);
  EXPECT_EQ(u.idle, 6);  // 34..40
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].start, 34);
  EXPECT_EQ(r.gaps[0].end, 40);
  EXPECT_EQ(r.gaps[0].step, 0u);
}

TEST(RankSplit, WaitingOutsideComputeIsWaitNotIdle) {
  RankDevice d;
  d.compute = {{0, 10}};
  CommSpan c;
  c.start = 10;
  c.end = 30;
  c.transferStart = 25;
  d.comms = {c};
  const UtilizationSplit u = splitRank(d).steps[0].split;
  EXPECT_EQ(u.commWait, 15);
  EXPECT_EQ(u.exposedComm, 5);
  EXPECT_EQ(u.idle, 0);
}

TEST(RankSplit, StepsByLaunchAndIdleBeforeAStepIsThatSteps) {
  RankDevice d;
  d.stepMarkers = {{0, 100}, {100, 200}};
  d.stepNumbers = {7, 8};
  // Step 7's kernel runs late (launched at 90, runs 95..130); step 8's at 150..160.
  d.compute = {{10, 50, 5}, {95, 130, 90}, {150, 160, 140}};
  const Split r = splitWithGaps(d);
  const RankSplit& s = r.split;
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].number, 7);
  EXPECT_EQ(s.steps[0].start, 10);
  EXPECT_EQ(s.steps[0].end, 130);
  EXPECT_EQ(s.steps[0].split.idle, 45);  // 50..95
  EXPECT_EQ(s.steps[1].start, 130);      // the wait for step 8's first kernel is step 8's
  EXPECT_EQ(s.steps[1].end, 160);
  EXPECT_EQ(s.steps[1].split.idle, 20);
  EXPECT_EQ(s.steps[1].split.compute, 10);
  ASSERT_EQ(r.gaps.size(), 2u);
  EXPECT_EQ(r.gaps[1].number, 8);
  EXPECT_EQ(r.gaps[1].step, 1u);  // its index among the steps
  EXPECT_EQ(r.gaps[1].start, 130);
}

TEST(RankSplit, WorkOutsideEveryStepIsLeftOut) {
  RankDevice d;
  d.stepMarkers = {{100, 200}};
  d.stepNumbers = {1};
  d.compute = {{10, 20, 5}, {110, 120, 105}};
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].split.span, 10);
  EXPECT_EQ(s.steps[0].split.idle, 0);
}

// A wait inside a collective with members the run does not hold is marked on the step it falls
// in; a step whose such wait all ran under compute, or whose waits are all in full collectives,
// is not.
TEST(RankSplit, OnlyStepsHoldingAPartialCollectivesWaitSayHowManyMembersWereTraced) {
  RankDevice d;
  d.stepMarkers = {{0, 100}, {100, 200}, {200, 300}};
  d.stepNumbers = {1, 2, 3};
  d.compute = {{0, 10, 0}, {100, 130, 100}, {200, 210, 200}};
  auto comm = [](TimeNs start, TimeNs transferStart, TimeNs end, TracedMembers members) {
    CommSpan c;
    c.start = start;
    c.transferStart = transferStart;
    c.end = end;
    c.launch = start;
    c.members = members;
    return c;
  };
  d.comms = {comm(10, 14, 20, {2, 128}),     // step 1: waits 10..14, partial
             comm(110, 120, 140, {2, 128}),  // step 2: its wait under compute
             comm(210, 215, 220, {})};       // step 3: a full collective's wait
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].split.commWait, 4);
  EXPECT_TRUE(s.steps[0].split.waitMembers.partial());
  EXPECT_EQ(tracedMembersText(s.steps[0].split.waitMembers), "2 of 128 members traced");
  EXPECT_EQ(s.steps[1].split.commWait, 0);
  EXPECT_FALSE(s.steps[1].split.waitMembers.partial());
  EXPECT_EQ(s.steps[2].split.commWait, 5);
  EXPECT_FALSE(s.steps[2].split.waitMembers.partial());
}

// A total over steps (or ranks) rests on no more than its least traced part: the smallest share
// of members traced, the larger communicator on a tie; full parts leave the mark alone.
TEST(RankSplit, ATotalSaysTheSmallestShareOfMembersTraced) {
  UtilizationSplit total, a, b, c, full;
  a.waitMembers = {4, 8};
  b.waitMembers = {2, 128};
  c.waitMembers = {1, 64};
  total += a;
  EXPECT_EQ(tracedMembersText(total.waitMembers), "4 of 8 members traced");
  total += b;
  total += full;
  EXPECT_EQ(tracedMembersText(total.waitMembers), "2 of 128 members traced");
  total += c;  // 1 of 64 is as small a share as 2 of 128: the larger communicator stays
  EXPECT_EQ(tracedMembersText(total.waitMembers), "2 of 128 members traced");
  UtilizationSplit none;
  none += full;
  EXPECT_FALSE(none.waitMembers.partial());
}

// Wherever the work sits (kernels on streams that overlap, copies, NCCL kernels waiting and
// moving, work before the first step and between steps), a step's gaps are its window less all
// its device work, and they add up to its idle.
TEST(RankSplit, GapsAreTheWindowLessAllDeviceWork) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    RankDevice d;
    auto span = [&](TimeNs from, TimeNs most) {
      const TimeNs start = from + static_cast<TimeNs>(rng() % static_cast<uint64_t>(most));
      return Interval{start, start + static_cast<TimeNs>(rng() % 40)};
    };
    const int steps = static_cast<int>(rng() % 4);  // 0: the capture is one step
    for (int k = 0; k < steps; ++k) {
      d.stepMarkers.push_back({k * 1000, k * 1000 + 900});
      d.stepNumbers.push_back(k + 5);
    }
    IntervalList all;
    const TimeNs end = std::max(1, steps) * 1000;
    for (int i = static_cast<int>(rng() % 60); i > 0; --i) {
      const Interval s = span(0, end);
      d.compute.push_back({s.start, s.end, s.start - static_cast<TimeNs>(rng() % 50)});
      all.push_back(s);
    }
    for (int i = static_cast<int>(rng() % 8); i > 0; --i) {
      const Interval s = span(0, end);
      d.copies.push_back({{s.start, s.end, s.start - 3}, "HtoD", 64});
      all.push_back(s);
    }
    for (int i = static_cast<int>(rng() % 8); i > 0; --i) {
      const Interval s = span(0, end);
      CommSpan c;
      c.start = s.start;
      c.end = s.end;
      c.launch = s.start - 2;
      c.transferStart = s.start + static_cast<TimeNs>(rng() % 50) - 5;  // may fall outside it
      d.comms.push_back(c);
      all.push_back(s);
    }
    const IntervalList busy = unite(all);
    const Split r = splitWithGaps(d);
    size_t g = 0;
    for (size_t k = 0; k < r.split.steps.size(); ++k) {
      const UtilizationStep& st = r.split.steps[k];
      TimeNs idle = 0;
      for (const Interval& want : subtract({{st.start, st.end}}, clip(busy, st.start, st.end))) {
        ASSERT_LT(g, r.gaps.size());
        EXPECT_EQ(r.gaps[g].step, k);
        EXPECT_EQ(r.gaps[g].number, st.number);
        EXPECT_EQ(r.gaps[g].start, want.start);
        EXPECT_EQ(r.gaps[g].end, want.end);
        idle += want.end - want.start;
        ++g;
      }
      EXPECT_EQ(st.split.idle, idle);
    }
    EXPECT_EQ(g, r.gaps.size());
  }
}

}  // namespace
}  // namespace bubblescope::analysis
