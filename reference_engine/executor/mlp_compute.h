#pragma once
// The mlp compute mode: this stage's layers of the model in mlp.h, really trained. Slow-stage and
// jitter faults pad each op's measured time by their factor, so they apply to real compute too.
#include <map>

#include "reference_engine/executor/compute.h"
#include "reference_engine/executor/mlp.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

class MlpCompute : public Compute {
 public:
  MlpCompute(const Schedule& schedule, int stage, const MlpShape& shape, uint64_t seed);

  Payload runOp(const PlannedOp& op, int step, Payload input, int64_t costNs,
                double scale) override;
  GradSyncValues gradSyncContribution() override;
  void runOptimizer(const GradSyncValues& total) override;

 private:
  Tensor toTensor(const Payload& payload) const;
  static Payload toPayload(const Tensor& tensor);

  MlpShape shape_;
  uint64_t seed_;
  int microbatches_;
  std::map<int, DenseLayer> layers_;  // by chunk
  std::vector<float> teacher_;        // on the stage holding the last layer
  std::map<int, Tensor> lossGrad_;    // by microbatch, on the stage holding the last layer
  double lossSum_ = 0;
  int lossCount_ = 0;
};

}  // namespace bubblescope::engine
