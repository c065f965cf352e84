#pragma once
// What removing a root cause would win in one step (issue 26, item 4), by the reference simulator:
// the step's replay with measured op costs (T_ops, which has no stalls) against the same replay
// with the cause taken out. An op that ran long is set to its ideal cost (jitter); an imbalanced
// stage has each of its ops shortened by its stage's excess of that kind's mean over the ideal,
// its op-to-op variation kept (imbalance). A stall is not in the replay at all: what it wins is
// its share of the step's measured time beyond the replay (root_causes.h, addStallWins).
#include <map>

#include "analyzer/idle/scenarios.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

struct StepReplay {
  const engine::PreparedSchedule& order;  // observedSchedule(pipeline, step), made a DAG
  const MeanCosts& costs;
  // The step's costs under Scenario::Ops (stepCosts), and the step simulated with them. Each
  // cause's stage is changed in opCosts, replayed and set back: a copy of a step of 10,000 stages'
  // costs, and a result of its own, were 6 MB at the analysis' peak (issue 28).
  engine::SimCosts& opCosts;
  const engine::SimResult& measuredCosts;
  engine::SimResult& scratch;  // any room: each replay is made in it
  TimeNs measured = 0;         // the step's measured time
  TimeNs replayed = 0;         // measuredCosts' makespan plus the step's own tail
};

// Adds to `wins` what removing each of the step's causes wins in it; `idleInStep` holds the
// causes of the step's gaps with the avoidable idle each caused in it. A cause with no place
// (no stage or op to change) wins nothing.
void addStepWins(const StepReplay& step, const std::map<CauseId, TimeNs>& idleInStep,
                 std::map<CauseId, TimeNs>& wins);

}  // namespace bubblescope::analysis
