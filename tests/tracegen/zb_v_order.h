#pragma once
// The op order of ZB-V on one stage (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24 §6;
// torch's ScheduleZBVZeroBubble), written here from the paper's description, not taken from the
// reference engine: the generator must not share the analyzer's idea of the schedule.
#include <vector>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

// Stage s of p, m microbatches: every (F|B|W, chunk, mb) once. The pattern needs m >= 2p - 1
// (stage 0's warm-up alone is 2p - 1 forwards); for fewer it is laid out for 2p - 1 and the ops
// of the microbatches that do not exist are dropped, which leaves the bubble a short job has.
std::vector<StageOp> zbVOrder(int p, int m, int s);

// 1F1B on stage s: p - s - 1 warm-up forwards, then a forward and a full backward in turn.
std::vector<StageOp> oneF1BOrder(int p, int m, int s);

// The order of `spec`'s schedule on stage s (interleaved 1F1B: interleaved_order.h).
std::vector<StageOp> stageOrder(const JobSpec& spec, int s);

}  // namespace bubblescope::tracegen
