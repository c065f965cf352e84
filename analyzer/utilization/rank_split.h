#pragma once
// One rank's device timeline cut into steps and split by what ran (compute first, then a
// transfer, then copies, then waiting inside NCCL, else idle), with its idle gaps. Pure.
#include <cstdint>
#include <functional>
#include <vector>

#include "analyzer/result/utilization_result.h"

namespace bubblescope::analysis {

struct DeviceSpan {
  TimeNs start = 0, end = 0;
  TimeNs launch = INT64_MIN;  // the host's launch call, when known: assigns it to its step
};

struct CommSpan : DeviceSpan {
  TimeNs transferStart = 0;  // [start, transferStart) waits for peers
  TracedMembers members;     // of a collective with members not traced: its wait is partial
};

struct CopySpan : DeviceSpan {
  const char* direction = "unknown";  // copyDirection() (copy_traffic.h)
  uint64_t bytes = 0;
};

struct RankDevice {
  std::vector<DeviceSpan> compute;
  std::vector<CopySpan> copies;  // memcpys and memsets
  std::vector<CommSpan> comms;
  std::vector<Interval> stepMarkers;  // host ranges of the steps, sorted; empty: one step
  std::vector<int64_t> stepNumbers;   // per marker
};

// One idle gap of a step: handed to the caller as it is found, never held, since a trace of a
// few million kernels has a few million gaps (an IdleGap each was 2.5 GB at 15.7 M events).
struct StepGap {
  size_t step = 0;     // index into RankSplit::steps
  int64_t number = 0;  // the step's own number
  TimeNs start = 0, end = 0;
};
using GapSink = std::function<void(const StepGap&)>;

struct RankSplit {
  std::vector<UtilizationStep> steps;
  // Where copies ran while nothing above did, inside the steps' windows: the otherBusy of every
  // step, kept so the copies can be told apart by direction (copy_traffic.h).
  std::vector<Interval> copiesAlone;
};

// Each idle gap goes to `onGap` (when given) in time order.
RankSplit splitRank(const RankDevice& device, const GapSink& onGap = {});

}  // namespace bubblescope::analysis
