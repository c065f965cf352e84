#pragma once
// Each replica's waits at the DP sync (result/dp_wait.h), from when every replica's stages finished
// their ops. The job section's blame (dp_sync.h) counts the same waits.
//
// In two parts, so that a replica analysed on another process sends only its arrivals (a time per
// step and stage), not its ops: each replica's arrivals, then the waits of every replica from them.
#include <cstdint>
#include <map>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/dp_wait.h"

namespace bubblescope::analysis {

// When each stage of one replica finished its ops in each of its steps.
struct ReplicaArrivals {
  int dpRank = 0;
  int p = 0;
  // Per step number, per stage: the end of its last op (INT64_MIN: no op).
  std::map<int64_t, std::vector<TimeNs>> byStep;
};

ReplicaArrivals arrivalsOf(const PipelineTrace& pipeline);

// For each replica (in the order given), its stages' waits at the DP sync; nothing with fewer than
// two replicas.
std::vector<DpWaits> dpWaitsFrom(const std::vector<ReplicaArrivals>& replicas);

// The same from the pipelines themselves.
std::vector<DpWaits> dpWaitsOf(const std::vector<const PipelineTrace*>& pipelines);

}  // namespace bubblescope::analysis
