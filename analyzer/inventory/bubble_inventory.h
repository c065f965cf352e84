#pragma once
// The bubble inventory (analysis.md §8) of a pipeline, for jobs that would fill bubbles with other
// work (PipeFill): per stage, its gaps' idle as an inventory of idle intervals (idle_inventory.h).
// Pure: a view of a PipelineResult (whose gaps carry the free memory stage_memory.h found).
#include <vector>

#include "analyzer/result/inventory_result.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Bubbles: each gap's idle (transfers inside it left out).
std::vector<StageInventory> bubbleInventory(const PipelineResult& pipeline);

}  // namespace bubblescope::analysis
