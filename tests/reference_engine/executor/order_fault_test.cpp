// --mismatch and --hang: their forms, and where a mismatch moves an op so that the stage and its
// neighbour block on each other (or one sentence when it cannot).
#include "reference_engine/executor/order_fault.h"
#include "reference_engine/executor/range_names.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

const FaultBounds kBounds{4, 8, 3};

TEST(OrderFault, MismatchAndHangParse) {
  const Mismatch mm = parseMismatch("1:4", kBounds);
  EXPECT_EQ(mm.stage, 1);
  EXPECT_EQ(mm.mb, 4);
  const Hang h = parseHang("2:3", kBounds);
  EXPECT_EQ(h.stage, 2);
  EXPECT_EQ(h.mb, 3);
  EXPECT_EQ(h.step, 0);
  EXPECT_EQ(parseHang("2:3:2", kBounds).step, 2);
  EXPECT_THROW(parseMismatch("4:1", kBounds), FaultSpecError);
  EXPECT_THROW(parseHang("1", kBounds), FaultSpecError);
  try {
    parseMismatch("1:x", kBounds);
    FAIL();
  } catch (const FaultSpecError& e) {
    EXPECT_STREQ(e.what(),
                 "--mismatch '1:x': microbatch 'x' is not an integer; expected STAGE:MB, e.g. 1:4");
  }
}

TEST(OrderFault, OneF1BForwardMovesPastTheGradientThatNeedsIt) {
  const Schedule s = Schedule::oneF1B(4, 8);
  const MismatchEffect e = planMismatch(s, {1, 4});
  EXPECT_EQ(opRangeName(e.op), "F mb=4");
  EXPECT_EQ(e.peer, 2);
  EXPECT_EQ(e.stageWaits, "RECV B mb=3 from=2");
  EXPECT_EQ(e.peerWaits, "RECV F mb=4 from=1");
  Faults faults;
  faults.mismatches = {{1, 4}};
  const auto plan = plannedOrder(s, 1, faults);
  ASSERT_EQ(plan.size(), s.stages[1].size());
  EXPECT_EQ(plan[static_cast<size_t>(e.afterIndex)].op, e.op);  // right after the op it waits in
  EXPECT_EQ(plan[static_cast<size_t>(e.afterIndex) - 1].op, e.after);
  // Other stages keep the schedule's order.
  const auto other = plannedOrder(s, 2, faults);
  for (size_t i = 0; i < other.size(); ++i) EXPECT_EQ(other[i].op, s.stages[2][i]);
}

TEST(OrderFault, MismatchThatDeadlocksNothingIsRefused) {
  const Schedule s = Schedule::oneF1B(4, 8);
  try {
    planMismatch(s, {3, 7});  // the last stage's forward goes nowhere
    FAIL();
  } catch (const FaultSpecError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--mismatch '3:7': ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace bubblescope::engine
