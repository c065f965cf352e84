#pragma once
// Schedule detection: which generator's per-stage order the observed order is.
#include "analyzer/result/result.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

// The first generator of kSchedules (schedule_table.h) whose order equals the observed one for
// the same p, m and v; "custom" if none does.
ScheduleMatch detectSchedule(const engine::Schedule& observed);

}  // namespace bubblescope::analysis
