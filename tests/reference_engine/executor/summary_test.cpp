// The end-of-run summary: step time over all stages and the pipeline bubble between first and
// last op.
#include "reference_engine/executor/summary.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

using nlohmann::json;

json op(int step, int64_t start, int64_t end) {
  return {{"step", step}, {"kind", "F"},       {"mb", 0},
          {"chunk", 0},   {"start_ns", start}, {"end_ns", end}};
}

TEST(Summary, StepTimeSpansAllStagesAndBubbleIsTheIdleShare) {
  // Two stages; ops of step 0 span [0, 4] ms; each stage busy 2 ms → bubble 50 %.
  json truth = {{"steps", 1},
                {"p", 2},
                {"m", 1},
                {"v", 1},
                {"compute", "sleep"},
                {"schedule_kind", "1F1B"},
                {"costs_ms", {{"F", 1}, {"B", 1}, {"W", 1}}},
                {"stages", json::array()}};
  truth["stages"].push_back({{"steps", {{{"step", 0}, {"start_ns", 0}, {"end_ns", 5'000'000}}}},
                             {"ops", {op(0, 0, 2'000'000)}}});
  truth["stages"].push_back({{"steps", {{{"step", 0}, {"start_ns", 100}, {"end_ns", 6'000'000}}}},
                             {"ops", {op(0, 2'000'000, 4'000'000)}}});
  auto steps = summarizeSteps(truth);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_DOUBLE_EQ(steps[0].ms, 6.0);
  EXPECT_DOUBLE_EQ(steps[0].bubble, 0.5);
  EXPECT_FALSE(steps[0].loss.has_value());
  const std::string text = formatSummary(truth, "out/truth.json");
  EXPECT_NE(text.find("step 0"), std::string::npos) << text;
  EXPECT_NE(text.find("bubble  50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("truth: out/truth.json"), std::string::npos) << text;
}

}  // namespace
}  // namespace bubblescope::engine
