#pragma once
// Steps of a stage whose trace marks none (no ProfilerStep#N, no `step N`, no optimizer range):
// a training step ends in collectives (the gradient all-reduce, the grad norm) before the
// optimizer, so a forward that follows a collective, with none between it and the op before it
// otherwise, opens the next step; without collectives, the microbatch count that repeats does.
// Pure.
#include <vector>

#include "analyzer/recognize/recognized.h"

namespace bubblescope::analysis {

// `collectives`: when the stage's collective calls ran on the host, sorted by start; `posts`:
// when it posted its point-to-point calls, sorted. Adds StepMarkers (numbered from 0) to `ops`
// when the pattern shows at least two steps; leaves it alone otherwise.
void stepsFromCollectives(RankOps& ops, const std::vector<Interval>& collectives,
                          const std::vector<TimeNs>& posts);

// No markers and no collectives either (a job that syncs nothing between steps, or whose sync
// the trace does not hold): the pattern repeats. On the first stage every microbatch of a step is
// in flight until the step's last backward, so the count of forwards not yet matched by a
// backward returns to zero exactly at each step's end. `kinds`: the first stage's ops in order.
// Returns the forwards per step when every such run holds the same number and there are at least
// two, else 0.
int microbatchesPerStep(const std::vector<OpKind>& kinds);

// Cuts `ops` (one stage's) into steps of `m` microbatches: after every m-th backward the next op
// opens a step, with the receive of its input when that was posted first. `receives`: when the
// stage posted its receives, sorted (not its sends: the last backward's gradients are sent after
// it, in its own step). Adds StepMarkers as stepsFromCollectives does, when there are two or
// more.
void stepsByMicrobatchCount(RankOps& ops, int m, const std::vector<TimeNs>& receives);

}  // namespace bubblescope::analysis
