#pragma once
// The pipelines of a job nobody labelled, read off its NCCL point-to-point traffic: ranks whose
// send/receive peers form a chain are the stages of one pipeline, in chain order, stage 0 being
// the end that sends first (activations flow forward before gradients flow back). Pure.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

// One matched transfer between two ranks (indexes into the run), posted at `posted` by the sender.
struct P2pEdge {
  uint32_t from = 0, to = 0;
  TimeNs posted = 0;
};

struct P2pChains {
  std::vector<std::vector<uint32_t>> chains;  // each: run indexes in stage order, 2 or more
  int notChains = 0;  // connected sets whose peers do not form a simple chain (a ring, a tree)
};

P2pChains p2pChains(const std::vector<P2pEdge>& edges, size_t ranks);

}  // namespace bubblescope::analysis
