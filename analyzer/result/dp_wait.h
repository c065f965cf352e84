#pragma once
// What a replica's stages waited at the DP sync, step by step (analysis.md §7): the replicas'
// stage s meet in stage s's gradient collective after their last pipeline op, so a replica whose
// stage s arrived earlier waits there for the last one. Found across the replicas
// (replicas/dp_waits.h) before each pipeline is analysed, so that its drain gaps hold that wait
// as its own class ("wait: DP sync") instead of a stall nothing in the pipeline explains.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

struct DpWait {
  TimeNs wait = 0;  // how long after this replica's stage the last one arrived (0: it was last)
  int lastDp = -1;  // the DP rank of the replica whose stage arrived last (-1: no stage had ops)
};

// One pipeline's waits: per step number, per stage (no entry where a step is not on every
// replica). In two flat lists, not a tree of lists: a replica holds them from the job's rounds
// to its analysis, and at 10,000 replicas a tree and a list a step were 13 MB of the peak.
struct DpWaits {
  int p = 0;                   // stages per step
  std::vector<int64_t> steps;  // the step numbers, ascending
  std::vector<DpWait> waits;   // step k's stage s at k * p + s

  const DpWait* at(int64_t step, int stage) const {
    auto it = std::lower_bound(steps.begin(), steps.end(), step);
    if (it == steps.end() || *it != step || stage < 0 || stage >= p) return nullptr;
    return &waits[static_cast<size_t>(it - steps.begin()) * static_cast<size_t>(p) +
                  static_cast<size_t>(stage)];
  }
  // Step `number`'s stages, after every step so far: p waits of none.
  DpWait* add(int64_t number) {
    steps.push_back(number);
    waits.resize(waits.size() + static_cast<size_t>(p));
    return &waits[waits.size() - static_cast<size_t>(p)];
  }
};

}  // namespace bubblescope::analysis
