#pragma once
// The last touch on a rank whose ops were inferred: its steps (from markers, else from the
// collectives that end each step, else from the microbatch count that repeats: step_pattern.h)
// and its microbatches, numbered in order.
#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// `microbatches`: forwards per step as the pipeline's first stage shows them (0: unknown).
void cutInferredSteps(const traces::RankTrace& t, RankOps& ops, int microbatches);

}  // namespace bubblescope::analysis
