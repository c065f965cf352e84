#pragma once
// A pipeline timeline as text, one row per stage: each op drawn with its kind letter and
// microbatch (and chunk) over the columns its time covers, idle as '.'. Pure: it renders any
// per-stage (op, start, end) lists, simulated or measured, so the demo draws both the same way.
#include <string>
#include <vector>

#include "reference_engine/schedule/op.h"
#include "reference_engine/sim/costs.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::engine {

struct TimedOp {
  Op op;
  TimeNs start = 0;
  TimeNs end = 0;
};

struct TimelineStyle {
  int width = 100;         // whole line, stage label included
  bool showChunk = false;  // "F3.1" rather than "F3" (for schedules with v > 1)
  // Whether time starts at 0 (a simulation) or at the earliest op (a measured trace).
  bool fromZero = true;
};

// Rows "s0 |F0--F1--B0----...|" and a time axis. An op narrower than its label drops the chunk,
// then the microbatch ("F1-", "F-"); one narrower than a column marks that column with its kind
// letter if nothing else does, so folded runs stay visible.
std::string renderTimeline(const std::vector<std::vector<TimedOp>>& stages,
                           const TimelineStyle& style);

// A simulated schedule as per-stage timed ops, for renderTimeline().
std::vector<std::vector<TimedOp>> timedOps(const Schedule& schedule, const SimResult& result);

}  // namespace bubblescope::engine
