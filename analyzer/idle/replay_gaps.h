#pragma once
// The idle gap before each op of one stage in a replay (engine::SimResult), read in rising
// position as a stage's gaps are classified: each read goes on from where the last stopped.
// Reading each gap from the stage's first op was quadratic in a stage's ops per step, which the
// input sets (m microbatches: 2m ops a step; issue 28, rule 2).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "reference_engine/sim/simulate.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

class ReplayGaps {
 public:
  ReplayGaps(const engine::SimResult& sim, int stage)
      : sim_(sim), ops_(sim.stages[static_cast<size_t>(stage)].ops) {}

  // The gap before the op at `pos` (the drain gap, to the makespan, when pos is past the last):
  // from the latest end of the ops before it to its start. A position below the last read's
  // starts again from the first op.
  TimeNs before(int pos) {
    const size_t want = std::min(static_cast<size_t>(std::max(pos, 0)), ops_.size());
    if (want < next_) {
      next_ = 0;
      prevEnd_ = 0;
    }
    for (; next_ < want; ++next_, ++reads_) prevEnd_ = std::max(prevEnd_, ops_[next_].end);
    if (want == ops_.size()) return sim_.makespan - prevEnd_;
    return std::max<TimeNs>(0, ops_[want].start - prevEnd_);
  }

  // How many op timings the reads so far went over: what the tests bound.
  size_t reads() const { return reads_; }

 private:
  const engine::SimResult& sim_;
  const std::vector<engine::OpTiming>& ops_;
  size_t next_ = 0;  // the ops before it are in prevEnd_
  TimeNs prevEnd_ = 0;
  size_t reads_ = 0;
};

}  // namespace bubblescope::analysis
