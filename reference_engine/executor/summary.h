#pragma once
// The few lines `engine run` prints at the end: per step its time, its pipeline bubble (idle
// share of the stages between the first and the last op) and, for mlp, the loss. Pure.
#include <optional>
#include <string>
#include <vector>

#include "reference_engine/executor/engine_config.h"
#include "reference_engine/executor/stage_record.h"

namespace bubblescope::engine {

struct StepSummary {
  int step = 0;
  double ms = 0;      // first step start to last step end, over all stages
  double bubble = 0;  // 1 − Σ op time / (p × op span)
  std::optional<double> loss;
};

// From what each stage did in a run of `config` (the records truth.json holds).
std::vector<StepSummary> summarizeSteps(const EngineConfig& config,
                                        const std::vector<StageRecord>& stages);
std::string formatSummary(const EngineConfig& config, const std::vector<StageRecord>& stages,
                          const std::string& truthPath);

}  // namespace bubblescope::engine
