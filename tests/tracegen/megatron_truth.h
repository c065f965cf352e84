#pragma once
// What really happened in a generated Megatron job, from the execution model alone (no analyzer
// code): the job's step time, and the step time of the ideal run where every op takes the
// job-wide mean of its kind's TP-group spans (all replicas, stages and steps) with no faults,
// transfers and the tail as measured. S = measured / ideal, as issue 15 defines it.
#include "tests/tracegen/megatron_execution.h"

namespace bubblescope::tracegen {

struct MegatronTruth {
  double measuredStep = 0, idealStep = 0;  // ns, means over steps
  double slowdown = 1;
  TimeNs meanF = 0, meanB = 0;  // the ideal costs
};

MegatronTruth megatronTruth(const MegatronTimeline& timeline);

}  // namespace bubblescope::tracegen
