#pragma once
// The sends and receives of stages whose labels name none (torch pipelining labels only its
// compute; most jobs label nothing), from their matched NCCL point-to-point kernels. A send
// carries what an op made: the n-th send to a stage belongs to the n-th op whose output the chunk
// layout sends there (in a chain, a forward's to the next stage and a backward's to the previous;
// in a V, chunk 1's forwards go back towards stage 0). A receive carries what its matched send
// carried: NCCL pairs a pair's n-th send with its n-th receive, in the sender's order, which is
// not the receiver's op order (a V posts the receive of a later forward before that of an earlier
// backward). Only a receive whose send is not read here goes to the n-th op whose input comes
// from that stage. Each takes its op's pass, chunk, step and microbatch. Pure.
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

// A stage of the pipeline whose transfers are read off its kernels: its recognised ops (steps
// cut), the run index of its rank, and its stage.
struct KernelCommStage {
  RankOps* ops = nullptr;
  uint32_t rank = 0;
  int stage = 0;
};

// stageOfRank[r]: the stage of run index r in this pipeline, -1 if it is not in it.
// Adds the comms to each stage's ops and sorts them by start. `layout`: the pipeline's p, v and
// chunk layout.
void commsFromKernels(const std::vector<KernelCommStage>& stages, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout);

// One stage alone: its receives go by its own op order.
void commsFromKernels(RankOps& ops, uint32_t rank, int stage, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout);

}  // namespace bubblescope::analysis
