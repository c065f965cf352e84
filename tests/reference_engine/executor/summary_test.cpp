// The end-of-run summary: step time over all stages and the pipeline bubble between first and
// last op; the loss, stage 0's, in mlp mode only.
#include "reference_engine/executor/summary.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

StageRecord stage(int64_t stepStart, int64_t stepEnd, int64_t opStart, int64_t opEnd) {
  StageRecord r;
  r.steps.push_back({0, {stepStart, stepEnd}, {}, {}, std::nullopt});
  r.ops.push_back({0, {OpKind::F, 0, 0}, opStart, opEnd});
  return r;
}

EngineConfig config(ComputeMode compute) {
  EngineConfig c;
  c.schedule = Schedule::byName("1f1b", 2, 1);
  c.steps = 1;
  c.compute = compute;
  c.costs = {1, 1, 1, 1};
  return c;
}

TEST(Summary, StepTimeSpansAllStagesAndBubbleIsTheIdleShare) {
  // Two stages; ops of step 0 span [0, 4] ms; each stage busy 2 ms → bubble 50 %.
  const std::vector<StageRecord> stages = {stage(0, 5'000'000, 0, 2'000'000),
                                           stage(100, 6'000'000, 2'000'000, 4'000'000)};
  const EngineConfig c = config(ComputeMode::Sleep);
  auto steps = summarizeSteps(c, stages);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_DOUBLE_EQ(steps[0].ms, 6.0);
  EXPECT_DOUBLE_EQ(steps[0].bubble, 0.5);
  EXPECT_FALSE(steps[0].loss.has_value());
  const std::string text = formatSummary(c, stages, "out/truth.json");
  EXPECT_NE(text.find("engine: 1F1B, p=2 m=1 v=1, 1 step(s), compute sleep (F 1, B 1, W 1 ms)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("step 0"), std::string::npos) << text;
  EXPECT_NE(text.find("bubble  50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("truth: out/truth.json"), std::string::npos) << text;
}

TEST(Summary, MlpLossIsStageZerosAndAbsentOtherwise) {
  std::vector<StageRecord> stages = {stage(0, 5'000'000, 0, 2'000'000),
                                     stage(100, 6'000'000, 2'000'000, 4'000'000)};
  stages[0].steps[0].loss = 0.375;
  stages[1].steps[0].loss = 9.0;
  const auto steps = summarizeSteps(config(ComputeMode::Mlp), stages);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].loss, 0.375);
  EXPECT_NE(formatSummary(config(ComputeMode::Mlp), stages, "t.json").find("loss 0.37500"),
            std::string::npos);
  EXPECT_FALSE(summarizeSteps(config(ComputeMode::Sleep), stages)[0].loss.has_value());
}

}  // namespace
}  // namespace bubblescope::engine
