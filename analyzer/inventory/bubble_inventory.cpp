#include "analyzer/inventory/bubble_inventory.h"

#include "analyzer/inventory/idle_inventory.h"

namespace bubblescope::analysis {

std::vector<StageInventory> bubbleInventory(const PipelineResult& pl) {
  std::vector<std::vector<IdleInterval>> intervals(pl.stages.size());
  auto add = [&](int stage, int step, TimeNs idle, int64_t freeMemory) {
    if (idle <= 0 || stage < 0 || static_cast<size_t>(stage) >= intervals.size()) return;
    const bool inSteps = step >= 0 && static_cast<size_t>(step) < pl.steps.size();
    intervals[static_cast<size_t>(stage)].push_back({inSteps ? step : -1, idle, freeMemory});
  };
  // A summary's analysis keeps every gap as a bubble, and only the listed gaps whole.
  if (pl.gapIndex.empty()) {
    for (const Gap& g : pl.gaps) add(g.stage, g.step, g.idle, g.freeMemory);
  } else {
    for (const Bubble& b : pl.bubbles) add(b.stage, b.step, b.idle, b.freeMemory);
  }
  std::vector<StageInventory> out(pl.stages.size());
  for (size_t s = 0; s < out.size(); ++s) {
    const StageResult& stage = pl.stages[s];
    static_cast<IdleInventory&>(out[s]) =
        idleInventory(intervals[s], pl.steps.size(), stage.memoryBasis, stage.deviceMemory);
    out[s].stage = stage.stage;
  }
  return out;
}

}  // namespace bubblescope::analysis
