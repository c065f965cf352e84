#pragma once
// Each stage's step time with only its own measured op costs and ideal ones elsewhere: the T of
// S_s (analysis.md §5), "how slow the step would be if only this stage kept its costs".
//
// A replay per stage costs the step's ops, so all of them cost stages x ops: 10,000 stages
// would take hours (issue 28). The replay is a longest path over the step's op DAG, so an op
// that runs d longer moves the step's end by 0 to d, one that runs d shorter by 0 to -d: a stage
// whose ops together moved by little has its step time within [ideal - shorter, ideal + longer]
// without a replay. Up to kReplayEveryStage stages every stage is replayed; beyond, only those
// whose bounds are wider than a thousandth of the ideal step, and the others take the middle of
// their bounds (at most 0.05% off, under what a ratio printed to two decimals shows). Stages
// whose bounds are that narrow are the many a slow stage or a bad link leaves alone: a job's
// deviations are finite, so few stages have wide bounds and the replays cost about the step's
// ops times those few.
#include <vector>

#include "reference_engine/sim/simulate.h"

namespace bubblescope::analysis {

using engine::TimeNs;

inline constexpr int kReplayEveryStage = 64;

struct StageAlone {
  TimeNs makespan = 0;
  bool replayed = false;  // else the middle of its bounds
};

// `ideal` and `measured`: the step's per-op costs (SimCosts::perOp) with ideal and measured op
// costs, alike in everything else; `idealMakespan` is `ideal`'s replay. Throws what simulate()
// throws, which it cannot for an order `ideal` already ran. `ideal` is lent: each stage's row is
// swapped for its measured one for that stage's replay, and back (a copy a step cost more than
// the replays of a small one), so it is as it was on return, thrown or not.
std::vector<StageAlone> stageAloneMakespans(const engine::PreparedSchedule& order,
                                            engine::SimCosts& ideal,
                                            const engine::SimCosts& measured, TimeNs idealMakespan);

}  // namespace bubblescope::analysis
