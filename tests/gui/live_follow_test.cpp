// view --attach follows the newest step until the user moves, then keeps their view and counts
// the steps that come, until they jump back (gui/model/live_follow.h).
#include <gtest/gtest.h>

#include "gui/model/live_follow.h"

namespace bubblescope::gui {
namespace {

const ShownView kNewest{12, 1'000, 2'000};

TEST(LiveFollow, FollowsWhileTheViewIsTheOneItSet) {
  LiveFollow f;
  f.set(kNewest);
  f.observe(kNewest);
  EXPECT_TRUE(f.following());
  EXPECT_TRUE(f.arrived(3));  // shown at once
  EXPECT_EQ(f.waiting(), 0);
}

TEST(LiveFollow, AnyMoveStopsFollowingAndCountsTheNewSteps) {
  const ShownView moves[] = {
      {11, 1'000, 2'000},  // another step picked
      {12, 1'100, 2'100},  // panned
      {12, 1'200, 1'800},  // zoomed
  };
  for (const ShownView& moved : moves) {
    LiveFollow f;
    f.set(kNewest);
    f.observe(moved);
    EXPECT_FALSE(f.following());
    EXPECT_FALSE(f.arrived(2));
    EXPECT_FALSE(f.arrived(3));
    EXPECT_EQ(f.waiting(), 5);
    // Coming back to the same view by hand does not follow again: only the jump does.
    f.observe(kNewest);
    EXPECT_FALSE(f.following());
  }
}

TEST(LiveFollow, JumpingBackFollowsAgainWithNothingWaiting) {
  LiveFollow f;
  f.set(kNewest);
  f.observe({12, 0, 10});
  f.arrived(4);
  f.jumpBack();
  EXPECT_TRUE(f.following());
  EXPECT_EQ(f.waiting(), 0);
  const ShownView newer{16, 5'000, 6'000};
  f.set(newer);
  f.observe(newer);
  EXPECT_TRUE(f.arrived(1));
}

}  // namespace
}  // namespace bubblescope::gui
