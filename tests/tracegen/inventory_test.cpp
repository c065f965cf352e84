// The bubble inventory of a generated run against the generator's own bubbles (truth.h): per
// stage as many bubbles of 1 ms or more, the same idle in them, the same shares by length, and
// the same free device memory in each as the generator's allocator model (memory_model.h) says.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyzer/inventory/bubble_inventory.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/memory_model.h"
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

// Per stage, the free memory of each bubble of 1 ms or more, smallest first: the analysis'
// (its gaps) and the model's (the truth's holes), which must be the same bubbles.
void expectFreeMemoryOfTheModel(const Case& c, Stack stack) {
  testing::TempDir dir;
  const StackRun run = analyseAs(stack, c.spec, dir.path());
  const JobTimeline job = execute(c.spec);
  const analysis::PipelineResult& pl = run.result.pipelines.at(0);
  const auto inventory = analysis::bubbleInventory(pl);
  ASSERT_EQ(inventory.size(), run.truth.stages.size());
  for (size_t s = 0; s < inventory.size(); ++s) {
    SCOPED_TRACE("stage " + std::to_string(s));
    const auto calls = allocatorCalls(job, static_cast<int>(s));
    const StageTruth& truth = run.truth.stages[s];
    std::vector<int64_t> expected, found;
    for (size_t b = 0; b < truth.bubbles.size(); ++b) {
      if (truth.bubbles[b] < analysis::kBubbleThresholds[0]) continue;
      const auto [from, to] = truth.bubbleSpans[b];
      expected.push_back(leastFreeIn(calls, c.spec.deviceMemory, from, to));
    }
    for (const analysis::Gap& g : pl.gaps) {
      if (g.stage == static_cast<int>(s) && g.idle >= analysis::kBubbleThresholds[0]) {
        found.push_back(g.freeMemory);
      }
    }
    std::sort(expected.begin(), expected.end());
    std::sort(found.begin(), found.end());
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(found, expected);
    EXPECT_EQ(inventory[s].memoryBasis, analysis::MemoryBasis::Reserved);
    EXPECT_EQ(inventory[s].deviceMemory, c.spec.deviceMemory);
    EXPECT_EQ(inventory[s].freeMemoryMin, expected.front());
    EXPECT_EQ(inventory[s].freeMemoryMedian, expected[expected.size() / 2]);
  }
  // Not vacuous: some stage waits while its host has already allocated activations for the
  // microbatches it is about to run, so less is free than the weights alone leave.
  int64_t least = INT64_MAX;
  for (const auto& s : inventory) least = std::min(least, s.freeMemoryMin);
  EXPECT_LT(least, static_cast<int64_t>(c.spec.deviceMemory) - c.spec.weightMemory);
}

TEST_P(Inventory, FreeMemoryInEachBubbleIsTheAllocatorModelsKineto) {
  expectFreeMemoryOfTheModel(GetParam(), Stack::Kineto);
}

TEST_P(Inventory, FreeMemoryInEachBubbleIsTheAllocatorModelsNsys) {
  expectFreeMemoryOfTheModel(GetParam(), Stack::Nsys);
}

#if BUBBLESCOPE_TRACEGEN_AGENT
TEST_P(Inventory, FreeMemoryInEachBubbleIsTheAllocatorModelsAgent) {
  expectFreeMemoryOfTheModel(GetParam(), Stack::Agent);
}
#endif

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
