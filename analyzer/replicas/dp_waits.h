#pragma once
// Each replica's waits at the DP sync (result/dp_wait.h), from when every replica's stages finished
// their ops. The job section's blame (dp_sync.h) counts the same waits.
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/dp_wait.h"

namespace bubblescope::analysis {

// For each pipeline (in the order given), its stages' waits at the DP sync; nothing with fewer than
// two replicas.
std::vector<DpWaits> dpWaitsOf(const std::vector<const PipelineTrace*>& pipelines);

}  // namespace bubblescope::analysis
