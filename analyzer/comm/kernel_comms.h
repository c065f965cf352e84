#pragma once
// The sends and receives of a stage whose labels name none (torch pipelining labels only its
// compute; most jobs label nothing), from its matched NCCL point-to-point kernels: the n-th send
// to a stage belongs to the n-th op whose output the chunk layout sends there (in a chain, a
// forward's to the next stage and a backward's to the previous; in a V, chunk 1's forwards go
// back towards stage 0), the n-th receive from it to the n-th op whose input comes from there;
// each takes that op's pass, chunk, step and microbatch. Pure.
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

// stageOfRank[r]: the stage of run index r in this pipeline, -1 if it is not in it.
// Adds the comms to `ops` (the stage's recognised ops, with steps cut) and sorts them by start.
// `layout`: the pipeline's p, v and chunk layout.
void commsFromKernels(RankOps& ops, uint32_t rank, int stage, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout);

}  // namespace bubblescope::analysis
