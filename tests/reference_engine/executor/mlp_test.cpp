// The mlp compute mode's model: gradients are right, the B/W split changes nothing, training
// lowers the loss.
#include "reference_engine/executor/mlp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reference_engine/executor/mlp_compute.h"
#include "reference_engine/executor/stage_plan.h"

namespace bubblescope::engine {
namespace {

const MlpShape kSmall{6, 3, 0.5, 1.0};

// Loss of a two-layer stack on microbatch 0 of step 0.
double twoLayerLoss(DenseLayer& l0, DenseLayer& l1, Tensor* dOut = nullptr) {
  const auto teacher = teacherWeights(kSmall, 5);
  Tensor x = makeInput(kSmall, 5, 0, 0);
  Tensor y = l1.forward(0, l0.forward(0, x));
  return mseLoss(y, makeTarget(kSmall, teacher, x), dOut);
}

TEST(Mlp, WeightGradientMatchesFiniteDifferences) {
  DenseLayer l0(kSmall, 5, 0, true), l1(kSmall, 5, 1, false);
  Tensor dOut;
  twoLayerLoss(l0, l1, &dOut);
  Tensor d1 = l1.backwardInput(0, dOut);
  l1.backwardWeight(0);
  l0.backwardInput(0, d1, false);
  l0.backwardWeight(0);
  const std::vector<float> analytic = l0.weightGrad();
  const float eps = 1e-2f;
  for (size_t k : {size_t{0}, size_t{7}, size_t{20}, size_t{35}}) {
    const float w = l0.weights()[k];
    l0.weights()[k] = w + eps;
    const double up = twoLayerLoss(l0, l1);
    l0.weights()[k] = w - eps;
    const double down = twoLayerLoss(l0, l1);
    l0.weights()[k] = w;
    const double numeric = (up - down) / (2 * eps);
    EXPECT_NEAR(analytic[k], numeric, 1e-3 + 2e-2 * std::abs(numeric)) << "weight " << k;
  }
}

TEST(Mlp, DeferredWeightGradientsEqualTheFusedBackward) {
  DenseLayer fused(kSmall, 9, 0, true), split(kSmall, 9, 0, true);
  Tensor dy(static_cast<size_t>(kSmall.batch * kSmall.width), 0.1f);
  for (int mb = 0; mb < 3; ++mb) {
    fused.forward(mb, makeInput(kSmall, 9, 0, mb));
    split.forward(mb, makeInput(kSmall, 9, 0, mb));
  }
  for (int mb = 0; mb < 3; ++mb) {
    Tensor a = fused.backwardInput(mb, dy);
    fused.backwardWeight(mb);
    Tensor b = split.backwardInput(mb, dy);
    EXPECT_EQ(a, b);  // B does not depend on W having run
  }
  EXPECT_EQ(split.microbatchesHeld(), 3u);  // W still needs them
  for (int mb : {2, 0, 1}) split.backwardWeight(mb);
  EXPECT_EQ(split.microbatchesHeld(), 0u);
  for (size_t k = 0; k < fused.weightGrad().size(); ++k) {
    EXPECT_NEAR(fused.weightGrad()[k], split.weightGrad()[k], 1e-6);
  }
}

TEST(Mlp, SameSeedGivesSameWeightsInEveryProcess) {
  DenseLayer a(kSmall, 3, 4, true), b(kSmall, 3, 4, true), other(kSmall, 3, 5, true);
  EXPECT_EQ(a.weights(), b.weights());
  EXPECT_NE(a.weights(), other.weights());
  EXPECT_EQ(makeInput(kSmall, 3, 2, 1), makeInput(kSmall, 3, 2, 1));
  EXPECT_NE(makeInput(kSmall, 3, 2, 1), makeInput(kSmall, 3, 2, 2));
}

// All layers on one stage (p = 1, one chunk per layer): plain sequential training.
std::vector<double> trainSequentially(int layers, int m, int steps) {
  Schedule s;
  s.p = 1;
  s.m = m;
  s.v = layers;
  s.stages.resize(1);
  for (int mb = 0; mb < m; ++mb) {
    for (int c = 0; c < layers; ++c) s.stages[0].push_back({OpKind::F, mb, c});
    for (int c = layers - 1; c >= 0; --c) s.stages[0].push_back({OpKind::BW, mb, c});
  }
  MlpShape shape;
  shape.width = 32;
  shape.batch = 16;
  MlpCompute compute(s, 0, shape, 1);
  const auto plan = planStage(s, 0);
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    Payload carried;
    for (const PlannedOp& op : plan) carried = compute.runOp(op, step, std::move(carried), 0, 1.0);
    GradSyncValues v = compute.gradSyncContribution();
    compute.runOptimizer(v);
    losses.push_back(v.lossSum / v.lossCount);
  }
  return losses;
}

TEST(Mlp, SequentialTrainingLowersTheLoss) {
  auto losses = trainSequentially(4, 4, 6);
  for (size_t i = 1; i < losses.size(); ++i) EXPECT_LT(losses[i], losses[i - 1]) << "step " << i;
  EXPECT_LT(losses.back(), 0.9 * losses.front());
}

}  // namespace
}  // namespace bubblescope::engine
