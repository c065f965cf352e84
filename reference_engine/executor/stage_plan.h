#pragma once
// What each op of a stage exchanges with other ops, derived from the schedule's chunk layout:
// F of virtual stage k needs the activation of F on k-1 and feeds F on k+1; B (or BW) of k needs
// the gradient of B on k+1 and feeds B on k-1; W stays on its stage. Pure: no I/O.
#include <optional>
#include <utility>
#include <vector>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// The other end of a data dependency: an op on (stage, chunk). Same stage = a local hand-off
// (the turn of a V, or every edge when p = 1), which needs no channel.
struct Endpoint {
  int stage = 0;
  int chunk = 0;
  bool operator==(const Endpoint&) const = default;
};

struct PlannedOp {
  Op op;
  int virtualStage = 0;
  std::optional<Endpoint> input;   // where its activation (F) or gradient (B/BW) comes from
  std::optional<Endpoint> output;  // where its result goes
  bool firstOfMicrobatch = false;  // the stage's first op of op.mb in a step (fault sites)
  bool lastVirtualStage = false;   // computes the loss
};

std::vector<PlannedOp> planStage(const Schedule& schedule, int stage);

// The neighbouring stage pairs (a < b) that need a channel: every pair the schedule's data flows
// between (including the ring edge p-1 → 0 of interleaved), plus the chain s, s+1 that grad_sync
// runs on.
std::vector<std::pair<int, int>> channelPairs(const Schedule& schedule);

}  // namespace bubblescope::engine
