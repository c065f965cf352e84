#pragma once
// The what-if table (analysis.md §6): the step time the same job would have with balanced
// stages, with each schedule of the literature at the measured op costs, and with twice the
// microbatches (same global batch), all from the reference simulator; and the activations each
// holds per stage, counted on its order (held_activations.h).
#include <vector>

#include "analyzer/idle/scenarios.h"
#include "analyzer/result/result.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

struct WhatIfInput {
  int p = 0, m = 0;
  ScheduleMatch schedule;
  engine::Schedule observed;  // the order of a finished step: what the measured job holds
  MeanCosts costs;
  TimeNs measuredStep = 0;
  TimeNs idealStep = 0;  // T_ideal: this schedule, balanced stages, no stalls
  TimeNs tail = 0;       // gradient sync + optimizer, kept as measured
  TimeNs transfer = 0;
};

std::vector<WhatIf> whatIfTable(const WhatIfInput& in);

}  // namespace bubblescope::analysis
