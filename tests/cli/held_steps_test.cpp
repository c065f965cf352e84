// A watch that fell behind says which ranks no longer held a step's start (cli/held_steps.h).
#include "cli/held_steps.h"

#include <gtest/gtest.h>

namespace bubblescope::cli {
namespace {

TEST(HeldSteps, AStepEveryRankStillHoldsIsRead) {
  const std::vector<HeldFrom> held{{"rank 0 (pid 10)", 40}, {"rank 1 (pid 11)", 41}};
  EXPECT_EQ(notHeldLine(41, held, 800'000'000), "");
  EXPECT_EQ(notHeldLine(45, held, 800'000'000), "");
  // A rank that does not know (-1) says nothing either way.
  EXPECT_EQ(notHeldLine(3, {{"rank 0 (pid 10)", -1}}, 800'000'000), "");
}

TEST(HeldSteps, AStepSomeRankLostIsSaidWithTheFirstSuchRankAndTheCount) {
  const std::vector<HeldFrom> held{
      {"rank 0 (pid 10)", 40}, {"rank 1 (pid 11)", 42}, {"rank 2 (pid 12)", 43}};
  EXPECT_EQ(notHeldLine(42, held, 800'000'000),
            "the watch fell behind the job: rank 2 (pid 12) no longer held this step's start "
            "when it looked (each keeps 0.8 s; --keep keeps more)");
  EXPECT_EQ(notHeldLine(39, held, 1'500'000'000),
            "the watch fell behind the job: rank 0 (pid 10) and 2 more no longer held this "
            "step's start when it looked (each keeps 1.5 s; --keep keeps more)");
}

TEST(HeldSteps, EveryRankHoldsWholeFromTheNewestOfTheirFirstWholeSteps) {
  EXPECT_EQ(heldByAll({{"rank 0 (pid 10)", 40}, {"rank 3 (pid 13)", 85}, {"rank 1", -1}}), 85);
  EXPECT_EQ(heldByAll({{"rank 0 (pid 10)", -1}}), -1);  // none knows
  EXPECT_EQ(heldByAll({}), -1);
}

}  // namespace
}  // namespace bubblescope::cli
