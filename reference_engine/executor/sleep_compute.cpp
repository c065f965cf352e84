#include "reference_engine/executor/sleep_compute.h"

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {

Payload SleepCompute::runOp(const PlannedOp& op, int, Payload, int64_t costNs, double) {
  const int64_t deadline = monotonicNs() + costNs;
  Payload out;
  if (op.output) out.assign(payloadBytes_, std::byte{0});
  sleepUntil(deadline);
  return out;
}

void SleepCompute::runOptimizer(const GradSyncValues&) {
  sleepUntil(monotonicNs() + optimizerNs_);
}

}  // namespace bubblescope::engine
