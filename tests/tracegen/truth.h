#pragma once
// What really happened in a generated job, computed from the execution model alone (no analyzer
// code): per stage and step the span split into compute, the transfer part of communication,
// other busy and idle (waiting inside an NCCL kernel is idle), and the slowdown S against the
// same job run with every op at its kind's mean cost, transfers at their median and no faults.
#include <utility>
#include <vector>

#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

struct StageTruth {
  TimeNs span = 0, compute = 0, comm = 0, other = 0, idle = 0;  // summed over steps
  // Its bubbles, step by step: the idle of each hole between its compute and optimizer kernels
  // within the step's span (transfer time inside a hole left out; waiting in NCCL is idle).
  std::vector<TimeNs> bubbles;
  std::vector<std::pair<TimeNs, TimeNs>> bubbleSpans;  // each bubble's hole, in true time
};

struct Truth {
  std::vector<StageTruth> stages;                 // of replica 0 (the only one but with DP)
  std::vector<TimeNs> measuredSteps, idealSteps;  // per step: the job's span
  double measuredStep = 0, idealStep = 0;         // means
  double slowdown = 1;                            // S
  // Per late launch of the spec: how long the op's first kernel started after it was ready.
  std::vector<TimeNs> hostStall;
};

// The spec of the ideal run: every op at its kind's mean cost over all stages, steps and replicas,
// transfers at their median, no late launch, p2p posts fused (ZB-V, interleaved: each message on a
// stream of its own, unless one stream serves both peers).
JobSpec idealSpec(const JobSpec& spec);

Truth truthOf(const JobTimeline& job);

}  // namespace bubblescope::tracegen
