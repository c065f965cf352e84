#pragma once
// Steps of a stage whose trace marks none (no ProfilerStep#N, no `step N`, no optimizer range):
// a training step ends in collectives (the gradient all-reduce, the grad norm) before the
// optimizer, so a forward that follows a collective, with none between it and the op before it
// otherwise, opens the next step. Pure.
#include <vector>

#include "analyzer/recognize/recognized.h"

namespace bubblescope::analysis {

// `collectives`: when the stage's collective calls ran on the host, sorted by start; `posts`:
// when it posted its point-to-point calls, sorted. Adds StepMarkers (numbered from 0) to `ops`
// when the pattern shows at least two steps; leaves it alone otherwise.
void stepsFromCollectives(RankOps& ops, const std::vector<Interval>& collectives,
                          const std::vector<TimeNs>& posts);

}  // namespace bubblescope::analysis
