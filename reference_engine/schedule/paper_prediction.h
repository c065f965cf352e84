#pragma once
// What the literature predicts for a named schedule: its bubble and peak activation memory at
// given op costs, as each row of the schedule table (schedule_table.h) computes them.
#include <cstdint>
#include <string>

namespace bubblescope::engine {

// T_F, T_B, T_W and the fused backward T_BW of one microbatch through one whole stage, in ns:
// the ZB paper's notation, which its formulas are written in.
struct PaperCosts {
  int64_t f = 0;
  int64_t b = 0;
  int64_t w = 0;
  int64_t bw = 0;
};

struct PaperPrediction {
  std::string bubbleFormula;  // "(p-1)(T_F+T_B-T_W)"
  int64_t bubble = 0;         // its value for the given costs, in ns
  // When our simulator reproduces the formula exactly (transfer 0, equal stages), e.g.
  // "T_W <= T_F and m >= p"; empty when always. The formulas assume these conditions.
  std::string conditions;
  bool conditionsHold = true;
  std::string memoryFormula;   // "pM_B"
  double peakActivations = 0;  // in units of M_B (with M_W = 0, as the paper counts)
};

}  // namespace bubblescope::engine
