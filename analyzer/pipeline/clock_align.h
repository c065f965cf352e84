#pragma once
// Clock alignment across the stages of a pipeline. Ranks on different hosts disagree on the time
// by their clocks' skew; a receive cannot end before its send started, so every matched transfer
// bounds the offset between two stages from one side. Offsets are chosen stage by stage along
// the pipeline: zero where the bounds allow it (no correction beyond what causality demands),
// else the bound that excludes zero, moved towards the middle of the feasible interval only as
// far as a bound from a receive that waited for its data allows.
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"

namespace bubblescope::analysis {

// Offsets to add to each stage's times (stage 0 keeps 0); a line in `warnings` for each pair of
// stages whose transfers contradict each other.
std::vector<TimeNs> estimateClockOffsets(const PipelineTrace& pipeline,
                                         std::vector<std::string>* warnings = nullptr);

// Adds `offset` to every time in the ops.
void shiftTimes(RankOps& ops, TimeNs offset);

}  // namespace bubblescope::analysis
