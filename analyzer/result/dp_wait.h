#pragma once
// What a replica's stages waited at the DP sync, step by step (analysis.md §7): the replicas'
// stage s meet in stage s's gradient collective after their last pipeline op, so a replica whose
// stage s arrived earlier waits there for the last one. Found across the replicas
// (replicas/dp_waits.h) before each pipeline is analysed, so that its drain gaps hold that wait
// as its own class ("wait: DP sync") instead of a stall nothing in the pipeline explains.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

struct DpWait {
  TimeNs wait = 0;  // how long after this replica's stage the last one arrived (0: it was last)
  int lastDp = -1;  // the DP rank of the replica whose stage arrived last (-1: no stage had ops)
};

// One pipeline's waits: per step number, per stage (no entry where a step is not on every
// replica).
struct DpWaits {
  std::map<int64_t, std::vector<DpWait>> byStep;

  const DpWait* at(int64_t step, int stage) const {
    auto it = byStep.find(step);
    if (it == byStep.end() || stage < 0 || static_cast<size_t>(stage) >= it->second.size()) {
      return nullptr;
    }
    return &it->second[stage];
  }
};

}  // namespace bubblescope::analysis
