#pragma once
// A simulation as JSON, every number of it: schedule, costs, per-stage busy/idle/peak memory,
// bubble rate, every op's start and end (integer ns), and the paper's prediction for a named
// schedule. Streamed as it is written (traces/json), one line; the shape is at writeSimulationJson.
#include <ostream>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/costs.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::engine {

// {"schedule": "ZB-H1", "p", "m", "v", "layout": "looped"|"v",
//  "costs": {"f_ns", "b_ns", "w_ns", "bw_ns", "per_stage": [...] (if set), "per_op": bool,
//            "transfer_ns", "memory": {"m_b", "m_w"}},
//  "makespan_ns", "bubble_rate", "bubble_ns", "idle_fraction", "longest_stage", "peak_memory",
//  "paper": {"bubble_formula", "bubble_ns", "conditions", "conditions_hold", "memory_formula",
//            "peak_activations_m_b"} (a named schedule's, at costs.perKind),
//  "stages": [{"stage", "busy_ns", "idle_ns", "first_start_ns", "last_end_ns", "span_ns",
//              "peak_memory", "ops": [{"kind", "mb", "chunk", "ready_ns", "start_ns",
//              "end_ns"}]}]}
// Members in the byte order of their names (nlohmann's dump of the same document); no newline.
void writeSimulationJson(const Schedule& schedule, const SimCosts& costs, const SimResult& result,
                         std::ostream& out);

}  // namespace bubblescope::engine
