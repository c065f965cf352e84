#pragma once
// Schedule detection: which generator's per-stage order the observed order is.
#include "analyzer/result/result.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

// The generator (GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-H2, ZB-V) whose order equals the
// observed one for the same p, m and v; "custom" if none does.
ScheduleMatch detectSchedule(const engine::Schedule& observed);

}  // namespace bubblescope::analysis
