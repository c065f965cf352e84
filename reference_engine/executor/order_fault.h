#pragma once
// The --mismatch fault: one stage runs an op later than the schedule says, far enough that its
// neighbour's order disagrees (the neighbour needs that op's output before it can produce what the
// stage now waits for), so the two block on each other as a framework's ranks do after a schedule
// bug. Pure: which op moves where, and the resulting per-stage order.
#include <string>
#include <vector>

#include "reference_engine/executor/faults.h"
#include "reference_engine/executor/stage_plan.h"

namespace bubblescope::engine {

struct MismatchEffect {
  int stage = 0;
  int index = 0;       // the late op's position in the schedule's order of its stage
  int afterIndex = 0;  // it now runs right after the op at this position
  Op op, after;
  int peer = 0;            // the neighbour that waits for the late op's output
  std::string stageWaits;  // where the stage blocks: "RECV B mb=3 from=2"
  std::string peerWaits;   // where the neighbour blocks: "RECV F mb=4 from=1"
};

// Throws FaultSpecError (naming --mismatch) when moving the op would deadlock nothing: its output
// stays on the stage, or no later op of the stage needs the neighbour to have received it.
MismatchEffect planMismatch(const Schedule& schedule, const Mismatch& mismatch);

// The stage's order with the mismatches that concern it applied (planStage() when none do).
std::vector<PlannedOp> plannedOrder(const Schedule& schedule, int stage, const Faults& faults);

}  // namespace bubblescope::engine
