#pragma once
// What each op costs in the sleep compute mode, and how the faults scale it: the slow-stage factor
// and a jitter that is reproducible from the seed (the same op gets the same draw in every run).
#include <cstdint>
#include <string_view>

#include "reference_engine/executor/faults.h"
#include "reference_engine/schedule/op.h"

namespace bubblescope::engine {

struct OpCosts {
  double fMs = 2.0;
  double bMs = 2.0;  // input gradient
  double wMs = 2.0;  // weight gradient
  double optimizerMs = 1.0;

  double ms(OpKind kind) const;  // BW costs B + W, as a fused backward does both
};

// "F,B,W" in ms (e.g. "2,2,1"), or one number for all three. Throws std::invalid_argument.
OpCosts parseOpMs(std::string_view text, OpCosts base = {});

class CostModel {
 public:
  CostModel(const OpCosts& costs, const Faults& faults, uint64_t seed)
      : costs_(costs), faults_(faults), seed_(seed) {}

  // The factor an op's nominal cost is multiplied by: the stage's slow factor in that step ×
  // (1 + jitter draw).
  // `opIndex` is the op's position in its stage's order for the step.
  double scale(int stage, int step, int opIndex) const;
  int64_t opNs(int stage, int step, int opIndex, OpKind kind) const;
  int64_t optimizerNs() const;

 private:
  OpCosts costs_;
  Faults faults_;
  uint64_t seed_;
};

// Uniform in [-1, 1], a pure function of its arguments (splitmix64).
double uniformDraw(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

}  // namespace bubblescope::engine
