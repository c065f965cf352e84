#pragma once
// What the literature predicts for each named schedule, shown beside the simulated values: the
// bubble (idle of the longest stage inside its span) and peak activation memory. Qi et al.,
// "Zero Bubble Pipeline Parallelism" (ICLR'24) Table 1 and §6; Narayanan et al. (SC'21) §2.2.
#include <optional>
#include <string>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/costs.h"

namespace bubblescope::engine {

struct PaperPrediction {
  std::string bubbleFormula;  // "(p-1)(T_F+T_B-T_W)"
  TimeNs bubble = 0;          // its value for the given costs
  // When our simulator reproduces the formula exactly (transfer 0, equal stages), e.g.
  // "T_W <= T_F and m >= p"; empty when always. The formulas assume these conditions.
  std::string conditions;
  bool conditionsHold = true;
  std::string memoryFormula;   // "pM_B"
  double peakActivations = 0;  // in units of M_B (with M_W = 0, as the paper counts)
};

// The prediction for a named schedule with the same costs on every stage; empty for Custom.
std::optional<PaperPrediction> paperPrediction(const Schedule& schedule, const KindCosts& costs);

}  // namespace bubblescope::engine
