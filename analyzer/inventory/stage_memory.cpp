#include "analyzer/inventory/stage_memory.h"

#include <algorithm>

#include "analyzer/inventory/device_memory.h"

namespace bubblescope::analysis {
namespace {

// The least free bytes over the parts of [start, end] that no compute kernel starting in it covers.
int64_t leastFreeWhileIdle(const DeviceMemorySeries& memory, const std::vector<Interval>& compute,
                           TimeNs start, TimeNs end) {
  auto it = std::lower_bound(compute.begin(), compute.end(), start,
                             [](const Interval& k, TimeNs t) { return k.start < t; });
  int64_t least = traces::kBytesUnknown;
  TimeNs from = start;
  auto window = [&](TimeNs a, TimeNs b) {
    if (b <= a) return;
    const int64_t free = memory.leastFree(a, b);
    if (free != traces::kBytesUnknown && (least == traces::kBytesUnknown || free < least)) {
      least = free;
    }
  };
  for (; it != compute.end() && it->start < end; ++it) {
    window(from, it->start);
    from = std::max(from, it->end);
  }
  window(from, end);
  return least;
}

}  // namespace

void attachFreeMemory(const traces::Run& run, const PipelineTrace& trace, PipelineResult& result) {
  for (const StageTrace& st : trace.stages) {
    if (st.ranks.empty() || st.ranks.front() >= run.ranks.size()) continue;
    const traces::RankTrace& rank = run.ranks[st.ranks.front()];
    if (rank.memory->size() == 0) continue;  // nothing to read: leave every gap unknown
    const DeviceMemorySeries memory = deviceMemoryOf(rank, st.clockOffset);
    for (StageResult& s : result.stages) {
      if (s.stage != st.stage) continue;
      s.memoryBasis = memory.basis;
      s.deviceMemory = memory.capacity;
    }
    if (!memory.freeKnown()) continue;
    // Recognised with the ops, and shifted with them into the pipeline's clock.
    const std::vector<Interval>& compute = st.ops.kernelsForMemory;
    for (Gap& g : result.gaps) {
      if (g.stage == st.stage) g.freeMemory = leastFreeWhileIdle(memory, compute, g.start, g.end);
    }
    for (Bubble& b : result.bubbles) {
      if (b.stage == st.stage) b.freeMemory = leastFreeWhileIdle(memory, compute, b.start, b.end);
    }
  }
}

}  // namespace bubblescope::analysis
