#pragma once
// The op order of interleaved 1F1B on one stage (Narayanan et al., "Efficient Large-Scale Language
// Model Training on GPU Clusters Using Megatron-LM", SC'21 §2.2; Megatron-LM's
// forward_backward_pipelining_with_interleaving, torch's ScheduleInterleaved1F1B), written here
// from the published description, not taken from the reference engine.
#include <vector>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

// Stage s of p with v chunks in the looped layout (chunk c is virtual stage cp + s), m
// microbatches, m a multiple of p: each of the stage's m v forwards and m v full backwards once.
// Forwards go round the chunks in groups of p microbatches (chunk 0's mb 0..p-1, chunk 1's mb
// 0..p-1, ..., then chunk 0's mb p..2p-1), backwards the same with the chunks reversed; after
// (p - s - 1) 2 + (v - 1) p warm-up forwards, a forward and a backward in turn, then the
// backwards left.
std::vector<StageOp> interleavedOrder(int p, int m, int v, int s);

// How many forwards stage s runs before its 1F1B: (p - s - 1) 2 + (v - 1) p, at most all.
int interleavedWarmup(int p, int m, int v, int s);

}  // namespace bubblescope::tracegen
