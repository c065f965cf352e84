#include "analyzer/idle/comm_waits.h"

#include <algorithm>

namespace bubblescope::analysis {

std::vector<CommWait> commWaitsOf(const PipelineTrace& pl, const std::vector<Gap>& gaps) {
  // Gaps of one stage never overlap, so by start they are also by end: a binary search finds
  // the first that can reach a wait.
  std::vector<std::vector<int>> byStage(pl.stages.size());
  for (size_t g = 0; g < gaps.size(); ++g) {
    if (gaps[g].stage >= 0 && static_cast<size_t>(gaps[g].stage) < byStage.size())
      byStage[gaps[g].stage].push_back(static_cast<int>(g));
  }
  std::vector<CommWait> out;
  for (const StageTrace& st : pl.stages) {
    auto& mine = byStage[st.stage];
    std::sort(mine.begin(), mine.end(), [&](int a, int b) { return gaps[a].start < gaps[b].start; });
    for (const CommKernel& k : st.ops.commKernels) {
      if (!k.matched || k.transferStart <= k.start) continue;
      auto it = std::partition_point(mine.begin(), mine.end(),
                                     [&](int g) { return gaps[g].end <= k.start; });
      int best = -1;
      TimeNs bestOverlap = 0;
      for (; it != mine.end() && gaps[*it].start < k.transferStart; ++it) {
        const TimeNs overlap = std::min(gaps[*it].end, k.transferStart) -
                               std::max(gaps[*it].start, k.start);
        if (overlap > bestOverlap) {
          bestOverlap = overlap;
          best = *it;
        }
      }
      if (best < 0) continue;
      out.push_back({st.stage, static_cast<int>(st.ranks.front()), k.kernel, k.start,
                     k.transferStart, k.end, best, k.members});
    }
  }
  return out;
}

}  // namespace bubblescope::analysis
