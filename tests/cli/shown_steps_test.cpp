// view --attach shows the newest finished steps its agents still hold whole, and no more: the
// older ones scroll out (cli/shown_steps.h).
#include <gtest/gtest.h>

#include "cli/shown_steps.h"

namespace bubblescope::cli {
namespace {

TEST(ShownSteps, WholeStepsAreTheKeepInStepsLessThree) {
  struct Case {
    int64_t keepNs, periodNs;
    size_t whole;
  };
  const Case cases[] = {
      {1'060'000'000, 70'000'000, 12},  // a poll (0.5 s) and 8 steps of 70 ms: 15 held, 12 whole
      {5'000'000'000, 1'000'000'000, 2},
      {3'000'000'000, 1'000'000'000, 1},  // never fewer than one: the newest is read whole
      {500'000'000, 1'000'000'000, 1},
      {1'000'000'000, 0, 0},  // the period unknown: the caller decides
      {1'000'000'000, -1, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(wholeSteps(c.keepNs, c.periodNs), c.whole) << c.keepNs << " / " << c.periodNs;
  }
}

TEST(ShownSteps, TheNewestStayAndTheOldestScrollOut) {
  ShownSteps s;
  s.add({5, 6, 7});
  s.bound(4);
  EXPECT_EQ(s.first(), 5);
  EXPECT_EQ(s.last(), 7);
  s.add({8, 9, 10});
  s.bound(4);
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.first(), 7);
  EXPECT_EQ(s.last(), 10);
  for (int64_t n = 11; n < 1000; ++n) {
    s.add({n});
    s.bound(4);
  }
  EXPECT_EQ(s.size(), 4u);  // bounded however long the job runs
  EXPECT_EQ(s.first(), 996);
}

TEST(ShownSteps, AStepAlreadyShownIsNotAddedTwice) {
  ShownSteps s;
  s.add({3, 4});
  s.add({4, 2, 5});
  s.bound(10);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.first(), 3);
  EXPECT_EQ(s.last(), 5);
}

// A viewer starved between two ranks' snapshots: the later rank's window moved past the oldest
// steps shown, which are dropped; past them all, none is left to show.
TEST(ShownSteps, StepsSomeAgentNoLongerHoldsWholeAreDropped) {
  ShownSteps s;
  s.add({74, 75, 76, 77});
  s.dropBefore(-1);  // no agent knows: all stay
  EXPECT_EQ(s.first(), 74);
  s.dropBefore(76);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.first(), 76);
  EXPECT_EQ(s.last(), 77);
  s.dropBefore(85);
  EXPECT_TRUE(s.empty());
  s.add({85});
  EXPECT_EQ(s.first(), 85);
}

TEST(ShownSteps, ABoundOfZeroKeepsTheNewest) {
  ShownSteps s;
  s.add({1, 2, 3});
  s.bound(0);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.last(), 3);
}

}  // namespace
}  // namespace bubblescope::cli
