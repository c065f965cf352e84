#include "reference_engine/executor/mlp_compute.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {

MlpCompute::MlpCompute(const Schedule& schedule, int stage, const MlpShape& shape, uint64_t seed)
    : shape_(shape), seed_(seed), microbatches_(schedule.m) {
  const int last = schedule.virtualStages() - 1;
  for (int chunk = 0; chunk < schedule.v; ++chunk) {
    const int vs = schedule.virtualStage(stage, chunk);
    layers_.emplace(chunk, DenseLayer(shape, seed, vs, /*tanh=*/vs != last));
    if (vs == last) teacher_ = teacherWeights(shape, seed);
  }
}

Tensor MlpCompute::toTensor(const Payload& payload) const {
  const size_t expected = static_cast<size_t>(shape_.batch) * shape_.width;
  if (payload.size() != expected * sizeof(float)) {
    throw std::runtime_error("mlp: received " + std::to_string(payload.size()) +
                             " bytes, expected a " + std::to_string(shape_.batch) + "x" +
                             std::to_string(shape_.width) + " tensor");
  }
  Tensor t(expected);
  std::memcpy(t.data(), payload.data(), payload.size());
  return t;
}

Payload MlpCompute::toPayload(const Tensor& tensor) {
  Payload p(tensor.size() * sizeof(float));
  std::memcpy(p.data(), tensor.data(), p.size());
  return p;
}

Payload MlpCompute::runOp(const PlannedOp& planned, int step, Payload input, int64_t,
                          double scale) {
  const int64_t start = monotonicNs();
  const Op& op = planned.op;
  DenseLayer& layer = layers_.at(op.chunk);
  Tensor out;
  switch (op.kind) {
    case OpKind::F: {
      Tensor x = planned.input ? toTensor(input) : makeInput(shape_, seed_, step, op.mb);
      Tensor y = layer.forward(op.mb, x);
      if (planned.lastVirtualStage) {
        // The loss needs the original input; this stage regenerates it, as a last stage's
        // data loader reads the labels itself.
        const Tensor x0 = makeInput(shape_, seed_, step, op.mb);
        Tensor grad;
        lossSum_ += mseLoss(y, makeTarget(shape_, teacher_, x0), &grad);
        ++lossCount_;
        lossGrad_[op.mb] = std::move(grad);
      } else {
        out = std::move(y);
      }
      break;
    }
    case OpKind::B:
    case OpKind::BW: {
      Tensor dy;
      if (planned.lastVirtualStage) {
        dy = std::move(lossGrad_.at(op.mb));
        lossGrad_.erase(op.mb);
      } else {
        dy = toTensor(input);
      }
      out = layer.backwardInput(op.mb, dy, planned.output.has_value());
      if (op.kind == OpKind::BW) layer.backwardWeight(op.mb);
      break;
    }
    case OpKind::W:
      layer.backwardWeight(op.mb);
      break;
  }
  // A slow stage or jitter stretches the op as it would stretch real kernels.
  if (scale > 1.0) {
    const auto elapsed = static_cast<double>(monotonicNs() - start);
    sleepUntil(start + static_cast<int64_t>(elapsed * scale));
  }
  return out.empty() ? Payload{} : toPayload(out);
}

GradSyncValues MlpCompute::gradSyncContribution() {
  GradSyncValues v;
  for (const auto& [chunk, layer] : layers_) v.gradSquares += layer.gradSquares();
  v.lossSum = lossSum_;
  v.lossCount = lossCount_;
  lossSum_ = 0;
  lossCount_ = 0;
  return v;
}

void MlpCompute::runOptimizer(const GradSyncValues& total) {
  // Gradients are sums over the step's microbatches; the update uses their mean, clipped.
  const double m = microbatches_;
  const double norm = std::sqrt(total.gradSquares) / m;
  const double clip = std::min(1.0, shape_.maxGradNorm / (norm + 1e-6));
  for (auto& [chunk, layer] : layers_) layer.applyGradient(shape_.lr, clip / m);
}

}  // namespace bubblescope::engine
