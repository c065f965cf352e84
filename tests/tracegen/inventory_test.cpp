// The bubble inventory of a generated run against the generator's own bubbles (truth.h): per
// stage as many bubbles of 1 ms or more, the same idle in them, the same shares by length.
#include <gtest/gtest.h>

#include "analyzer/inventory/bubble_inventory.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {
namespace {

class Inventory : public ::testing::TestWithParam<Case> {};

TEST_P(Inventory, BubblesMatchTheGeneratorsOwn) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, GetParam().spec, dir.path());
  const auto inventory = analysis::bubbleInventory(run.result.pipelines.at(0));
  ASSERT_EQ(inventory.size(), run.truth.stages.size());
  // Not vacuous: the last stage waits > 5 ms for its first input every step (3 forwards ahead).
  EXPECT_GE(inventory.back().histogram[2].count + inventory.back().histogram[3].count,
            GetParam().spec.steps);
  for (size_t s = 0; s < inventory.size(); ++s) {
    SCOPED_TRACE("stage " + std::to_string(s));
    const auto& truth = run.truth.stages[s].bubbles;
    for (size_t k = 0; k < analysis::kBubbleThresholds.size(); ++k) {
      TimeNs idle = 0, at = 0;
      int count = 0, found = 0;
      for (TimeNs b : truth) {
        idle += b;
        if (b >= analysis::kBubbleThresholds[k]) at += b, ++count;
      }
      for (const auto& bucket : inventory[s].histogram) {
        if (bucket.from >= analysis::kBubbleThresholds[k]) found += bucket.count;
      }
      const double share = idle > 0 ? static_cast<double>(at) / static_cast<double>(idle) : 0;
      EXPECT_NEAR(inventory[s].shareAtLeast[k], share, 0.03)
          << "bubbles >= " << analysis::kBubbleThresholds[k];
      EXPECT_EQ(found, count) << "bubbles >= " << analysis::kBubbleThresholds[k];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, Inventory, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(InventorySteadiness, AFaultFreeRunIsSteadyAndAOneOffStallIsNot) {
  testing::TempDir a, b;
  const auto cases = standardCases();
  const StackRun clean = analyseAs(Stack::Kineto, cases[0].spec, a.path());    // FaultFree
  const StackRun stalled = analyseAs(Stack::Kineto, cases[2].spec, b.path());  // HostStall, step 1
  for (const auto& s : analysis::bubbleInventory(clean.result.pipelines.at(0))) {
    EXPECT_TRUE(s.steady) << "stage " << s.stage << ": " << s.steadyNote;
  }
  const auto inv = analysis::bubbleInventory(stalled.result.pipelines.at(0));
  EXPECT_FALSE(inv.at(1).steady) << inv.at(1).steadyNote;  // stage 1 waits for the late F1
}

}  // namespace
}  // namespace bubblescope::tracegen
