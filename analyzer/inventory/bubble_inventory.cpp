#include "analyzer/inventory/bubble_inventory.h"

#include "analyzer/inventory/idle_inventory.h"

namespace bubblescope::analysis {

std::vector<StageInventory> bubbleInventory(const PipelineResult& pl) {
  std::vector<std::vector<IdleInterval>> intervals(pl.stages.size());
  for (const Gap& g : pl.gaps) {
    if (g.idle <= 0 || g.stage < 0 || static_cast<size_t>(g.stage) >= intervals.size()) continue;
    const bool inSteps = g.step >= 0 && static_cast<size_t>(g.step) < pl.steps.size();
    intervals[static_cast<size_t>(g.stage)].push_back(
        {inSteps ? g.step : -1, g.idle, g.freeMemory});
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
