// The mlp compute mode really trains: the loss falls, and since a pipeline schedule only reorders
// work, every schedule of the same model computes the same losses as plain sequential training.
#include <gtest/gtest.h>

#include "reference_engine/executor/mlp_compute.h"
#include "reference_engine/executor/stage_plan.h"
#include "tests/reference_engine/executor/engine_run.h"

namespace bubblescope::engine {
namespace {

using test::json;

std::vector<double> losses(const json& truth) {
  return truth["loss"].get<std::vector<double>>();
}

std::vector<double> runMlp(const std::string& schedule, int p, int m, int steps) {
  testing::TempDir dir;
  auto run = test::runEngine(
      dir, {"--schedule", schedule, "-p", std::to_string(p), "-m", std::to_string(m), "--steps",
            std::to_string(steps), "--compute", "mlp", "--mlp-width", "48", "--mlp-batch", "16"});
  EXPECT_EQ(run.process.exitCode, 0) << run.process.err;
  if (run.truth.is_null()) return {};
  EXPECT_EQ(run.truth["compute"], "mlp");
  EXPECT_EQ(run.truth["mlp"]["layers"], 4);
  return losses(run.truth);
}

TEST(EngineMlp, LossFallsOverSteps) {
  auto loss = runMlp("1f1b", 4, 4, 6);
  ASSERT_EQ(loss.size(), 6u);
  for (size_t i = 1; i < loss.size(); ++i) EXPECT_LT(loss[i], loss[i - 1]) << "step " << i;
  EXPECT_LT(loss.back(), 0.9 * loss.front());
}

// Sequential training of the same 4 layers in this process (one stage holding every layer).
std::vector<double> sequential(int m, int steps) {
  Schedule s;
  s.p = 1;
  s.m = m;
  s.v = 4;
  s.stages.resize(1);
  for (int mb = 0; mb < m; ++mb) {
    for (int c = 0; c < 4; ++c) s.stages[0].push_back({OpKind::F, mb, c});
    for (int c = 3; c >= 0; --c) s.stages[0].push_back({OpKind::BW, mb, c});
  }
  MlpShape shape;
  shape.width = 48;
  shape.batch = 16;
  MlpCompute compute(s, 0, shape, 1);
  std::vector<double> out;
  for (int step = 0; step < steps; ++step) {
    Payload carried;
    for (const PlannedOp& op : planStage(s, 0))
      carried = compute.runOp(op, step, std::move(carried), 0, 1);
    const GradSyncValues v = compute.gradSyncContribution();
    compute.runOptimizer(v);
    out.push_back(v.lossSum / v.lossCount);
  }
  return out;
}

TEST(EngineMlp, EveryScheduleOfTheSameModelComputesTheSequentialLosses) {
  const auto reference = sequential(4, 3);
  // Four layers: four stages with one chunk each, or two stages with two chunks.
  const std::vector<std::pair<std::string, int>> runs = {
      {"gpipe", 4}, {"1f1b", 4}, {"zb-h1", 4}, {"zb-h2", 4}, {"interleaved", 2}, {"zb-v", 2}};
  for (const auto& [schedule, p] : runs) {
    auto loss = runMlp(schedule, p, 4, 3);
    ASSERT_EQ(loss.size(), reference.size()) << schedule;
    for (size_t i = 0; i < loss.size(); ++i) {
      EXPECT_NEAR(loss[i], reference[i], 1e-5 * reference[i]) << schedule << " step " << i;
    }
  }
}

}  // namespace
}  // namespace bubblescope::engine
