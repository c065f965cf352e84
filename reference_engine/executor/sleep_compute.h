#pragma once
// The sleep compute mode: each op waits for its cost and passes on a payload of the configured
// size. Deterministic and CPU-free, so eight stages run on two cores.
#include <cstddef>

#include "reference_engine/executor/compute.h"

namespace bubblescope::engine {

class SleepCompute : public Compute {
 public:
  SleepCompute(size_t payloadBytes, int64_t optimizerNs)
      : payloadBytes_(payloadBytes), optimizerNs_(optimizerNs) {}

  Payload runOp(const PlannedOp& op, int step, Payload input, int64_t costNs,
                double scale) override;
  GradSyncValues gradSyncContribution() override { return {}; }
  void runOptimizer(const GradSyncValues& total) override;

 private:
  size_t payloadBytes_;
  int64_t optimizerNs_;
};

}  // namespace bubblescope::engine
