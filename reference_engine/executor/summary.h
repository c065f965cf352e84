#pragma once
// The few lines `engine run` prints at the end: per step its time, its pipeline bubble (idle
// share of the stages between the first and the last op) and, for mlp, the loss. Pure.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bubblescope::engine {

struct StepSummary {
  int step = 0;
  double ms = 0;      // first step start to last step end, over all stages
  double bubble = 0;  // 1 − Σ op time / (p × op span)
  std::optional<double> loss;
};

std::vector<StepSummary> summarizeSteps(const nlohmann::json& truth);
std::string formatSummary(const nlohmann::json& truth, const std::string& truthPath);

}  // namespace bubblescope::engine
