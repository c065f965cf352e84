#pragma once
// Cutting a generated pattern back to fewer microbatches, for generators whose hand-crafted
// pattern is laid out for a minimum number of microbatches (ZB-H2, ZB-V).
#include <vector>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// Drops the ops of microbatches >= m. The order stays deadlock-free: no op of a kept microbatch
// depends on a dropped one, and dropping ops never blocks a stage.
inline void trimToMicrobatches(Schedule& s, int m) {
  for (auto& ops : s.stages) {
    std::erase_if(ops, [m](const Op& op) { return op.mb >= m; });
  }
  s.m = m;
}

}  // namespace bubblescope::engine
