#pragma once
// Traces of a pipeline job made up in memory, with exactly known timing: a test double for the
// analyzer's unit tests (the real agent-recorded engine runs are the integration tests). It
// replays a schedule op by op, as the engine does (receive, then compute, sends on a comm thread,
// a gradient sync and optimizer after each step), with faults injected at known places, and
// writes NVTX ranges in the bubblescope convention.
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "traces/model/trace.h"

namespace bubblescope::testing {

struct SyntheticJob {
  engine::Schedule schedule;
  // Duration of an op on a stage (default: 2 ms F, 2 ms B, 2 ms W, 4 ms BW).
  std::function<TimeNs(int stage, int step, const engine::Op& op)> cost;
  int steps = 3;
  TimeNs transfer = 100'000;  // producer end to consumer input
  TimeNs gradSync = 300'000;  // after the last stage joins
  TimeNs optimizer = 500'000;
  TimeNs start = 1'700'000'000'000'000'000;
  // Extra wait before an op although it is ready: (stage, step, mb, kind) -> delay; with
  // `hostBusy` the host is busy in a `dataloader` range meanwhile.
  std::map<std::tuple<int, int, int, engine::OpKind>, TimeNs> stall;
  bool hostBusy = false;
  std::map<int, TimeNs> commDelay;  // sender stage -> extra transfer time of its messages
  std::vector<TimeNs> clockSkew;    // per stage, added to every recorded time
  // Live-tensor samples (Kineto's Total Allocated; no reserve): the weights from the start, and
  // each microbatch's activations for the stage (1/v per chunk) from its F's start to its W's or
  // BW's end. 0: the trace records no memory.
  int64_t activationBytes = 0;
  int64_t weightBytes = 0;
};

traces::Run synthesize(const SyntheticJob& job);

}  // namespace bubblescope::testing
