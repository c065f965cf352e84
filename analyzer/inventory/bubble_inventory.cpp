#include "analyzer/inventory/bubble_inventory.h"

#include "analyzer/inventory/idle_inventory.h"
#include "analyzer/result/idle_tally.h"

namespace bubblescope::analysis {

std::vector<StageInventory> bubbleInventory(const PipelineResult& pl) {
  // A summary's analysis keeps every gap as a bubble, or tallies them as it goes, and only the
  // listed gaps whole.
  std::vector<IdleTally> gathered;
  if (pl.bubbleTallies.empty()) {
    gathered.resize(pl.stages.size());
    if (pl.gapIndex.empty()) {
      for (const Gap& g : pl.gaps) {
        addBubble(gathered, pl.steps.size(), g.stage, g.step, g.idle, g.freeMemory);
      }
    } else {
      for (const Bubble& b : pl.bubbles) {
        addBubble(gathered, pl.steps.size(), b.stage, b.step, b.idle, b.freeMemory);
      }
    }
  }
  const std::vector<IdleTally>& tallies = pl.bubbleTallies.empty() ? gathered : pl.bubbleTallies;
  std::vector<StageInventory> out(pl.stages.size());
  for (size_t s = 0; s < out.size() && s < tallies.size(); ++s) {
    const StageResult& stage = pl.stages[s];
    static_cast<IdleInventory&>(out[s]) =
        idleInventory(tallies[s], pl.steps.size(), stage.memoryBasis, stage.deviceMemory);
    out[s].stage = stage.stage;
  }
  return out;
}

}  // namespace bubblescope::analysis
