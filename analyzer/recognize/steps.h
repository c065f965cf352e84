#pragma once
// Cuts one rank's ops into training steps: by step markers (`step N`, ProfilerStep#N, ...) when
// the trace has them, else where the microbatch counter wraps (F of microbatch 0, chunk 0 again),
// or, for labels without microbatch ids, after each optimizer step.
#include "analyzer/recognize/recognized.h"

namespace bubblescope::analysis {

// Sets `step` (an index into ops.steps) on every op and transfer; creates the markers when the
// trace has none. Work outside every step keeps step -1.
void cutSteps(RankOps& ops);

// For rule sets without microbatch ids: numbers ops by their order in each step, per kind and
// chunk (every schedule runs each kind's microbatches in order), and transfers likewise.
void numberMicrobatchesByOrder(RankOps& ops);

}  // namespace bubblescope::analysis
