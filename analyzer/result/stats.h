#pragma once
// The two summaries the analysis takes of per-step times: the median (lags, tails, costs that a
// stalled outlier must not move) and the mean (step times). Zero for no values.
#include <algorithm>
#include <numeric>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

inline TimeNs median(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

inline TimeNs mean(const std::vector<TimeNs>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), TimeNs{0}) / static_cast<TimeNs>(v.size());
}

}  // namespace bubblescope::analysis
