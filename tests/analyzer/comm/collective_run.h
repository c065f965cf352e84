#pragma once
// Runs of all-reduces on one communicator, built call by call, for the tests of what the analysis
// makes of a collective some of whose members the run does not hold (comm_match's partial marks,
// the utilization's wait figures, the reports that say "2 of 128 members traced").
#include "traces/model/trace.h"

namespace bubblescope::testing {

inline constexpr TimeNs kCollectiveMs = 1'000'000;

struct CollectiveRunSpec {
  int traced = 2;     // ranks in the run: global ranks 0 .. traced-1
  int world = 128;    // the job's world size as every trace records it (0: unknown)
  int commSize = -1;  // the communicator's size as the calls give it (-1: they do not)
  int calls = 1;      // all-reduces per rank, one every 100 ms
};

// Each rank computes 10 ms, then posts an all-reduce (sequence number 1, 2, ...) whose kernel
// starts 4 ms later on each higher rank and ends at 20 ms on all: each waits for the last rank,
// rank r 4 x (traced - 1 - r) ms per call (with two traced: rank 0 4 ms, rank 1 none).
traces::Run collectiveRun(const CollectiveRunSpec& spec);

}  // namespace bubblescope::testing
