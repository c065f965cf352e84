#pragma once
// What the literature predicts for each named schedule, shown beside the simulated values: the
// bubble (idle of the longest stage inside its span) and peak activation memory, from the
// schedule's row of kSchedules (reference_engine/schedule/schedule_table.h).
#include <optional>

#include "reference_engine/schedule/paper_prediction.h"
#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/costs.h"

namespace bubblescope::engine {

// The prediction for a named schedule with the same costs on every stage; empty for Custom.
std::optional<PaperPrediction> paperPrediction(const Schedule& schedule, const KindCosts& costs);

}  // namespace bubblescope::engine
