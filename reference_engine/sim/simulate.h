#pragma once
// The reference simulator (analysis.md §5): runs any per-stage op order, generated or observed
// in a trace, as a discrete-event pass over the op DAG and reports when every op ran, each
// stage's busy and idle time, the bubble rate and peak activation memory. Pure, no I/O: the
// analyzer's what-if calls it thousands of times, so it is O(ops) with no allocation per op.
//
// Dependencies: F(vs, mb) starts after F(vs-1, mb); B or BW(vs, mb) after B/BW(vs+1, mb), on the
// last virtual stage after its own F; W after its own B; each stage runs its ops one at a time in
// the given order. A dependency between two stages adds SimCosts::transfer. Every stage is free
// from time 0; an op starts as soon as its stage is free and its input has arrived.
#include <cstdint>
#include <vector>

#include "reference_engine/schedule/dependencies.h"
#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/costs.h"

namespace bubblescope::engine {

// When an op ran. When its input was there is readyTimes': held in every replay, it was a third
// of each (three replays of a step of 10,000 stages: 3.8 MB, issue 28), and only `simulate`'s
// JSON shows it.
struct OpTiming {
  TimeNs start = 0;  // max(its input's ready time, end of the stage's previous op)
  TimeNs end = 0;
};

struct StageTimeline {
  std::vector<OpTiming> ops;  // in the order of schedule.stages[s]
  TimeNs busy = 0;            // sum of its ops' durations
  TimeNs idle = 0;            // makespan - busy (the stage is counted from time 0)
  TimeNs firstStart = 0;      // 0 for a stage without ops
  TimeNs lastEnd = 0;
  int64_t peakMemory = 0;  // most activation memory held at once, in ActivationMemory's unit

  // First op start to last op end: the per-stage "execution time" of the ZB paper.
  TimeNs span() const { return lastEnd - firstStart; }
};

struct SimResult {
  std::vector<StageTimeline> stages;
  TimeNs makespan = 0;   // end of the last op on any stage
  int longestStage = 0;  // the stage with the longest span (the lowest index on ties)
  // The ZB paper's bubble rate: 1 - busy/span of the longest stage. With the same costs on every
  // stage this is 1 - m(T_F+T_B+T_W)/span, the paper's (cost - m(T_F+T_B+T_W))/cost.
  double bubbleRate = 0;
  // Share of all stages' time [0, makespan] spent idle: sum(idle) / (p * makespan).
  double idleFraction = 0;
  int64_t peakMemory = 0;  // most over all stages

  // The longest stage's idle inside its span: the "bubble" of the ZB paper's Table 1.
  TimeNs bubble() const {
    const auto& s = stages[longestStage];
    return s.span() - s.busy;
  }
};

// A schedule checked and turned into its op DAG once, to simulate under many cost models: the
// what-if analysis runs one observed order with ideal, per-stage and measured costs. Refers to
// the schedule, which must outlive it.
class PreparedSchedule {
 public:
  // Throws ScheduleError, naming the op, for an order that cannot run: stage count, an op out of
  // range or repeated, or an op waiting for one that no stage runs. Ops may be missing (an
  // observed window, a forward-only order) as long as every awaited op is there. A deadlock is
  // found by simulate().
  explicit PreparedSchedule(const Schedule& schedule);
  PreparedSchedule(Schedule&&) = delete;  // would dangle

  const Schedule& schedule() const { return *schedule_; }
  const OpGraph& graph() const { return graph_; }

 private:
  const Schedule* schedule_;
  OpGraph graph_;
};

// Simulates one step. Throws ScheduleError (one sentence naming the stuck ops) for an order that
// deadlocks, and CostError for negative costs or cost tables of the wrong shape.
SimResult simulate(const PreparedSchedule& schedule, const SimCosts& costs);
// The same, reusing `out`'s storage: no allocation when called again for the same schedule.
void simulate(const PreparedSchedule& schedule, const SimCosts& costs, SimResult& out);
// One-off: prepares the schedule and simulates it.
SimResult simulate(const Schedule& schedule, const SimCosts& costs);

// When each op's input (from another op) was there in `result`, a simulation of `schedule` with
// `costs`, transfer included; 0 if it has none. Per stage, in the order of schedule.stages[s].
std::vector<std::vector<TimeNs>> readyTimes(const PreparedSchedule& schedule, const SimCosts& costs,
                                            const SimResult& result);

}  // namespace bubblescope::engine
