#pragma once
// Small JSON reports for the check tests: only the fields `check` reads, with chosen values.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/model/time.h"

namespace bubblescope::testing {

struct PipelineNumbers {
  int dpRank = 0;
  double bubblePct = 20;  // idle, % of the span
  double slowdown = 1.1;
  double stepMs = 100;
  std::vector<double> stageSlowdown = {1.0, 1.05, 1.1, 1.0};
  std::map<std::string, double> classPct = {{"warmup", 8}, {"drain", 8}, {"imbalance", 4}};
};

nlohmann::json pipelineJson(const PipelineNumbers& n);
nlohmann::json reportJson(const std::vector<PipelineNumbers>& pipelines);

}  // namespace bubblescope::testing
