#pragma once
// What an inventory of idle intervals (inventory/idle_inventory.h) reads of them, gathered one
// interval at a time by an analysis that keeps none of them: a summary's analysis of a pipeline
// tallies each stage's gaps as their step is classified (PipelineResult::bubbleTallies). Here,
// below the analysis that gathers it; the inventory is made from it in inventory/.
#include <array>
#include <cstdint>
#include <vector>

#include "analyzer/result/inventory_result.h"

namespace bubblescope::analysis {

struct IdleTally {
  int bubbles = 0;
  TimeNs idle = 0, largest = 0;
  std::vector<BubbleBucket> histogram;                     // empty until the first interval
  std::array<double, kBubbleThresholds.size()> atLeast{};  // idle in bubbles >= 1/5/10/50 ms
  std::vector<TimeNs> stepIdle;                            // by step index
  std::vector<int> stepLong;                               // bubbles >= 1 ms, by step index
  std::vector<int64_t> freeMemory;                         // of bubbles >= 1 ms, where known
};

// The buckets of kBubbleThresholds, empty: < 1, 1-5, 5-10, 10-50, >= 50 ms.
std::vector<BubbleBucket> emptyHistogram();

// One interval counted; one of no idle is not a bubble.
void addIdle(IdleTally& tally, const IdleInterval& interval);

// One gap's idle added to its stage's tally (`tallies`, one a stage) as a pipeline's bubble
// inventory counts it: none for a stage out of range; `steps`, how many steps the pipeline has
// analysed so far, its step among them or none.
void addBubble(std::vector<IdleTally>& tallies, size_t steps, int stage, int step, TimeNs idle,
               int64_t freeMemory);

}  // namespace bubblescope::analysis
