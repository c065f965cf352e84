#pragma once
// Where each rank of a run stopped, from its trace alone: how it ended (closed cleanly, stopped,
// died), the ranges still open (schema 2's open_ranges), the step and the last op it finished, and
// the receive it was blocked in (any framework's receive range the recognizer's rule sets know:
// "RECV B mb=3 from=2", "PP:2RECV_B3", "forward-recv", "RecvGrad"; receive_ranges.h). Pure: no I/O.
#include <vector>

#include "analyzer/hang/hang.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis::hang {

// A rank whose trace ends without a clean exit is taken as dead when the agent saw it end by a
// crash signal (meta extra.end_signal: SIGABRT...), or when its last sign of life is this long
// before the latest rank's.
inline constexpr TimeNs kDeadGapNs = 1'000'000'000;
// A rank with nothing open whose last range is a receive this long, ended as its trace ended with
// nothing run after it, unwound out of that wait (its peer vanished): it counts as waiting there.
inline constexpr TimeNs kUnwoundWaitNs = 500'000'000;

// One RankStop per trace, in the run's order; receive waits are resolved to the rank of the stage
// they name, else of the previous stage (activations) or the next (gradients), in the same
// data-parallel replica.
std::vector<RankStop> stopPoints(const traces::Run& run);

// The ranges of `t` still open when it was last committed (those in open_ranges that were not
// also drained as closed), outermost (earliest) first: indexes into t.openRanges-> RankStop::open
// holds their names in this order; the viewer draws them from their starts.
std::vector<size_t> stillOpenRanges(const traces::RankTrace& t);

}  // namespace bubblescope::analysis::hang
