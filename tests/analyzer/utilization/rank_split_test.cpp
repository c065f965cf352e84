// One rank's device time split per step: compute claims time first, then NCCL moving data, then
// copies, then NCCL waiting; the rest is idle, in gaps; the parts add up to the span exactly.
#include "analyzer/utilization/rank_split.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

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
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 1u);
  const UtilizationSplit& u = s.steps[0].split;
  EXPECT_EQ(u.span, 45);
  EXPECT_EQ(u.compute, 20);
  EXPECT_EQ(u.exposedComm, 8);  // 12..20
  EXPECT_EQ(u.commWait, 2);     // 5..12 waits, but only 10..12 is not under compute
  EXPECT_EQ(u.sum(), u.span);
  EXPECT_EQ(u.otherBusy, 4 + 5);
  EXPECT_EQ(u.idle, 6);  // 34..40
  ASSERT_EQ(s.gaps.size(), 1u);
  EXPECT_EQ(s.gaps[0].start, 34);
  EXPECT_EQ(s.gaps[0].end, 40);
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
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].number, 7);
  EXPECT_EQ(s.steps[0].start, 10);
  EXPECT_EQ(s.steps[0].end, 130);
  EXPECT_EQ(s.steps[0].split.idle, 45);  // 50..95
  EXPECT_EQ(s.steps[1].start, 130);      // the wait for step 8's first kernel is step 8's
  EXPECT_EQ(s.steps[1].end, 160);
  EXPECT_EQ(s.steps[1].split.idle, 20);
  EXPECT_EQ(s.steps[1].split.compute, 10);
  ASSERT_EQ(s.gaps.size(), 2u);
  EXPECT_EQ(s.gaps[1].step, 8);
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

}  // namespace
}  // namespace bubblescope::analysis
