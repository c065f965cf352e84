#pragma once
// The sends and receives of a stage whose labels name none (torch pipelining labels only its
// compute; most jobs label nothing), from its matched NCCL point-to-point kernels: a send to the
// next stage carries activations (F), one to the previous stage gradients (B); the n-th of each
// belongs to the n-th op that makes or consumes it (forwards for activations, backwards for
// gradients), whose step and microbatch it takes. Pure.
#include <vector>

#include "analyzer/comm/comm_match.h"

namespace bubblescope::analysis {

// stageOfRank[r]: the stage of run index r in this pipeline, -1 if it is not in it.
// Adds the comms to `ops` (the stage's recognised ops, with steps cut) and sorts them by start.
void commsFromKernels(RankOps& ops, uint32_t rank, int stage, const CommMatches& matches,
                      const std::vector<int>& stageOfRank);

}  // namespace bubblescope::analysis
