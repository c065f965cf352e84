#pragma once
// The activation memory a per-stage op order holds: per stage, the most microbatches' activations
// held at once. The what-if table's memory column; each row of kSchedules (schedule_table.h) gives
// its named schedule's as a formula, which the tests check against this count.
#include <vector>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// Per stage, in M_B: one microbatch's activations for the whole stage (a chunk's forward holds
// 1/v of it). Each is held from its forward until the last backward pass that reads it ends: a
// fused BW, or W. B frees nothing: W still reads the layer inputs, M_W, which the ZB
// implementation counts at 32sbh of M_B's 34sbh + 5as^2b (sail-sg/zero-bubble-pipeline-
// parallelism, zb.py: mem_w = -32h), all of M_B but the attention scores that flash attention
// does not keep. So the count is an upper bound for the zero-bubble family, and exact otherwise.
// (validate.h's peakInFlight counts as the ZB paper's Table 1 does, M_W = 0.)
std::vector<double> heldActivations(const Schedule& schedule);

}  // namespace bubblescope::engine
