#pragma once
// Validity checks for per-stage op orders, generated or observed: every op exactly once on its
// stage, dependencies satisfiable in the given order (no deadlock), activations within the
// schedule's bound. Each problem is one sentence naming the op or stage at fault.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference_engine/schedule/dependencies.h"
#include "reference_engine/schedule/problem.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// All problems of a schedule (at most kMaxProblems, the last one saying how many were left out);
// empty when it is valid. Checks completeness: each (virtual stage, microbatch) runs F, and B and
// W or one BW. The activation bound is checked for named schedules (see inFlightBound()).
std::vector<Problem> validate(const Schedule& schedule);

// Whether the order is a whole step: each (virtual stage, microbatch < m) runs F, and B and W or
// one BW. One problem per op that never runs (capped like validate()), or the shape, range and
// duplicate problems that keep it from being read; empty for a whole step. An observed step that
// lacks ops did not finish (a hang) or was cut by the capture.
std::vector<Problem> missingOps(const Schedule& schedule);

// What must hold for an order to run at all, complete or not (an observed window may lack ops):
// shape, ranges, no duplicates, every awaited op present, no deadlock. The simulator's check.
std::vector<Problem> runnabilityProblems(const Schedule& schedule);

// The runnability checks short of the deadlock walk, for callers that walk the graph themselves:
// when there are none and `graph` is given, it receives the schedule's op DAG.
std::vector<Problem> structuralProblems(const Schedule& schedule, OpGraph* graph = nullptr);

// Names the stuck ops when walkInDependencyOrder() stopped at `position` (see dependency_walk.h);
// empty when every stage ran all its ops.
std::optional<Problem> describeDeadlock(const Schedule& schedule, const OpGraph& graph,
                                        const std::vector<int32_t>& position);

// The most activations a stage of this named schedule holds at once, in chunk activations (one
// microbatch's forward through one chunk; v of them make M_B), as its row of kSchedules
// (schedule_table.h) gives it: 1F1B min(p, m), ZB-V 2 min(p, m), ... Empty for Custom.
std::optional<int> inFlightBound(const Schedule& schedule);

// The most chunk activations each stage holds at once in the given order (F adds one, B or BW
// releases one; W holds only M_W and is not counted).
std::vector<int> peakInFlight(const Schedule& schedule);

inline constexpr size_t kMaxProblems = 20;

}  // namespace bubblescope::engine
