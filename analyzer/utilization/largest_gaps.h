#pragma once
// The largest idle gaps of a job, kept as they are found: a trace of millions of kernels has
// millions of gaps, and only a handful are listed. Largest first; of equal gaps, the first found.
// Pure.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "analyzer/result/result.h"
#include "analyzer/result/utilization_result.h"

namespace bubblescope::analysis {

class LargestGaps {
 public:
  explicit LargestGaps(size_t most) : most_(most) {}

  // Whether a gap this long would be kept: ask first, since naming one costs strings.
  bool wants(TimeNs length) const {
    return length >= kLeastListedGap &&
           (kept_.size() < most_ || (most_ > 0 && length > kept_.back().length()));
  }
  void add(IdleGap gap) {
    if (!wants(gap.length())) return;
    const auto at = std::upper_bound(kept_.begin(), kept_.end(), gap.length(),
                                     [](TimeNs l, const IdleGap& k) { return l > k.length(); });
    kept_.insert(at, std::move(gap));
    if (kept_.size() > most_) kept_.pop_back();
  }
  std::vector<IdleGap> take() && { return std::move(kept_); }

 private:
  size_t most_;
  std::vector<IdleGap> kept_;  // largest first
};

}  // namespace bubblescope::analysis
